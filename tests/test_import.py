"""`build.py import`: notebooks become lessons that build with no edits, and their stored
outputs are checked against fresh runs."""

import functools
import json
import re

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import authoring_example, line_of, no_traceback
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.inlinehtml import inline_html_as_markdown
from coursesite.importers.notebookcells import Cell
from coursesite.importers.portableprose import portable_prose

MYST_NOTEBOOK = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Pure functions and counters

```{code-cell} ipython3
:tags: [remove-cell]
%xmode minimal
```

JAX traces functions once, so a side effect runs once. A counter shows it.

```{code-cell} ipython3
counter = 0

def bump():
    global counter
    counter += 1
    return counter
```

+++

## Calling it three times

```{code-cell} ipython3
---
tags: [hide-output]
---
print(bump(), bump(), bump())
```

```{code-cell} ipython3
:tags: [skip-execution]
jax.debug.breakpoint()
```

```{code-cell} ipython3
:tags: [hide-cell]
print("folded whole")
```

+++ {"tags": ["remove-cell"]}

This paragraph is for the documentation build only.

+++

(calls)=
## Counting past the end

:::{note}
A MyST note comes over as a note; {ref}`calls` links back.
:::

```{code-cell} ipython3
:tags: [raises-exception]
[1, 2, 3][bump()]
```
"""


PIXEL = (  # a 1x1 PNG, as a notebook stores a pasted image
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def counting_notebook(path, stored_sizes="[4, 4, 3]", stored_head="array([0, 1, 2])"):
    """An .ipynb with stored outputs, magics, a failing cell and a title heading."""
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        new_markdown_cell(
            "# Counting batches\n\nEleven records do not divide by four. We check it.\n\n## Setup"
        ),
        new_code_cell(
            "!pip install numpy\n%matplotlib inline\nimport numpy as np",
            outputs=[new_output("stream", name="stdout", text="pip: command not found\n")],
        ),
        new_markdown_cell(
            "## Make the records\n\nEleven IDs, `0` to `10`.<br><br>"
            "One per <font color='red'>record</font>. A code span shows `<br>`, <q>as is</q>. "
            "Read <a href='https://example.org/lstm'>on LSTMs</a> and <a href=\"#\"><b>x</b></a>."
            "<br>\n\n"
            '<div align="center">centred</div>\n\n'
            '<div style="clear: both"></div>\n\n'
            "![the eleven records](attachment:image.png)\n\n"
            "![badge](https://example.com/badge.svg)\n\n"
            "[![Open in Colab](https://colab.example/badge.svg)](https://colab.example/nb)\n\n"
            "```python\nprint('shown, never run')\n```",
            attachments={"image.png": {"image/png": PIXEL}},
        ),
        new_code_cell(
            "ids = np.arange(11)\nprint(len(ids))\nids[:3]",
            outputs=[
                new_output("stream", name="stdout", text="11\n"),
                new_output("execute_result", data={"text/plain": stored_head}),
            ],
        ),
        new_markdown_cell("## Batch them"),
        new_code_cell(
            "%time sizes = [len(ids[i:i + 4]) for i in range(0, 11, 4)]\nprint(sizes)",
            outputs=[
                new_output(
                    "stream",
                    name="stdout",
                    text="CPU times: user 5 µs, sys: 1 µs, total: 6 µs\nWall time: 7.15 µs\n"
                    + stored_sizes
                    + "\n",
                )
            ],
        ),
        new_code_cell(
            "from IPython.display import display\ndisplay(sizes)",
            outputs=[new_output("display_data", data={"text/plain": "[4, 4, 3]"})],
        ),
        new_markdown_cell("## Plot the sizes"),
        new_code_cell(
            "import matplotlib.pyplot as plt\nplt.bar(range(3), sizes)",
            outputs=[  # the value of the last line, then the figure, as Jupyter stores them
                new_output(
                    "execute_result", data={"text/plain": "<BarContainer object of 3 artists>"}
                ),
                new_output("display_data", data={"image/png": PIXEL, "text/plain": "<Figure>"}),
            ],
        ),
        new_markdown_cell("## A wrong conversion"),
        new_code_cell(
            "words = ['eleven']\nint(words[0])",
            outputs=[new_output("error", ename="ValueError", evalue="bad", traceback=[])],
        ),
        new_code_cell(  # uses what the failing cell defined before it failed
            "print(len(words))",
            outputs=[new_output("stream", name="stdout", text="1\n")],
        ),
    ]
    nbformat.write(notebook, path)


def test_an_ipynb_builds_without_edits_and_reports_the_output_that_drifted(course_folder):
    course_folder.write(authoring_example())
    commented = "# The first phase.\n" + course_folder.manifest.read_text()
    course_folder.manifest.write_text(commented)
    counting_notebook(course_folder.root / "counting.ipynb", stored_sizes="[4, 4, 2]")
    imported = course_folder.cli("import", "counting.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert "the notebook installs: numpy\n    (installed where you build already)" in (
        imported.stdout
    )
    assert "cell 2: its stored output is partly a shell command's" in imported.stdout
    assert "raises ValueError; step 6 declares it (:raises:)" in imported.stdout
    lesson = course_folder.root / "content" / "02-counting-batches" / "01-counting-batches.md"
    text = lesson.read_text()
    # Listed in a new phase titled from the notebook, after the existing one.
    assert course_folder.manifest.read_text().startswith(commented)  # only lines added
    manifest = yaml.safe_load(course_folder.manifest.read_text())
    assert manifest["phases"][0]["lessons"][0]["slug"] == "count-batches"
    assert manifest["phases"][1] == {
        "id": "02",
        "slug": "counting-batches",
        "title": "Counting batches",
        "lessons": [
            {
                "slug": "counting-batches",
                "source": "content/02-counting-batches/01-counting-batches.md",
            }
        ],
    }
    # Steps titled from the heading above each code cell; magics handled as documented.
    assert ":::{step} 1. Setup\n```python\nimport numpy as np\n```" in text
    assert ":::{step} 2. Make the records" in text and ":::{step} 3. Batch them" in text
    assert "sizes = [len(ids[i:i + 4])" in text and "%" not in text and "!pip" not in text
    # %time keeps its meaning: the cell prints its timings, which the lesson marks volatile.
    assert "import time\nipython_wall, ipython_cpu = time.perf_counter()" in text
    assert "volatile:" in text and "%time became a timing" in imported.stdout
    # A last display(), a notebook builtin, ends the step with the value it shows.
    assert ":::{step} 4. Show sizes\n```python\nsizes\n```" in text
    assert "IPython" not in text
    # A failing cell keeps its place in the program, declaring what it raises.
    assert ":::{step} 6. A wrong conversion\n:raises: ValueError\n" in text
    assert ":::{step} 7. Show len(words)\n```python\nprint(len(words))" in text
    # A cell that drew a figure: the page captures it, and it needs its alt text.
    assert ":::{step} 5. Plot the sizes\n:alt: TODO: what the figure shows\n" in text
    assert text.count("## Make the records") == 1 and "## Batch them" not in text

    # What lessons refuse is made portable, and said: HTML as code, remote image as a link,
    # the pasted image saved beside the lesson under a name its content decides.
    assert "\ncentred\n" in text and "align" not in text
    assert "`<q>`as is`</q>`" in text and "inline HTML <q> is shown as code" in imported.stdout
    # A line break is Markdown's (a code span's tag stays code; one ending a paragraph goes).
    assert "`10`.\\\n\\\nOne per record. A code span shows `<br>`, `<q>`" in text
    assert text.count("<br>") == 1 and "inline HTML <br> became a line break" in imported.stdout
    # A link's tag and text become a Markdown link; one around other tags stays code, each
    # tag in its own span (a second `</a>` never lands inside the first one's backticks);
    # bold around plain text is Markdown's.
    assert 'Read [on LSTMs](https://example.org/lstm) and `<a href="#">`**x**`</a>`.' in text
    assert (
        "inline HTML <a href='https://example.org/lstm'> and its text became a Markdown link"
        in (imported.stdout)
    )
    # HTML that only dresses its text is left out, the text kept.
    assert "One per record." in text and "font" not in text
    assert "clear: both" not in text  # HTML a reader sees nothing of: left out, and said
    assert 'HTML with no text (<div style="clear: both">) was left out' in imported.stdout
    assert "inline HTML <font color='red'> was left out, its text kept" in imported.stdout
    assert "[badge](https://example.com/badge.svg)" in text and "![badge]" not in text
    (pasted,) = (lesson.parent / "images").iterdir()
    assert pasted.name.startswith("image-") and pasted.read_bytes()[:4] == b"\x89PNG"
    assert f"![the eleven records](images/{pasted.name})" in text
    assert 'HTML that only dresses its text (<div align="center">)' in imported.stdout
    assert "```python norun\nprint('shown, never run')\n```" in text
    assert "became a link to it" in imported.stdout
    assert "[Open in Colab](https://colab.example/nb)" in text and "badge(s)" in imported.stdout

    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = course_folder.root / "site" / "counting-batches" / "counting-batches" / "index.html"
    assert 'alt="the eleven records"' in page.read_text()
    assert re.search(r"<code>10</code>\.<br ?/?>\s*<br ?/?>\s*One per record", page.read_text())
    assert "<svg" in page.read_text()  # the figure the plotting cell drew, captured
    # Only the step whose stored output differs is reported, at its code, with the diff.
    assert built.stderr.count("differs from the output stored in counting.ipynb") == 1
    where = line_of(text, "import time")
    assert f"01-counting-batches.md:{where}: output of step-3 differs" in built.stderr
    assert "stored in counting.ipynb (cell 6)" in built.stderr  # where the author looks
    assert "-[4, 4, 2]" in built.stderr and "+[4, 4, 3]" in built.stderr
    # check fails until the author fills in what a notebook cannot say.
    checked = course_folder.cli("check")
    assert checked.returncode == 1
    for missing in ("stage 'Exercise & Check' is empty", "stage 'Evidence' is empty"):
        assert missing in checked.stderr
    assert "placeholder left to fill in: expected_result: 'TODO:" in checked.stderr
    assert "placeholder left to fill in: :alt: TODO: what the figure shows" in checked.stderr
    assert "count-batches" not in checked.stderr.replace("counting-batches", "")


def test_matching_stored_outputs_give_no_warning(course_folder):
    course_folder.write(authoring_example())
    counting_notebook(course_folder.root / "counting.ipynb")
    absolute = str(course_folder.root / "counting.ipynb")
    assert course_folder.cli("import", absolute, "--phase", "01").returncode == 0
    # An existing phase: the lesson goes beside its lessons, numbered after them.
    assert (course_folder.root / "content" / "02-counting-batches.md").is_file()
    # The notebook is named relative to the course, never by this machine's path.
    expected = (course_folder.root / "content" / "counting-batches.expected.yaml").read_text()
    assert "source: counting.ipynb\n" in expected and str(course_folder.root) not in expected
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert "differs from the output stored" not in built.stderr


def test_a_stored_value_that_differs_is_reported_though_the_printed_output_agrees(
    course_folder,
):
    """A cell's Out: (its last expression's value) is stored output too, as its prints are."""
    course_folder.write(authoring_example())
    counting_notebook(course_folder.root / "counting.ipynb", stored_head="array([0, 1, 9])")
    assert course_folder.cli("import", "counting.ipynb", "--phase", "01").returncode == 0
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert built.stderr.count("differs from the output stored in counting.ipynb") == 1
    assert "02-counting-batches.md:" in built.stderr and "output of step-2 differs" in built.stderr
    assert "-Out: array([0, 1, 9])" in built.stderr and "+Out: array([0, 1, 2])" in built.stderr


def test_a_myst_notebook_builds_without_edits(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "pure.md").write_text(MYST_NOTEBOOK)
    imported = course_folder.cli("import", "pure.md", "--phase", "01", "--slug", "pure")
    assert imported.returncode == 0, imported.stderr
    text = (course_folder.root / "content" / "02-pure.md").read_text()
    assert text.startswith("---\ntitle: Pure functions and counters\n")
    assert "summary: JAX traces functions once, so a side effect runs once.\n" in text
    # A step with no heading is titled from the sentence that leads into it.
    assert (
        ":::{step} 1. JAX traces functions once, so a side effect…\n```python\ncounter = 0" in text
    )
    assert ":::{step} 3." in text and "Step 3" not in text  # the folded cell
    # Tags keep their meaning: hide-output folds the output, remove-cell leaves the cell
    # out (so the introduction stays in Understand), skip-execution shows code never run.
    assert (
        ":::{step} 2. Calling it three times\n:tags: [hide-output]\n```python\nprint(bump()" in text
    )
    assert "xmode" not in text and "documentation build only" not in text
    assert "```python norun\njax.debug.breakpoint()\n```" in text
    assert "tagged remove-cell" in imported.stdout and "tagged skip-execution" in imported.stdout
    assert ':tags: [hide-input, hide-output]\n```python\nprint("folded whole")' in text
    assert "expected_outputs" not in text  # a MyST notebook stores no outputs
    # A cell tagged as failing stays a step, declared to raise an exception.
    assert ":::{step} 4. Counting past the end\n:raises: Exception\n" in text
    assert "name the exception it raises" in imported.stdout
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = (course_folder.root / "site" / "basics" / "pure" / "index.html").read_text()
    assert "1 2 3" in page
    soup = BeautifulSoup(page, "html.parser")
    folded = soup.select_one("#step-2 details.output-folded")
    assert folded is not None and "1 2 3" in folded.get_text()
    assert folded.find_previous("details", class_="code-folded") is None
    assert "IndexError" in page  # the step's exception, shown
    assert 'class="admonition admonition-note"' in page and 'href="index.html#calls"' in page


def imported_and_built(course_folder, slug: str, cells: list) -> tuple[str, str]:
    """Import a notebook of `cells` as the lesson `slug` of phase 01 beside the example
    lesson, and build the course: the import's report and the lesson's page."""
    course_folder.write(authoring_example())
    nbformat.write(new_notebook(cells=cells), course_folder.root / f"{slug}.ipynb")
    imported = course_folder.cli("import", f"{slug}.ipynb", "--phase", "01", "--slug", slug)
    assert imported.returncode == 0, imported.stderr
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = course_folder.root / "site" / "basics" / slug / "index.html"
    return imported.stdout, page.read_text()


def test_a_notebook_none_of_whose_cells_runs_becomes_a_page_that_shows_its_code(
    course_folder,
):
    """A guide whose every cell downloads, so is tagged skip-execution: its page shows the
    code and says that nothing ran, with no program to run or set up."""
    cells = [
        new_markdown_cell("# Loading data\n\nEach loader returns arrays of one shape."),
        new_code_cell("import torchvision\nds = torchvision.datasets.MNIST('.', download=True)"),
        new_markdown_cell("Then make them JAX arrays."),
        new_code_cell("images = jnp.asarray(ds.data)"),
    ]
    for cell in cells[1::2]:
        cell.metadata["tags"] = ["skip-execution"]
    cells[1].outputs = [new_output("stream", name="stdout", text="60000 training images\n")]
    report, page = imported_and_built(course_folder, "loading", cells)
    assert "no cell of the notebook runs: the page shows its code, runs none" in report
    soup = BeautifulSoup(page, "html.parser")
    assert "download=True" in soup.get_text() and "jnp.asarray" in soup.get_text()
    # What the notebook's own run printed stays under the cell, labelled as the notebook's.
    assert "cell 2: its stored output is shown under it as the notebook's" in report
    stored = soup.find(string=re.compile("The notebook's stored output of this cell"))
    assert stored is not None
    assert stored.find_next("pre").get_text().strip() == "60000 training images"
    assert "its code is shown, not run" in soup.select_one("#run-the-program").get_text()
    assert soup.select_one(".setup-help") is None and soup.select_one("#recorded-execution")
    # The page of a lesson that runs keeps its program and setup help.
    other = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert 'class="setup-help"' in other and "no build steps" not in other


def test_a_module_the_notebook_writes_with_writefile_is_its_own_and_the_lesson_builds(
    course_folder,
):
    cells = [
        new_markdown_cell("# Helpers\n\nA notebook writes its helper module, then uses it."),
        new_code_cell("%%writefile notebook_written.py\ndef double(x):\n    return 2 * x"),
        new_code_cell("import notebook_written\nprint('doubled:', notebook_written.double(21))"),
        new_code_cell("%%capture\nprint('noise from a setup cell')"),
    ]
    report, page = imported_and_built(course_folder, "helpers", cells)
    assert "notebook_written" not in report.replace("became code that writes", "")
    assert "doubled: 42" in page and "noise from a setup cell</" not in page


def test_a_title_another_lesson_has_gives_the_next_free_slug(course_folder):
    """Two tutorials of one title ("Jupyter Notebooks"): without --slug, the second is
    imported under the next free slug, and the pasted image they share is written once."""
    course_folder.write(authoring_example())
    before = course_folder.manifest.read_text()
    counting_notebook(course_folder.root / "counting.ipynb")
    twice = [course_folder.cli("import", "counting.ipynb", "--phase", "01") for _ in range(2)]
    assert all(done.returncode == 0 for done in twice), twice[-1].stderr
    slugs = re.findall(r"slug: (\S+)\n", course_folder.manifest.read_text()[len(before) :])
    assert slugs == [slugs[0], f"{slugs[0]}-2"]
    assert (
        f"a lesson with the slug '{slugs[0]}' is already listed: this one is '{slugs[0]}-2'"
    ) in twice[1].stdout
    assert course_folder.cli("-q").returncode == 0


def test_an_import_that_cannot_be_done_writes_nothing(course_folder):
    course_folder.write(authoring_example())
    before = course_folder.manifest.read_text()
    counting_notebook(course_folder.root / "counting.ipynb")
    taken = course_folder.cli(
        "import", "counting.ipynb", "--phase", "01", "--slug", "count-batches"
    )
    assert taken.returncode == 1
    assert "lessons.yaml: a lesson with the slug 'count-batches' is already listed" in taken.stderr
    (course_folder.root / "broken.ipynb").write_text('{"cells": 3}')
    broken = course_folder.cli("import", "broken.ipynb", "--phase", "01")
    assert (
        broken.returncode == 1 and "broken.ipynb: not a readable Jupyter notebook" in broken.stderr
    )
    assert no_traceback(taken.stderr + broken.stderr)
    assert course_folder.manifest.read_text() == before
    assert sorted(p.name for p in (course_folder.root / "content").iterdir()) == ["lesson.md"]


@pytest.mark.parametrize(
    ("broken", "line", "message"),
    [
        ("  language: python\n", "  language: [python\n", "pure.md:7: invalid YAML"),
        ("tags: [hide-output]", "tags: [hide-output", "pure.md:35: invalid YAML"),
        ("tags: [hide-output]", "- hide-output", "pure.md:35: the code cell options must be"),
    ],
)
def test_broken_yaml_in_a_myst_notebook_is_named_at_its_line(course_folder, broken, line, message):
    course_folder.write(authoring_example())
    before = course_folder.manifest.read_text()
    assert broken in MYST_NOTEBOOK
    (course_folder.root / "pure.md").write_text(MYST_NOTEBOOK.replace(broken, line, 1))
    imported = course_folder.cli("import", "pure.md", "--phase", "01", "--slug", "pure")
    assert imported.returncode == 1 and no_traceback(imported.stderr)
    assert message in imported.stderr, imported.stderr
    assert course_folder.manifest.read_text() == before


def test_a_notebook_that_is_not_utf8_is_named_at_its_line(course_folder):
    course_folder.write(authoring_example())
    text = MYST_NOTEBOOK.replace("A counter shows it.", "A counter shows it: café.")
    (course_folder.root / "pure.md").write_bytes(text.encode("latin-1"))
    imported = course_folder.cli("import", "pure.md", "--phase", "01", "--slug", "pure")
    assert imported.returncode == 1 and no_traceback(imported.stderr)
    assert imported.stderr.startswith("import failed; nothing written\n")
    assert f"pure.md:{line_of(text, 'café')}: not UTF-8 text" in imported.stderr


def test_a_notebook_git_left_a_merge_conflict_in_is_named_at_the_conflict(course_folder):
    """nx-guides' traversal page holds `<<<<<<< HEAD` in its front matter: the import said
    "invalid YAML", far from the cause. In an .ipynb git writes the markers between the
    JSON's lines; a line of ===== in prose is no conflict."""
    course_folder.write(authoring_example())
    kept = MYST_NOTEBOOK.replace("A counter shows it.", "A counter shows it.\n\n=======\n")
    text = kept.replace("---\n", "---\n<<<<<<< HEAD\nx: 1\n=======\nx: 2\n>>>>>>> a54d6e0\n", 1)
    (course_folder.root / "merged.md").write_text(text)
    imported = course_folder.cli("import", "merged.md", "--phase", "01", "--slug", "merged")
    assert imported.returncode == 1 and no_traceback(imported.stderr)
    line = line_of(text, "<<<<<<< HEAD")
    assert f"merged.md:{line}: the file holds an unresolved git merge conflict" in imported.stderr
    notebook = new_notebook(cells=[new_markdown_cell("# Merged"), new_code_cell("print(1)")])
    lines = nbformat.writes(notebook).splitlines()
    at = next(i for i, text in enumerate(lines) if "print(1)" in text)
    lines[at : at + 1] = ["<<<<<<< HEAD", lines[at], "=======", lines[at], ">>>>>>> a54d6e0"]
    (course_folder.root / "merged.ipynb").write_text("\n".join(lines))
    imported = course_folder.cli("import", "merged.ipynb", "--phase", "01", "--slug", "m2")
    assert f"merged.ipynb:{at + 1}: the file holds an unresolved git merge conflict" in (
        imported.stderr
    )
    # Without the markers, both import (a Setext underline of ===== is prose).
    (course_folder.root / "merged.md").write_text(kept)
    assert course_folder.cli("import", "merged.md", "--phase", "01").returncode == 0


