"""A notebook's cells keep their meaning in the lesson: MyST-NB's cell tags in the underscore
spelling (`remove_cell`) as in the hyphenated one, a setext heading as its title, and display
math as math, however its lines look to a parser that has none."""

from __future__ import annotations

import json
import re
from pathlib import Path

from coursesite.importers.directives import settle_admonitions
from coursesite.importers.lessonimport import convert, notebook_title
from coursesite.importers.notebooks import read_notebook
from coursesite.importers.titles import headings
from coursesite.markup.markdown import parse_nodes


def code_cell(source: str, *tags: str) -> dict:
    return {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def test_underscore_tags_mean_what_the_hyphenated_ones_do(tmp_path: Path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Tags\n\nSome prose."},
            {
                **markdown_cell("For the documentation build only."),
                "metadata": {"tags": ["remove_cell"]},
            },
            code_cell("import math", "remove_cell"),  # later cells need what it defines
            code_cell("print('folded')", "hide_input", "hide_output"),
            code_cell("print('whole')", "hide_cell"),
            code_cell("print('input')", "remove_input"),
            code_cell("raise ValueError('no')", "raises_exception"),
            code_cell("print('never run')", "skip_execution"),
            markdown_cell("```{admonition} Toggled\n:class: toggle margin\nHidden.\n```"),
        ],
    }
    path = tmp_path / "tags.ipynb"
    path.write_text(json.dumps(notebook))
    imported = convert(read_notebook(path), "Tags", "tags.ipynb", "tags.expected.yaml")
    assert "documentation build only" not in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nimport math" in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('folded')" in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('whole')" in imported.text
    assert ":tags: [hide-input]\n```python\nprint('input')" in imported.text
    assert ":raises: Exception\n```python\nraise ValueError" in imported.text
    assert "```python norun\nprint('never run')" in imported.text
    assert any("tagged remove-cell" in note for note in imported.notes)
    assert "```{admonition} Toggled\n:class: toggle\nHidden.\n```" in imported.text


def markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def test_a_setext_heading_is_the_title_like_an_atx_one(tmp_path: Path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            markdown_cell(
                "Hiding cell\ncontents\n====\n\nSome prose.\n\n# Hiding code cells\n\nMore."
            ),
            markdown_cell("A section\n---------\n\nText.\n\n# Later\n\n---\n\nAfter a rule."),
            code_cell("print(1)"),
        ],
    }
    path = tmp_path / "setext.ipynb"
    path.write_text(json.dumps(notebook))
    cells = read_notebook(path)
    title = notebook_title(cells, "fallback")
    assert title == "Hiding cell contents"
    text = convert(cells, title, "setext.ipynb", "setext.expected.yaml").text
    body = text.split("# Understand", 1)[1]
    assert "contents" not in body and "====" not in body
    assert "## Hiding code cells" in text and "### A section" in text
    assert "## Later\n\n---\n\nAfter a rule." in text  # a rule under an ATX heading stays


# From numpy-tutorials' tutorial-static_equilibrium.md: a line of `=` between two matrices,
# which CommonMark alone (no dollarmath) takes for the underline of a setext heading.
STATIC_EQUILIBRIUM = """\
# Static equilibrium

```{code-cell}
import numpy as np
```

and the moments as

$$\\left[
\\begin{array}{cc}
~2 & -2\\\\
\\end{array}
\\right]
=
\\left[
\\begin{array}{c}
~780\\\\
\\end{array}
\\right]$$

:::{math}
a
=
b
:::

```{code-cell}
print(np.zeros(2))
```
"""


def test_a_line_of_equals_in_display_math_is_math_not_a_heading(tmp_path: Path):
    path = tmp_path / "static.md"
    path.write_text(STATIC_EQUILIBRIUM)
    text = convert(read_notebook(path), "Static equilibrium", "static.md", "s.expected.yaml").text
    assert "\\right]\n=\n\\left[" in text and "$$\na\n=\nb\n$$" in text  # {math} became $$
    assert "## " not in text
    assert ":::{step} 2. and the moments as\n" in text  # the prose titles it, no formula


