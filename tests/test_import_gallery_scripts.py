"""sphinx-gallery's format: a .py example whose module docstring (reStructuredText, a title
first) introduces it and whose `# %%` comment blocks are its prose, as scikit-learn's and
Matplotlib's galleries and tutorials are kept. The prose is read by docutils and written
as MyST, so the rest of the import treats it as a Jupyter Book notebook's."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import authoring_example
from coursesite.importers.galleryscripts import is_gallery_script
from coursesite.importers.notebooks import read_notebook_file
from coursesite.importers.rstmyst import rst_to_myst

# Shaped as Matplotlib's users_explain tutorials are: a label and a title with an overline,
# Sphinx roles, an admonition, a setting of sphinx-gallery's, both kinds of separator.
SCRIPT = '''\
r"""
.. _sums-guide:

=============
Summing lists
=============

Adding numbers with :func:`sum`, as *the* `Python docs
<https://docs.python.org/3/>`_ explain; see :ref:`other-guide` for more.

.. note::

   Floats add with rounding: :math:`0.1 + 0.2 \\neq 0.3`.
"""

import math

# %%
# Squares
# =======
#
# The squares of the first numbers, and ``math.isqrt`` of their total:

squares = [n * n for n in range(4)]
print("total", sum(squares), math.isqrt(sum(squares)))
# sphinx_gallery_thumbnail_number = 1

###############################################################################
# Cubes
# -----
#
# - one cube per number
# - their total, with `~math.fsum`

print("cubes", math.fsum(n**3 for n in range(4)))
'''


def test_a_gallery_script_is_read_as_cells_of_myst_prose_and_code_at_their_lines(
    tmp_path: Path,
):
    path = tmp_path / "plot_sums.py"
    path.write_text(SCRIPT)
    read = read_notebook_file(path)
    assert [(c.kind, c.where) for c in read.cells] == [
        ("markdown", "line 2"),
        ("code", "line 16"),
        ("markdown", "line 19"),
        ("code", "line 24"),
        ("markdown", "line 29"),
        ("code", "line 35"),
    ]
    intro, _, squares, code, cubes, _ = (c.source for c in read.cells)
    # One page: the docstring's title is the top heading, the blocks' sections under it.
    assert intro.startswith("(sums-guide)=\n\n# Summing lists\n\n")
    assert (
        "Adding numbers with {func}`sum`, as *the* [Python docs](https://docs.python.org/3/)"
        in intro
    )
    assert "see {ref}`other-guide` for more" in intro
    assert "```{note}\nFloats add with rounding: {math}`0.1 + 0.2 \\neq 0.3`.\n```" in intro
    assert squares.startswith("## Squares\n\nThe squares of the first numbers, and `math.isqrt`")
    assert cubes.startswith("### Cubes\n\n- one cube per number\n- their total, with `fsum`")
    assert "sphinx_gallery" not in code and code.endswith("math.isqrt(sum(squares)))")
    assert read.notes == [
        "line 26: # sphinx_gallery_thumbnail_number = 1 is a setting of sphinx-gallery's "
        "page: left out"
    ]


def test_comments_above_the_docstring_are_left_out_with_a_note(tmp_path: Path):
    path = tmp_path / "plot_licensed.py"
    path.write_text("# Authors: the developers\n# License: BSD\n\n" + SCRIPT)
    read = read_notebook_file(path)
    assert read.cells[0].source.startswith("(sums-guide)=\n\n# Summing lists")
    assert read.cells[0].where == "line 5"
    assert read.notes[0] == (
        "line 1: the comments above the docstring, which sphinx-gallery does not show "
        "either, are left out"
    )
    path.write_text(SCRIPT)
    assert not any("above the docstring" in note for note in read_notebook_file(path).notes)


def test_only_a_docstring_with_a_title_and_no_markdown_cells_makes_a_gallery_script():
    assert is_gallery_script(SCRIPT)
    assert not is_gallery_script('"""Sums of squares, no title."""\n# %%\nprint(1)\n')
    assert not is_gallery_script(SCRIPT + "\n# %% [markdown]\n# A jupytext cell of prose.\n")


def test_what_docutils_cannot_read_is_a_note_at_the_script_line_and_text_is_escaped():
    myst, notes = rst_to_myst(
        "A *star* and `link`_ to nothing.\n\nUse [brackets] and <angles>.\n",
        place=lambda line: f"line {line + 40}",
    )
    assert "Use \\[brackets\\] and \\<angles\\>." in myst
    assert notes == ['line 41: reStructuredText: Unknown target name: "link".']


def test_a_gallery_script_imports_as_a_lesson_that_builds(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "plot_sums.py").write_text(SCRIPT)
    done = course_folder.cli("import", "plot_sums.py", "--phase", "02")
    assert done.returncode == 0, done.stderr
    assert "{ref}`other-guide` points at a label outside this notebook" in done.stdout
    lesson = next((course_folder.root / "content").glob("02-*/01-summing-lists.md"))
    text = lesson.read_text()
    assert "title: Summing lists\n" in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/summing-lists/index.html")).read_text()
    assert "<samp>total 14 3" in page and "<samp>cubes 36.0" in page
    assert 'id="sums-guide"' in page or 'id="summing-lists"' in page


def test_restructuredtexts_blocks_become_their_myst_forms():
    text = (
        "term one\n   Its *meaning*.\n\nSee the note [#n]_ and ``code``.\n\n"
        ".. [#n] The note's text.\n\n"
        ".. figure:: images/plot.png\n   :alt: a rising line\n\n   The caption.\n\n"
        ">>> print(1)\n1\n\nPlain literal::\n\n    x = compute(1)\n\n"
        ".. plot::\n\n   plt.plot([1, 2])\n\n"
        ".. table:: Sizes\n\n   =====  =====\n   A      B|C\n   =====  =====\n"
        "   1      2\n   =====  =====\n\n"
        ".. math::\n   :name: eq-one\n\n   a = b\n\n"
        "1. first\n\n   - nested *one*\n   - nested two\n\n2. second\n"
    )
    myst, notes = rst_to_myst(text)
    assert notes == []
    assert myst.split("\n\n") == [
        "term one\n: Its *meaning*.",
        "See the note [^1] and `code`.",
        "[^1]: The note's text.",
        "```{figure} images/plot.png\n:alt: a rising line",
        "The caption.\n```",
        "```pycon\n>>> print(1)\n1\n```",
        "Plain literal:",
        "```python\nx = compute(1)\n```",
        "```{plot}\nplt.plot([1, 2])\n```",
        "**Sizes**",
        "| A | B\\|C |\n|---|---|\n| 1 | 2 |",
        "(eq-one)=",
        "$$\na = b\n$$",
        "1. first",
        "   - nested *one*\n   - nested two",
        "2. second",
    ]


def test_a_directives_options_and_body_are_kept_as_written_unless_its_body_is_prose():
    """Matplotlib's mathtext guide: `.. mathmpl::` with an option, LaTeX for its body, in a
    definition; a role's backslashes; a version note whose text starts on its own line."""
    text = (
        "``cm``: Computer Modern\n"
        "    .. mathmpl::\n       :fontset: cm\n\n       \\mathcal{R} \\sin(2 \\pi f x_i)\n\n"
        "Roman is :mathmpl:`\\mathrm{Roman}`.\n\n"
        ".. versionadded:: 3.7\n   The *mosaic*.\n\n   More text.\n"
    )
    myst, notes = rst_to_myst(text)
    assert notes == []
    assert myst.split("\n\n") == [
        "**`cm`: Computer Modern**",
        "```{mathmpl}\n:fontset: cm",
        "\\mathcal{R} \\sin(2 \\pi f x_i)\n```",
        "Roman is {mathmpl}`\\mathrm{Roman}`.",
        "```{versionadded} 3.7\nThe *mosaic*.",
        "More text.\n```",
    ]