def notebook_with_image(path, markdown: str, attachments: dict | None = None) -> None:
    notebook = new_notebook()
    notebook.cells = [
        new_markdown_cell(
            "# Layout\n\nThe data layout.\n\n" + markdown,
            **({"attachments": attachments} if attachments else {}),
        ),
        new_code_cell("print(11)"),
    ]
    nbformat.write(notebook, path)


def everything_under(root):
    return sorted(p.relative_to(root) for p in root.rglob("*") if ".cache" not in p.parts)


@pytest.mark.parametrize(
    ("markdown", "attachments", "message"),
    [
        ("![the data layout](../../.env)", None, "image '../../.env' is a hidden or private"),
        ("![the pipeline](../../.git/config)", None, "is a hidden or private file"),
        ("![the manifest](../../lessons.yaml)", None, "'../../lessons.yaml' is not an image"),
        (
            "![chart](attachment:chart.html)",
            {"chart.html": {"image/png": PIXEL}},
            "cell 1: attachment 'chart.html' is not an image file",
        ),
        (
            "![chart](attachment:chart.svg)",
            {
                "chart.svg": {
                    "image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'
                }
            },
            "cell 1: attachment SVG image 'chart.svg' cannot be published",
        ),
    ],
)
def test_an_import_refuses_a_secret_or_active_image_at_its_cell(
    course_folder, markdown, attachments, message
):
    course_folder.write(authoring_example())
    (course_folder.root / ".env").write_text("DEPLOY_TOKEN=s3cr3t\n")
    (course_folder.root / ".git").mkdir()
    (course_folder.root / ".git" / "config").write_text("[remote] url=https://u:p@host\n")
    notebook_with_image(course_folder.root / "layout.ipynb", markdown, attachments)
    before = everything_under(course_folder.root)
    imported = course_folder.cli("import", "layout.ipynb", "--phase", "02")
    assert imported.returncode == 1, imported.stdout
    assert message in imported.stderr and "layout.ipynb: " in imported.stderr, imported.stderr
    assert no_traceback(imported.stderr)
    assert everything_under(course_folder.root) == before