def test_a_heading_in_a_quote_or_a_list_item_stays_there(tmp_path: Path):
    path = ipynb(
        tmp_path,
        markdown_cell("# Quoted\n\n> A quoted title\n> ===\n\n- An item\n  ---\n"),
        code_cell("print(1)"),
    )
    text = convert(read_notebook(path), "Quoted", "nb.ipynb", "nb.expected.yaml").text
    assert "> ## A quoted title\n\n- ### An item" in text
    assert [level for _, level, _ in headings(text.split("# Build & Run")[0])][-2:] == [2, 3]


def test_admonition_options_and_classes_lessons_lack_are_dropped_with_a_note_each():
    notes: list[str] = []
    text = (
        "````{admonition} Hidden with the toggle class\n:class: toggle margin tip\n"
        ":name: my-label\nThe body.\n````\n\n"
        ":::{note}\n:class: full-width\nA note.\n:::\n\n"
        "```{code-cell}\n:class: kept\n```\n\n"
        "````markdown\n```{tip} An example\n:class: margin\n```\n````"
    )
    assert settle_admonitions(text, "cell 3", notes) == (
        "````{admonition} Hidden with the toggle class\n:class: toggle tip\nThe body.\n````\n\n"
        ":::{note}\nA note.\n:::\n\n"
        "```{code-cell}\n:class: kept\n```\n\n"
        "````markdown\n```{tip} An example\n:class: margin\n```\n````"
    )
    assert notes == [
        "cell 3: the class 'margin' of {admonition} is not one lessons show: it was dropped",
        "cell 3: the option :name: of {admonition} is not one lessons take: it was dropped",
        "cell 3: the class 'full-width' of {note} is not one lessons show: it was dropped",
    ]


def ipynb(tmp_path: Path, *cells: dict, name: str = "nb.ipynb") -> Path:
    path = tmp_path / name
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)}
    path.write_text(json.dumps(notebook))
    return path


def stored(cell: dict, *outputs: dict) -> dict:
    return {**cell, "outputs": list(outputs)}


def stream(name: str, text: str) -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def test_a_cell_of_shell_commands_alone_is_shown_never_run_under_its_heading(tmp_path: Path):
    path = ipynb(
        tmp_path,
        markdown_cell("# Mounting\n\nRead data from a mounted bucket."),
        markdown_cell("### Install the tool"),
        code_cell("!wget https://example.org/tool.deb\n!sudo apt-get install -y ./tool.deb"),
        code_cell("!pip install grain"),  # requirements, as before: no code, no fence
        code_cell("!wget https://example.org/docs-only.zip", "remove-cell"),
        markdown_cell("### Mix"),
        code_cell("import os\n!ls data\nprint(os.sep)"),
    )
    imported = convert(read_notebook(path), "Mounting", "nb.ipynb", "nb.expected.yaml")
    assert (
        "## Install the tool\n\n```python norun\n!wget https://example.org/tool.deb\n"
        "!sudo apt-get install -y ./tool.deb\n```"
    ) in imported.text
    assert "pip install" not in imported.text and imported.installs == ["grain"]
    # The heading titles the step after it, not the shell cell; the shell line stays shown.
    assert ":::{step} 1. Mix\n```python\nimport os\n# notebook magic, not run: !ls data\n" in (
        imported.text
    )
    assert any("cell 3: it holds shell commands alone" in note for note in imported.notes)
    assert not any("cell 3" in note and "became a comment" in note for note in imported.notes)
    # What the notebook's own build hides, and holds nothing to run, stays out.
    assert "docs-only" not in imported.text
    assert "cell 5: tagged remove-cell, and holds nothing a lesson runs: it was left out" in (
        imported.notes
    )


def test_footnotes_labels_and_numbering_never_title_a_step(tmp_path: Path):
    path = ipynb(
        tmp_path,
        markdown_cell("# Colours\n\nPrinting colours."),
        markdown_cell("The following code[^ack] shows the colours.\n\n[^ack]: Borrowed from X."),
        code_cell("print('red')"),
        markdown_cell("## 1. Automatic parallelism via `jit`"),
        code_cell("print('jit')"),
        markdown_cell("(a-label)=\n\n[Docs](https://example.org)"),
        code_cell("arr.sharding"),
        code_cell("for batch in loader:\n    print(batch)"),
    )
    text = convert(read_notebook(path), "Colours", "nb.ipynb", "nb.expected.yaml").text
    assert ":::{step} 1. The following code shows the colours\n" in text
    assert ":::{step} 2. Automatic parallelism via `jit`\n" in text
    assert ":::{step} 3. Show arr.sharding\n" in text
    assert ":::{step} 4. Loop over loader\n" in text
    assert "[^ack]: Borrowed from X." in text  # the note stays in the prose