RST_FRAGMENTS = [
    "Title\n=====",
    "Sub\n---",
    "====\nOver\n====",
    "Plain *text* with **bold**, ``code`` and `default`.",
    ".. note::\n\n   A note.",
    ".. admonition:: Titled\n\n   Body.",
    ".. seealso::\n   :doc:`/x`",
    ".. versionadded:: 3.1\n   Text.",
    ".. figure:: a.png\n   :alt: A\n\n   Caption.",
    ".. figure:: a.png",
    ".. image:: b.png\n   :width: 50%",
    ".. math::\n\n   a^2",
    ":math:`x` and :func:`~a.b` and :ref:`label <target>`",
    ".. _label:",
    "- one\n- two\n\n  - nested",
    "1. first\n2. second",
    "term\n   definition",
    ":field: value",
    "| line\n| block",
    "::\n\n    literal",
    ">>> 1\n1",
    ".. [#] A footnote.",
    "See [1]_ and [#x]_ and `link`_ and `x <http://e.org>`__.",
    ".. |sub| replace:: text",
    "|sub| and |missing|",
    "=====  =====\nA      B\n=====  =====",
    "+---+---+\n| a | b |\n+---+---+",
    ".. list-table::\n\n   * - a\n     - b",
    ".. csv-table::\n   :header: a, b\n\n   1, 2",
    ".. table::",
    ".. topic:: T\n\n   body",
    ".. sidebar:: S\n\n   body",
    ".. rubric:: R",
    ".. raw:: html\n\n   <b>x</b>",
    ".. include:: other.rst",
    ".. plot::\n\n   plt.plot()",
    ".. unknown-thing:: arg\n   :opt: v\n\n   body",
    ".. only:: html\n\n   shown",
    "   indented quote",
    "----------",
    "`unclosed",
    "*unclosed",
    ".. comment",
    "\\ backslash \\",
    "{braces} [brackets] <angles> $dollars$ |pipes|",
    "# not a heading",
]