@pytest.mark.parametrize("phase", ["../../../x", "", "06/../../y"])
def test_an_import_with_a_bad_phase_makes_nothing_anywhere(course_folder, phase):
    course = course_folder.root / "course"
    course.mkdir()
    folder = type(course_folder)(course)
    folder.write(authoring_example())
    counting_notebook(course / "counting.ipynb")
    outside = everything_under(course_folder.root.parent)
    imported = folder.cli("import", "counting.ipynb", "--phase", phase)
    assert imported.returncode == 2, imported.stderr
    assert "--phase takes the id of a phase in lessons.yaml" in imported.stderr
    assert everything_under(course_folder.root.parent) == outside


def test_an_import_that_fails_while_writing_leaves_no_folder(course_folder, monkeypatch):
    """Nothing of an import that cannot finish stays (here the disk fills as the lesson
    file is written, after its pasted image), not even its staging folder."""
    from coursesite.importers import importcommand, staging

    course_folder.write(authoring_example())
    counting_notebook(course_folder.root / "counting.ipynb")
    before = everything_under(course_folder.root)
    real_store = staging._store

    def disk_full_at_the_lesson(path, content):
        if path.suffix == ".md":
            raise OSError(28, "No space left on device")
        real_store(path, content)

    monkeypatch.setattr(staging, "_store", disk_full_at_the_lesson)
    request = importcommand.ImportRequest(
        course_folder.root / "counting.ipynb", course_folder.manifest, "02"
    )
    with pytest.raises(OSError):
        importcommand.import_notebook(request)
    assert everything_under(course_folder.root) == before
    assert not (course_folder.root / ".cache" / "import").exists()