def test_remove_stdout_and_stderr_fold_the_output_or_say_why_not(tmp_path: Path):
    path = ipynb(
        tmp_path,
        markdown_cell("# Streams\n\nWhat the streams show."),
        stored(
            code_cell("import sys; print('x', file=sys.stderr)", "remove-stderr"),
            stream("stderr", "x\n"),
        ),
        stored(
            code_cell("print('kept'); print('x', file=sys.stderr)", "remove_stderr"),
            stream("stdout", "kept\n"),
            stream("stderr", "x\n"),
        ),
        {
            **stored(code_cell("print('hidden')", "hide-cell"), stream("stdout", "hidden\n")),
            "metadata": {"tags": ["hide-cell"], "mystnb": {"code_prompt_show": "Show it"}},
        },
        stored(
            code_cell("a = 1\nprint(a)"),
            {"output_type": "display_data", "metadata": {}, "data": {"unknown": ""}},
        ),
    )
    imported = convert(read_notebook(path), "Streams", "nb.ipynb", "nb.expected.yaml")
    assert ":tags: [hide-output]\n```python\nimport sys; print('x'" in imported.text
    assert ":::{step} 2. Show 'kept'\n```python\nprint('kept')" in imported.text
    notes = "\n".join(imported.notes)
    assert "cell 2: tagged remove-stderr; the page folds the step's output instead" in notes
    assert "cell 3: tagged remove-stderr; the page shows the step's output whole" in notes
    assert "cell 4: MyST-NB's option mystnb.code_prompt_show, which lessons lack" in notes
    assert "cell 5: a stored output of type unknown, which no page shows: it is left out" in notes


def test_a_progress_bar_drawn_as_a_notebook_widget_becomes_the_portable_one(tmp_path: Path):
    """tqdm.notebook raises outside a Jupyter kernel with ipywidgets; tqdm.auto draws the
    same bar there, and as text where the site is built."""
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            markdown_cell("# Bars\n\nTraining shows its progress."),
            code_cell("from tqdm.notebook import tqdm, trange\nimport tqdm.notebook as tn"),
            code_cell("for i in tqdm(range(3)):\n    pass\nbar = tn.tqdm(range(2))"),
            code_cell("from tqdm import tqdm_notebook\nprint('tqdm.notebook stays in text')"),
        ],
    }
    path = tmp_path / "bars.ipynb"
    path.write_text(json.dumps(notebook))
    imported = convert(read_notebook(path), "Bars", "bars.ipynb", "bars.expected.yaml")
    assert "from tqdm.auto import tqdm, trange\nimport tqdm.auto as tn\n" in imported.text
    assert (
        "from tqdm.auto import tqdm as tqdm_notebook\nprint('tqdm.notebook stays" in imported.text
    )
    notes = [note for note in imported.notes if "front end" in note]
    assert [note.split(":")[0] for note in notes] == ["cell 2", "cell 4"]
    assert "tqdm.notebook draws in a notebook's front end" in notes[0]
    assert "it became tqdm.auto.tqdm" in notes[1]


# Flax's guides keep each nnx.display() output in the Markdown as treescope's HTML: a script
# and a hidden div whose script holds the rendering, compressed.
TREESCOPE = """\
# Checkpoints

```{code-cell} ipython3
print(1)
```

<script> (()=>{ customElements.define("treescope-container", class {}); })(); </script>

<div style="display:none"> <script type="application/octet-stream" >eNrtfet62ziy</script> </div>

<div align="center"><script>draw()</script>Kept: a reader sees this.</div>
"""