@given(st.lists(st.sampled_from(RST_FRAGMENTS), max_size=8))
@settings(max_examples=300, deadline=None)
def test_any_restructuredtext_becomes_text_and_notes_never_an_exception(fragments):
    myst, notes = rst_to_myst("\n\n".join(fragments))
    assert isinstance(myst, str) and all(note.startswith(("line ", "the prose")) for note in notes)


def test_a_block_marked_as_raising_keeps_its_place_and_declares_it(course_folder):
    """sphinx-gallery's `# sphinx_gallery_expected_error` is a notebook's raises-exception
    tag: the block stays a step in program order that declares it raises, so what it set
    before raising reaches the next step and the lesson builds; left out as a page setting,
    the build failed on the error the script says it shows."""
    course_folder.write(authoring_example())
    script = (
        '"""\nExpected errors\n===============\n\nSome blocks raise.\n"""\n'
        "# %%\n# This one raises, and says so:\n\n# sphinx_gallery_expected_error\n"
        'x = 21\n1 + "hello"\n\n# %%\n# What it set is still there:\n\nprint("twice", x * 2)\n'
    )
    (course_folder.root / "plot_raise.py").write_text(script)
    done = course_folder.cli("import", "plot_raise.py", "--phase", "02")
    assert done.returncode == 0, done.stderr
    assert "line 10: # sphinx_gallery_expected_error is sphinx-gallery's raises-exception" in (
        done.stdout
    )
    text = next((course_folder.root / "content").glob("02-*/01-expected-errors.md")).read_text()
    assert "sphinx_gallery" not in text
    assert text.index(":raises: Exception\n```python\nx = 21") < text.index('print("twice"')
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/expected-errors/index.html")).read_text()
    assert "twice 42" in page and "TypeError" in page


def test_a_setting_left_out_between_blank_lines_leaves_one_blank_line():
    """sphinx-gallery's multi-image example puts its settings between blank lines under the
    licence comments: leaving them out left runs of blank lines in the step's code."""
    from coursesite.importers.galleryscripts import gallery_notebook

    script = (
        '"""\nTwo images\n==========\n\nShown apart.\n"""\n\n# License: BSD\n'
        '# sphinx_gallery_tags = ["image"]\n\n# sphinx_gallery_multi_image = "single"\n\n'
        "import math\n\n\ndef twice(x):\n    return 2 * x\n"
    )
    notebook, _, notes = gallery_notebook(script)
    [code] = [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code == "# License: BSD\n\nimport math\n\n\ndef twice(x):\n    return 2 * x"
    assert len(notes) == 2


def test_lines_sphinx_gallery_runs_unseen_are_a_folded_step_or_stay_in_their_function():
    """`# sphinx_gallery_start_ignore` ... `_end_ignore` hides lines sphinx-gallery runs (a
    setup, a check): at the top level they become a step of their own whose code the page
    folds (a page never drops a line main.py runs); inside a function they cannot be a
    cell, so they stay, and the report says so for each marker."""
    from coursesite.importers.galleryscripts import gallery_notebook

    script = (
        '"""\nHidden setup\n============\n\nSome lines run unseen.\n"""\nimport math\n\n'
        "# sphinx_gallery_start_ignore\nSCALE = 3\n# sphinx_gallery_end_ignore\n\n\n"
        "def scaled(x):\n    # sphinx_gallery_start_ignore\n    assert x >= 0\n"
        "    # sphinx_gallery_end_ignore\n    return SCALE * math.sqrt(x)\n"
    )
    notebook, places, notes = gallery_notebook(script)
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert [cell["source"] for cell in code] == [
        "import math",
        "SCALE = 3",
        "def scaled(x):\n    assert x >= 0\n    return SCALE * math.sqrt(x)",
    ]
    assert [cell["metadata"].get("tags") for cell in code] == [None, ["hide-input"], None]
    assert places[1:] == ["line 7", "line 10", "line 14"]
    assert notes[0].startswith("line 9: the lines sphinx-gallery runs without showing them")
    assert [note.split(":")[0] for note in notes[1:]] == ["line 15", "line 17"]
    assert all("inside a block of code they stay shown" in note for note in notes[1:])