def test_an_import_that_fails_as_it_moves_into_place_takes_back_what_it_moved(
    course_folder, monkeypatch
):
    """The lesson's folder is in place when lessons.yaml cannot be replaced: it goes, and
    lessons.yaml is the author's, byte for byte."""
    import os

    from coursesite.importers import importcommand

    course_folder.write(authoring_example())
    course_folder.manifest.write_text("# mine\n" + course_folder.manifest.read_text())
    manifest = course_folder.manifest.read_bytes()
    counting_notebook(course_folder.root / "counting.ipynb")
    before = everything_under(course_folder.root)
    real_replace = os.replace
    moved = []

    def manifest_refused(source, target):
        if str(target).endswith("lessons.yaml") and "import" in str(source):
            raise PermissionError(13, "Permission denied", str(target))
        moved.append(target)
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", manifest_refused)
    request = importcommand.ImportRequest(
        course_folder.root / "counting.ipynb", course_folder.manifest, "02"
    )
    with pytest.raises(PermissionError):
        importcommand.import_notebook(request)
    assert any(path.name == "02-counting-batches" for path in moved)  # it got that far
    assert everything_under(course_folder.root) == before
    assert course_folder.manifest.read_bytes() == manifest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda nb: nb["metadata"].update(kernelspec="python3"), "metadata.kernelspec is str"),
        (lambda nb: nb["cells"][1].update(source=42), "cell 2's source is int, not text"),
        (lambda nb: nb["cells"][1].update(outputs="none"), "The notebook is invalid"),  # nbformat's
        (lambda nb: nb["cells"][0]["metadata"].update(tags="hide"), "cell 1's tags are not"),
    ],
)
def test_a_malformed_notebook_gets_one_clear_error(course_folder, change, message):
    course_folder.write(authoring_example())
    path = course_folder.root / "counting.ipynb"
    counting_notebook(path)
    notebook = json.loads(path.read_text())
    change(notebook)
    path.write_text(json.dumps(notebook))
    before = everything_under(course_folder.root)
    imported = course_folder.cli("import", "counting.ipynb", "--phase", "02")
    assert imported.returncode == 1, imported.stdout
    assert f"counting.ipynb: not a readable Jupyter notebook: {message}" in imported.stderr
    assert no_traceback(imported.stderr) and imported.stderr.count("\n") < 10
    assert everything_under(course_folder.root) == before