def test_html_that_only_runs_scripts_is_left_out_and_said(tmp_path: Path):
    path = tmp_path / "checkpoints.md"
    path.write_text(TREESCOPE)
    imported = convert(read_notebook(path), "Checkpoints", "c.md", "c.expected.yaml")
    assert "treescope" not in imported.text and "eNrt" not in imported.text
    assert "Kept: a reader sees this." in imported.text
    scripts = [note for note in imported.notes if "HTML that runs a script" in note]
    assert sorted(note.split(":")[0] for note in scripts) == ["line 7", "line 9"]


def test_the_section_that_leads_into_the_first_step_goes_above_it(tmp_path: Path):
    """Lineax's operators notebook: an introduction, then '## Arithmetic' and 'To begin
    with, they support arithmetic:' above the first cell, which that heading titles. The
    section is the step's lead-in, not what the lesson is about."""
    path = tmp_path / "operators.md"
    path.write_text(
        "# Operators\n\nLineax offers linear operators.\n\n(arith)=\n## Arithmetic\n\n"
        "To begin with, they add:\n\n```{code-cell} ipython3\nx = 1 + 1\n```\n"
    )
    text = convert(read_notebook(path), "Operators", "o.md", "o.expected.yaml").text
    understand, build_run = text.split("# Understand", 1)[1].split("# Build & Run")
    assert understand.strip() == "Lineax offers linear operators."
    assert build_run.strip().startswith(
        "(arith)=\n## Arithmetic\n\nTo begin with, they add:\n\n:::{step} 1. Arithmetic"
    ), build_run
    # When the section is all the introduction says, it stays: Understand is never empty.
    path.write_text("# Operators\n\n## Setup\n\nFirst:\n\n```{code-cell} ipython3\nx = 1\n```\n")
    text = convert(read_notebook(path), "Operators", "o.md", "o.expected.yaml").text
    assert "## Setup\n\nFirst:" in text.split("# Build & Run")[0]


def test_a_formula_a_cell_never_closes_does_not_run_on_into_the_next_cells(tmp_path: Path):
    """QuantEcon's calvo_addon ends a display formula with `$$)`, which closes nothing:
    alone, the cell reads it as a paragraph; in the lesson the next `$$` would close it,
    and the steps between became its LaTeX (the build then found step 4 missing)."""
    path = ipynb(
        tmp_path,
        markdown_cell("# Formulas\n\nA note (\n\n$$\nm - p = -a \\Bigr]$$)\n\nThen prose."),
        code_cell("x = 1"),
        markdown_cell("Alone: $$\nnever closed, and\n\n$$\nP = 2\n$$"),
        code_cell("print(x)"),
        markdown_cell("$$\nopened, never closed\n\n$$x$$ is inline, and stays so"),
        code_cell("print(x + 1)"),
    )
    lesson = convert(read_notebook(path), "Formulas", "nb.ipynb", "nb.expected.yaml")
    text = lesson.text
    assert "$$\nm - p = -a \\Bigr]$$\n)\n\nThen prose." in text
    assert "\\$\\$\nopened, never closed" in text
    assert "$$x$$ is inline, and stays so" in text
    assert "Alone: $$\nnever closed" in text  # not a paragraph that opens with $$
    formulas = [n.content for n in parse_nodes(text) if n.type == "math_block"]
    assert [" ".join(f.split()) for f in formulas] == ["m - p = -a \\Bigr]", "P = 2"]
    assert len(re.findall(r"^:::\{step\} \d", text, re.M)) == 3
    notes = [note for note in lesson.notes if "a $$ formula" in note]
    assert len(notes) == 2, lesson.notes
    assert "closes with '$$)', where Markdown closes none" in notes[0]
    assert "never closes: its $$ is shown as text" in notes[1]


def raw_cell(source: str, format: str = "") -> dict:
    return {
        "cell_type": "raw",
        "metadata": {"raw_mimetype": format} if format else {},
        "source": source,
    }