def test_a_hostile_exception_name_cannot_break_the_lessons_structure(course_folder):
    course_folder.write(authoring_example())
    path = course_folder.root / "counting.ipynb"
    counting_notebook(path)
    notebook = json.loads(path.read_text())
    notebook["cells"][-2]["outputs"][0]["ename"] = "ValueError\n:::\n# Evidence\n"
    path.write_text(json.dumps(notebook))
    imported = course_folder.cli("import", "counting.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    lesson = course_folder.root / "content" / "02-counting-batches" / "01-counting-batches.md"
    text = lesson.read_text()
    assert ":raises: Exception\n" in text and text.count("\n# Evidence\n") == 1


def test_an_attachment_that_is_not_base64_is_named_at_its_cell(course_folder):
    course_folder.write(authoring_example())
    notebook_with_image(
        course_folder.root / "layout.ipynb",
        "![the layout](attachment:layout.png)",
        {"layout.png": {"image/png": "not base64 at all!"}},
    )
    imported = course_folder.cli("import", "layout.ipynb", "--phase", "02")
    assert imported.returncode == 1
    assert "cell 1: attachment layout.png holds no readable image data" in imported.stderr


PLOTTING_NOTEBOOK = """\
---
kernelspec:
  name: python3
  language: python
---

# Plotting without stored outputs

A MyST notebook stores no outputs, so the import cannot see which cells draw.

```{code-cell} ipython3
import matplotlib.pyplot as plt
```

```{code-cell} ipython3
fig, axes = plt.subplots()
axes.plot([1, 2, 3])
```
"""


def test_cells_that_may_draw_get_a_placeholder_the_build_accepts_and_check_lists(
    course_folder,
):
    course_folder.write(authoring_example())
    (course_folder.root / "plots.md").write_text(PLOTTING_NOTEBOOK)
    imported = course_folder.cli("import", "plots.md", "--phase", "01", "--slug", "plots")
    assert imported.returncode == 0, imported.stderr
    text = (course_folder.root / "content" / "02-plots.md").read_text()
    # Step 1 only imports pyplot, which draws nothing: step 2 alone may draw.
    assert text.count(":alt: TODO: what the figure shows") == 1
    assert ":::{step} 2. " in text.split(":alt: TODO")[0]
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    checked = course_folder.cli("check")
    assert checked.returncode == 1
    assert checked.stderr.count("placeholder left to fill in: :alt: TODO") == 1


def test_the_import_reports_modules_the_build_would_lack(course_folder):
    course_folder.write(authoring_example())
    notebook = PLOTTING_NOTEBOOK.replace(
        "import matplotlib.pyplot as plt\n",
        "import matplotlib.pyplot as plt\n"
        "import tabulated_frames\n"
        "from notebook_helpers import f\n",
    )
    (course_folder.root / "plots.md").write_text(notebook)
    (course_folder.root / "notebook_helpers.py").write_text("def f():\n    return 1\n")
    imported = course_folder.cli("import", "plots.md", "--phase", "01", "--slug", "plots")
    assert imported.returncode == 0, imported.stderr
    assert "imports tabulated_frames, which is not installed where you build" in imported.stdout
    assert "notebook_helpers.py, the notebook's own module, copied beside the lesson" in (
        imported.stdout
    )
    copied = course_folder.root / "content" / "notebook_helpers.py"
    assert copied.read_text() == "def f():\n    return 1\n"
    assert "imports matplotlib" not in imported.stdout  # installed: nothing to say


def test_a_figures_caption_from_the_cells_metadata_is_its_alt_text(course_folder):
    course_folder.write(authoring_example())
    notebook = PLOTTING_NOTEBOOK.replace(
        "```{code-cell} ipython3\nfig, axes",
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: |\n"
        "      A line rising from 1 to 3.\n    name: rising-line\n---\nfig, axes",
    )
    (course_folder.root / "plots.md").write_text(notebook)
    imported = course_folder.cli("import", "plots.md", "--phase", "01", "--slug", "plots")
    assert imported.returncode == 0, imported.stderr
    text = (course_folder.root / "content" / "02-plots.md").read_text()
    assert ":alt: A line rising from 1 to 3.\n```python\nfig, axes" in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


REFERENCES = """
references:
  jax:
    url: https://docs.jax.dev/en/latest/
    labels:
      key-concepts-tracing: key-concepts.html#tracing
    pages: .html
"""
LINKING_NOTEBOOK = MYST_NOTEBOOK.replace(
    "JAX traces functions once, so a side effect runs once. A counter shows it.",
    "JAX traces functions once, so a side effect runs once. A counter shows it.\n\n"
    "See {ref}`key-concepts-tracing` and {doc}`jit-compilation`.",
)


def test_references_to_a_mapped_site_become_links_and_the_lesson_builds(course_folder):
    course_folder.write(authoring_example())
    course_folder.manifest.write_text(course_folder.manifest.read_text() + REFERENCES)
    (course_folder.root / "pure.md").write_text(LINKING_NOTEBOOK)
    imported = course_folder.cli(
        "import", "pure.md", "--phase", "01", "--slug", "pure", "--from", "jax"
    )
    assert imported.returncode == 0, imported.stderr
    text = (course_folder.root / "content" / "02-pure.md").read_text()
    jax = "https://docs.jax.dev/en/latest/"
    assert (
        f"See [key concepts tracing]({jax}key-concepts.html#tracing) and "
        f"[jit-compilation]({jax}jit-compilation.html)." in text
    )
    assert f"became a link to {jax}key-concepts.html#tracing" in imported.stdout
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = (course_folder.root / "site" / "basics" / "pure" / "index.html").read_text()
    assert f'href="{jax}jit-compilation.html"' in page


def test_an_import_from_a_site_the_manifest_does_not_name_is_refused(course_folder):
    course_folder.write(authoring_example())
    course_folder.manifest.write_text(course_folder.manifest.read_text() + REFERENCES)
    (course_folder.root / "pure.md").write_text(LINKING_NOTEBOOK)
    imported = course_folder.cli("import", "pure.md", "--phase", "01", "--from", "flax")
    assert imported.returncode == 1
    assert "--from names 'flax', which is not a site in references:" in imported.stderr
    assert "sites in lessons.yaml's references: jax" in imported.stderr
    assert not (course_folder.root / "content" / "02-pure.md").exists()


def notebook_with_many_images(path, count: int, size: int) -> None:
    """A notebook with `count` distinct pasted PNG images of `size` bytes each: an import
    that takes long enough to be killed halfway through."""
    import base64
    import os

    notebook = new_notebook()
    notebook.cells = [new_markdown_cell("# Pictures\n\nMany pictures.")]
    for start in range(0, count, 10):
        names = [f"picture{number}.png" for number in range(start, min(start + 10, count))]
        notebook.cells.append(
            new_markdown_cell(
                "\n\n".join(f"![picture](attachment:{name})" for name in names),
                attachments={
                    name: {
                        "image/png": base64.b64encode(
                            b"\x89PNG\r\n\x1a\n" + os.urandom(size)
                        ).decode()
                    }
                    for name in names
                },
            )
        )
    notebook.cells.append(new_code_cell("print(11)"))
    nbformat.write(notebook, path)


def files_and_bytes(root):
    return {
        path.relative_to(root): path.read_bytes() if path.is_file() else None
        for path in root.rglob("*")
        if ".cache" not in path.parts
    }


# The import signals itself as it stages its tenth image: midway, whatever the disk's speed
# (waiting from outside for the first staged file raced a fast import).
SIGNALLED_WHILE_STAGING = """\
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from coursesite.importers import staging
real_store = staging._store
stored = []
def store(path, content):
    stored.append(path)
    if len(stored) == 10:
        os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    real_store(path, content)
staging._store = store
from coursesite.cli import main
raise SystemExit(main(["import", "pictures.ipynb", "--phase", "02"]))
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_import_killed_midway_leaves_nothing_and_the_next_import_works(
    course_folder, signal_name
):
    import signal
    import subprocess
    import sys

    from conftest import ROOT

    course_folder.write(authoring_example())
    notebook_with_many_images(course_folder.root / "pictures.ipynb", count=150, size=150_000)
    before = files_and_bytes(course_folder.root)
    images = course_folder.root / ".cache" / "import" / "tree" / "content" / "02-pictures"
    importing = subprocess.run(
        [sys.executable, "-c", SIGNALLED_WHILE_STAGING, str(ROOT), signal_name],
        cwd=course_folder.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    if signal_name == "SIGKILL":
        assert importing.returncode == -signal.SIGKILL
        assert len(list((images / "images").iterdir())) < 150  # killed midway
    else:  # stopped midway, and cleared up after itself
        assert importing.returncode == 130, importing.stderr
        assert importing.stderr == "import interrupted; nothing written\n"
        assert not (course_folder.root / ".cache" / "import").exists()
    assert files_and_bytes(course_folder.root) == before

    imported = course_folder.cli("import", "pictures.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    folder = course_folder.root / "content" / "02-pictures"
    assert len(list((folder / "images").iterdir())) == 150
    assert not (course_folder.root / ".cache" / "import").exists()
    assert "content/02-pictures/01-pictures.md" in course_folder.manifest.read_text()


KILLED_AT_THE_MANIFEST = """\
import os, signal, sys
real_replace = os.replace
def replace(source, target):
    if str(target).endswith("lessons.yaml") and "import" in str(source):
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, target)
os.replace = replace
sys.path.insert(0, sys.argv[1])
from coursesite.cli import main
main(["import", "counting.ipynb", "--phase", "02"])
"""


def test_an_import_killed_as_it_moves_into_place_is_taken_back_by_the_next(course_folder):
    """Killed with its lesson folder in place but lessons.yaml not yet replaced: the next
    import takes that folder back (it was never listed), then imports."""
    import signal
    import subprocess
    import sys

    from conftest import ROOT

    course_folder.write(authoring_example())
    counting_notebook(course_folder.root / "counting.ipynb")
    manifest = course_folder.manifest.read_bytes()
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AT_THE_MANIFEST, str(ROOT)],
        cwd=course_folder.root,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    folder = course_folder.root / "content" / "02-counting-batches"
    assert (folder / "01-counting-batches.md").exists()  # moved, never listed
    assert course_folder.manifest.read_bytes() == manifest
    (course_folder.root / "mine.md").write_text("the author's")

    imported = course_folder.cli("import", "counting.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert len(list((folder / "images").iterdir())) == 1
    assert course_folder.manifest.read_text().count("01-counting-batches.md") == 1
    assert (course_folder.root / "mine.md").read_text() == "the author's"
    assert not (course_folder.root / ".cache" / "import").exists()


def long_output_notebook(path, lines: int) -> None:
    """Two cells that print `lines` lines each; the first stored what it prints now, the
    second stored other lines (the notebook ran an older version of it)."""
    notebook = new_notebook()
    printed = "".join(f"line {number}\n" for number in range(lines))
    notebook.cells = [
        new_markdown_cell("# Long outputs\n\nTwo cells that print a lot."),
        new_code_cell(
            f"for number in range({lines}):\n    print(f'line {{number}}')",
            outputs=[new_output("stream", name="stdout", text=printed)],
        ),
        new_code_cell(
            f"for number in range({lines}):\n    print(f'row {{number}}')",
            outputs=[new_output("stream", name="stdout", text=printed)],
        ),
    ]
    nbformat.write(notebook, path)


def test_a_huge_stored_output_is_capped_and_its_drift_is_a_bounded_diff(course_folder):
    course_folder.write(authoring_example())
    long_output_notebook(course_folder.root / "long.ipynb", lines=200_000)
    assert (course_folder.root / "long.ipynb").stat().st_size > 4_000_000
    imported = course_folder.cli("import", "long.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    # The two cells' notes are one line that names both (reportnotes.py).
    assert "cell 2, cell 3: its stored output is 2,288,890 characters;" in imported.stdout
    assert "keeps its first 20,000 and last 5,000" in imported.stdout
    # The build would refuse so long an output at the default limit: the report says so.
    assert "the build refuses a step that prints more than settings.output_limit (200,000)" in (
        imported.stdout
    )
    assert imported.stdout.count("raise output_limit in lessons.yaml") == 1
    course_folder.manifest.write_text(
        course_folder.manifest.read_text().replace(
            "  timeout_seconds:", "  output_limit: 3000000\n  timeout_seconds:"
        )
    )
    folder = course_folder.root / "content" / "02-long-outputs"
    expected_file = folder / "long-outputs.expected.yaml"
    expected = yaml.safe_load(expected_file.read_text())["blocks"]["step-1"]["stdout"]
    assert expected_file.stat().st_size < 100_000  # two outputs of 2.3 MB
    assert expected.startswith("line 0\nline 1\n") and expected.endswith("line 199999\n")
    assert "characters left out: only the first and last lines are kept" in expected

    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    # step-1 prints what the notebook stored: its capped output is the same, no warning.
    assert "output of step-1 differs" not in built.stderr
    assert "output of step-2 differs" in built.stderr
    warning = built.stderr[built.stderr.index("output of step-2 differs") :]
    full = course_folder.root / ".cache" / "drift" / "long-outputs" / "step-2.diff"
    shown = [line for line in warning.splitlines() if line.startswith("  | ")]
    assert 40 < len(shown) < 45, warning
    assert shown[-1].endswith(f" more lines, full diff in {full}")
    assert "-line 199999" in full.read_text() and "+row 199999" in full.read_text()
    assert len(built.stderr) < 20_000

    # check's drift against records/ is cut the same way.
    lesson = folder / "01-long-outputs.md"
    lesson.write_text(lesson.read_text().replace("print(f'row", "print(f'rows"))
    checked = course_folder.cli("check")
    assert "long-outputs: output differs from its committed record" in checked.stdout
    record_diff = course_folder.root / ".cache" / "drift" / "long-outputs" / "record.diff"
    assert f"more lines, full diff in {record_diff}" in checked.stdout
    assert "+rows 199999" in record_diff.read_text()
    assert len(checked.stdout) < 20_000


def test_a_second_import_at_the_same_time_is_refused_clearly(course_folder):
    from coursesite.publish.lock import import_lock

    course_folder.write(authoring_example())
    counting_notebook(course_folder.root / "counting.ipynb")
    before = files_and_bytes(course_folder.root)
    with import_lock(course_folder.root / ".cache"):  # as an import running meanwhile does
        imported = course_folder.cli("import", "counting.ipynb", "--phase", "02")
    assert imported.returncode == 1 and no_traceback(imported.stderr)
    assert "another import into this course is running (pid " in imported.stderr
    assert files_and_bytes(course_folder.root) == before
    assert course_folder.cli("import", "counting.ipynb", "--phase", "02").returncode == 0


def test_a_myst_notebook_whose_cells_are_another_language_is_refused_at_the_cell(course_folder):
    # Its kernelspec names the kernel only (`name: coconut`): the cell says the language.
    course_folder.write(authoring_example())
    manifest = course_folder.manifest.read_text()
    (course_folder.root / "other.md").write_text(
        "---\nfile_format: mystnb\nkernelspec:\n  name: coconut\n---\n\n# Coconut\n\n"
        "Functional code.\n\n```{code-cell} coconut\nrange(5) |> map$(x -> x**2) |> list\n```\n"
    )
    imported = course_folder.cli("import", "other.md", "--phase", "02")
    assert imported.returncode == 1
    assert "other.md:11: this code cell is coconut, not Python" in imported.stderr
    assert "import failed; nothing written" in imported.stderr
    assert course_folder.manifest.read_text() == manifest


def test_a_step_that_calls_a_drawing_function_of_an_earlier_step_gets_a_placeholder(
    course_folder,
):
    course_folder.write(authoring_example())
    notebook = PLOTTING_NOTEBOOK.replace(
        "fig, axes = plt.subplots()\naxes.plot([1, 2, 3])",
        "def draw(values):\n    axes = plt.gca()\n    axes.plot(values)\n\n"
        "def draw_twice(values):\n    draw(values)\n    draw(values[::-1])",
    )
    notebook += "\n```{code-cell} ipython3\ndraw_twice([1, 2, 3]);\n```\n"
    notebook += "\n```{code-cell} ipython3\nprint(sum([1, 2, 3]))\n```\n"
    (course_folder.root / "plots.md").write_text(notebook)
    imported = course_folder.cli("import", "plots.md", "--phase", "01", "--slug", "plots")
    assert imported.returncode == 0, imported.stderr
    text = (course_folder.root / "content" / "02-plots.md").read_text()
    steps = text.split(":::{step}")[1:]
    # Step 1 only imports pyplot; step 2's functions name plt (may draw); step 3 calls
    # what draws; step 4 draws nothing.
    assert [":alt: TODO: what the figure shows" in step for step in steps] == [
        False,
        True,
        True,
        False,
    ]
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_outputs_told_apart_only_by_how_newer_numpy_prints_are_one_note(course_folder):
    """PDSH's notebooks ran on NumPy before 1.14, which kept a space for the sign in arrays
    (`[ 6.  0. -1.]`), and before 2.0, which shows a scalar's type (`np.float64(6.0)`):
    each such step was a warning with a diff. They are one note; a real difference stays
    a warning of its own."""
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    stream = functools.partial(new_output, "stream", name="stdout")
    notebook.cells = [
        new_markdown_cell("# Printing\n\nNumPy prints arrays."),
        new_code_cell(
            "import numpy as np\nx = np.array([6., 0., -1.] * 4)\nprint(x)\nx.max()",
            outputs=[
                stream(text="[ 6.  0. -1.  6.  0. -1.\n  6.  0. -1.  6.  0. -1.]\n"),
                new_output("execute_result", data={"text/plain": "6.0"}),
            ],
        ),
        new_code_cell("print(np.arange(3) * 2)", outputs=[stream(text="[0 2 5]\n")]),
        new_code_cell("print(x[:2])", outputs=[stream(text="[ 6.  0.]\n")]),
    ]
    course_folder.write(authoring_example())
    nbformat.write(notebook, course_folder.root / "printing.ipynb")
    assert course_folder.cli("import", "printing.ipynb", "--phase", "01").returncode == 0
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    lesson = next((course_folder.root / "content").rglob("*printing*.md"))
    at = f"{lesson.relative_to(course_folder.root)}:{line_of(lesson.read_text(), 'import numpy')}"
    assert (
        f"warning: {at}: the output of step 1, step 3 differs from what printing.ipynb stored "
        "only as newer NumPy prints numbers"
    ) in built.stderr, built.stderr
    assert "output of step-1 differs" not in built.stderr
    assert built.stderr.count("differs from the output stored in printing.ipynb") == 1
    assert "output of step-2 differs" in built.stderr and "-[0 2 5]" in built.stderr


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("the leverage-resid<sup>2</sup> plot", "the leverage-resid{sup}`2` plot"),
        ("H<sub>2</sub>O and <kbd>Ctrl</kbd>", "H{sub}`2`O and {kbd}`Ctrl`"),
        ("call <code>a &lt; b</code> first", "call `a < b` first"),
        ("a <strong> firm </strong> and <em>soft</em> tone", "a  **firm**  and *soft* tone"),
        ("<b>x <i>y</i></b>", "`<b>`x *y*`</b>`"),  # tags inside: the outer stays code
        # Bold and italic together, closed in either order (nx-guides' PageRank).
        ("A <b><i>random walk model</b></i> is", "A ***random walk model*** is"),
        ("<em><strong>both</strong></em>.", "***both***."),
        # Marks that would run into the last ones take underscores; where neither reads as
        # emphasis (an underscore run closes no emphasis before a letter), the tags stay code.
        ("<b>x</b><b>y</b> and <i>u</i><i>v</i>", "**x**__y__ and *u*_v_"),
        ("<b>x</b><i>y</i>", "**x***y*"),
        ("<b>x</b><b>y</b>z", "**x**`<b>`y`</b>`z"),
        ("as follows<br></br>then", "as follows\\\n\\\nthen"),  # HTML reads </br> as <br>
        # Breaks that end a paragraph go, all of them: a backslash there shows as one.
        ("as follows -\n<br></br>\n\nNext", "as follows -\n\n\nNext"),
        ("a<br><br><br>", "a"),
    ],
)
def test_inline_markup_around_plain_text_becomes_markdown(html, markdown):
    notes: list[str] = []
    tokens = MarkdownIt("commonmark").parse(html)
    assert inline_html_as_markdown(html, tokens, "cell 1", notes) == markdown
    assert notes and all(note.startswith("cell 1: inline HTML <") for note in notes)


def test_html_that_only_lays_out_its_text_keeps_the_text_as_markdown():
    """nx-guides' PageRank centres its formula in `<center>`, a block that cuts its
    paragraph short: the formula stays, as a paragraph of its own; HTML holding other tags
    stays code."""
    lesson = ImportedLesson()
    source = (
        "as follows -\n<center>$\\hat{P} = \\alpha P$</center>\n\n"
        '<div class="note">\n<p align="right">Said once.</p>\n</div>\n\n'
        "<center><table><tr><td>1</td></tr></table></center>\n"
    )
    text = portable_prose(Cell("markdown", source, "cell 3"), lesson)
    assert text.startswith("as follows -\n\n$\\hat{P} = \\alpha P$\n\nSaid once.\n\n```html\n")
    assert "```html\n<center><table><tr><td>1</td></tr></table></center>\n```" in text
    assert (
        "cell 3: HTML that only dresses its text (<center>) was left out, its text kept: the "
        "page sets its own layout"
    ) in lesson.notes


def test_html_in_a_directive_body_is_settled_as_the_prose_around_it_is():
    """QuantEcon's lqramsey: ```` ```{only} html ```` holds `<a href=firenze.pdf download>`:
    CommonMark reads the fence's body as code, MyST as Markdown, so the link stayed HTML and
    the build refused the lesson at three lines. A directive's Markdown body is settled like
    the cell's prose (in a list too, at its indent); code, math and raw HTML bodies are not."""
    lesson = ImportedLesson()
    source = (
        "```{only} html\nThe treatment follows <a href=_static/firenze.pdf download>this "
        "manuscript</a>.\n```\n\n"
        "- a point\n\n  ```{note}\n  Read <b>this</b> first.\n\n"
        "  <table><tr><td>1</td></tr></table>\n"
        "  ```\n\n"
        "```{code-block} html\n<b>kept</b>\n```\n\n"
        "```{raw} html\n<b>raw</b>\n```\n\n"
        "```{tip}\nSee ![the logo](https://example.org/logo.png).\n```\n"
    )
    text = portable_prose(Cell("markdown", source, "cell 2"), lesson)
    assert "```{tip}\nSee [the logo](https://example.org/logo.png).\n```" in text
    assert "follows [this manuscript](_static/firenze.pdf)." in text
    # The HTML shown as code gets a fence of its own, so the note's fence grows to hold it.
    assert (
        "  ````{note}\n  Read **this** first.\n\n  ```html\n"
        "  <table><tr><td>1</td></tr></table>\n  ```\n  ````\n" in text
    )
    assert "```{code-block} html\n<b>kept</b>\n```" in text
    assert "```{raw} html\n<b>raw</b>\n```" in text
    assert any(
        "<a href=_static/firenze.pdf download> and its text became" in n for n in lesson.notes
    )


def test_inline_html_is_reported_at_its_own_line_of_a_text_notebook():
    """A Markdown cell of a MyST notebook runs from one code cell to the next, often a
    hundred lines: the report names the tag's own line (lqramsey's three links were all
    named at the cell's first line, 35, where they stand at 63, 923 and 969)."""
    lesson = ImportedLesson()
    source = "Words.\n\nMore <b>bold</b> words.\n\n```{note}\nSee <i>this</i>.\n```\n"
    portable_prose(Cell("markdown", source, "line 40"), lesson)
    assert sorted(note.split(": inline HTML ")[0] for note in lesson.notes) == [
        "line 42",
        "line 45",
    ]


def test_a_link_whose_text_runs_over_a_line_break_reaches_its_label(course_folder):
    """QuantEcon's odu: "our intuition from section [looking\nforward](looking-forward)":
    the import left the link as written and the build refused it as a link to a file."""
    cells = [
        new_markdown_cell("# Search with learning\n\nWhat a worker learns.\n\n"),
        new_code_cell("offers = [1, 2]"),
        new_markdown_cell("(looking-forward)=\n## Looking forward\n\nWages rise."),
        new_code_cell("print(max(offers))"),
        new_markdown_cell(
            "This fits our intuition from section [looking\nforward](looking-forward)."
        ),
    ]
    _, page = imported_and_built(course_folder, "search", cells)
    soup = BeautifulSoup(page, "html.parser")
    (link,) = [
        a for a in soup.select("a[href]") if " ".join(a.get_text().split()) == "looking forward"
    ]
    assert link["href"] in ("#looking-forward", "index.html#looking-forward")  # this page
    assert soup.find(id="looking-forward") is not None