def test_a_raw_cell_of_plain_text_is_prose_and_one_of_another_format_is_said_left_out(
    tmp_path: Path,
):
    """statsmodels' generic MLE example (nbformat 3) writes its notes between cells as raw
    cells: their text was lost without a word. A raw cell of HTML or LaTeX is what nbconvert
    passes to that output alone: left out, and said."""
    path = ipynb(
        tmp_path,
        markdown_cell("# Raw\n\nSome prose."),
        code_cell("x = 1"),
        raw_cell("* To make your own model, override `loglike`."),
        code_cell("print(x)"),
        raw_cell("<b>only in HTML</b>", "text/html"),
        raw_cell("Markdown, *kept*.", "text/markdown"),
        raw_cell("   \n"),
    )
    imported = convert(read_notebook(path), "Raw", "nb.ipynb", "nb.expected.yaml")
    assert "* To make your own model, override `loglike`.\n\n:::{step} 2." in imported.text
    assert "Markdown, *kept*." in imported.text and "only in HTML" not in imported.text
    assert "cell 3: a raw cell: its text is kept as prose" in imported.notes
    assert "cell 6: a raw cell of text/markdown: its text is kept as prose" in imported.notes
    assert (
        "cell 5: a raw cell of text/html, which only output in that format shows: it was left out"
    ) in imported.notes
    assert not any(note.startswith("cell 7") for note in imported.notes)


def test_a_myst_raw_cell_is_read_as_a_notebook_raw_cell_in_its_place(tmp_path: Path):
    """jupytext writes a notebook's raw cell in MyST as ```{raw-cell}, with its format in the
    options: it was shown as code, 'a directive lessons lack'. It is now the raw cell it was:
    prose where it stood (between the steps), or left out for another format, said at its line."""
    path = tmp_path / "nb.md"
    path.write_text(
        "# Raw MyST\n\nIntro.\n\n"
        "```{code-cell} ipython3\nx = 1\n```\n\n"
        "```{raw-cell}\nA plain *note* between cells.\n```\n\n"
        "```{code-cell} ipython3\nprint(x)\n```\n\n"
        "```{raw-cell}\n---\nraw_mimetype: text/html\n---\n<b>only in HTML</b>\n```\n\n"
        "```{raw-cell}\n:format: text/latex\n\\newpage\n```\n",
        encoding="utf-8",
    )
    cells = read_notebook(path)
    assert [cell.kind for cell in cells] == ["markdown", "code", "markdown", "code"] + [
        "markdown"
    ] * 2
    imported = convert(cells, "Raw MyST", "nb.md", "nb.expected.yaml")
    assert "```{raw-cell}" not in imported.text
    assert re.search(
        r"x = 1\n```\n+(.*\n)*A plain \*note\* between cells\.\n+:::\{step\} 2", imported.text
    )
    assert "only in HTML" not in imported.text and "newpage" not in imported.text
    assert "line 9: a raw cell: its text is kept as prose" in imported.notes
    assert (
        "line 17: a raw cell of text/html, which only output in that format shows: it was left out"
    ) in imported.notes
    assert any(note.startswith("line 24: a raw cell of text/latex") for note in imported.notes)


def test_a_front_matter_whose_first_line_is_not_three_dashes_is_said(tmp_path: Path):
    """QuantEcon's eigen_I opens with `co---`: its jupytext header became a heading of YAML
    on the page, with no word in the report. It is still read as text, and said."""
    header = (
        "jupytext:\n  text_representation:\n    extension: .md\nkernelspec:\n  name: python3\n---\n"
    )
    path = tmp_path / "nb.md"
    path.write_text(
        f"co---\n{header}\n# Eigen\n\nProse.\n\n```{{code-cell}} ipython3\nx = 1\n```\n"
    )
    imported = convert(read_notebook(path), "Eigen", "nb.md", "nb.expected.yaml")
    assert (
        "line 1: its first line, 'co---', opens what looks like the notebook's front matter "
        "(closed on line 7), which only a first line of '---' opens"
    ) in "\n".join(imported.notes)
    # A thematic break under a paragraph, or a front matter that opens rightly, is not it.
    path.write_text(f"---\n{header}\n# Eigen\n\nProse.\n\n```{{code-cell}} ipython3\nx = 1\n```\n")
    assert not any(
        "front matter" in n for n in convert(read_notebook(path), "E", "nb.md", "e").notes
    )
    path.write_text("Intro ---\nmore\n---\n\n```{code-cell} ipython3\nx = 1\n```\n")
    assert not any(
        "front matter" in n for n in convert(read_notebook(path), "E", "nb.md", "e").notes
    )
