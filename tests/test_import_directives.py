"""An imported notebook's directives are ones the build knows, or settled by the import
with a line of the report each, so that the first build meets no 'unknown block'; MyST-NB
glue becomes live values where it can."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import authoring_example
from coursesite.blocks.registry import BlockKind, register, unregister
from coursesite.config.manifest import LessonEntry, LessonRef, PhaseEntry
from coursesite.errors import BuildErrors
from coursesite.importers.glue import Glued
from coursesite.importers.lessonimport import convert
from coursesite.importers.mystdirectives import directive_images, settle_directives
from coursesite.importers.notebooks import read_notebook
from coursesite.importers.references import NotebookLabels, settle_references
from coursesite.lesson.model import Exercise
from coursesite.lesson.parse import parse_lesson


def parsed_lesson(text: str, root: Path, slug: str):
    """`text` parsed as a lesson of a course in `root`; AssertionError with the build's
    messages if the build would refuse it."""
    lesson = root / "content" / "01-x" / f"01-{slug}.md"
    lesson.parent.mkdir(parents=True)
    lesson.write_text(text)
    phase = PhaseEntry(id="01", slug="x", title="X", lessons=[LessonEntry(slug=slug, source="x")])
    try:
        return parse_lesson(LessonRef(slug, lesson, phase, 1, 1, root))
    except BuildErrors as errors:
        raise AssertionError(str(errors)) from None


def converted(root: Path, name: str, source: str, title: str):
    """The MyST notebook `source`, written to `root/name`, imported as the lesson `title`."""
    notebook = root / name
    notebook.write_text(source)
    return convert(read_notebook(notebook), title, name, f"{name[0]}.expected.yaml")


def settle(text: str, glued: Glued | None = None) -> tuple[str, list[str]]:
    notes: list[str] = []
    return settle_directives(text, "cell 1", notes, glued), notes


def test_navigation_is_left_out_with_a_note():
    text, notes = settle("Intro.\n\n```{toctree}\n:hidden:\nadvanced\n```\n\n:::{contents}\n:::")
    assert text.strip() == "Intro."
    assert len(notes) == 2 and all("navigation" in note for note in notes)


def test_sphinx_context_is_left_out_and_a_glossary_keeps_its_terms():
    """Matplotlib's tutorials set `{currentmodule}` (which shows nothing) and define terms
    in a `{glossary}` (a definition list)."""
    text, notes = settle(
        "```{redirect-from} /tutorials/old\n```\n\n"
        "```{currentmodule} matplotlib.pyplot\n```\n\n```{glossary}\nlegend entry\n: A line.\n```"
        "\n\n```{tags}\nplot-type: pie\n```"
    )
    assert "currentmodule" not in text and "redirect" not in text and "pie" not in text
    assert "legend entry\n: A line." in text
    assert notes[:2] == [
        "cell 1: {redirect-from} /tutorials/old leads an old address of the notebook's site "
        "here: left out",
        "cell 1: {currentmodule} matplotlib.pyplot sets how Sphinx reads what follows and "
        "shows nothing: left out",
    ]
    assert notes[-1] == (
        "cell 1: {tags} files the page under tags of the notebook's site (sphinx-tags): left out"
    )


def test_an_embedded_video_becomes_a_link_to_it():
    """QuantEcon's prob_meaning embeds two talks with sphinxcontrib-youtube's `{youtube} ID`:
    left out, the lesson lost them; a page loads nothing from other sites, so a link."""
    text, notes = settle(
        "Watch:\n\n```{youtube} 8JIe_cz6qGA\n```\n\n```{vimeo} https://vimeo.com/76979871\n```"
    )
    assert "[Watch the video on YouTube](https://www.youtube.com/watch?v=8JIe_cz6qGA)" in text
    assert "[Watch the video on Vimeo](https://vimeo.com/76979871)" in text
    assert notes[0] == (
        "cell 1: {youtube} 8JIe_cz6qGA embeds a video, which pages never load: it became a link "
        "to it"
    )


def test_version_notes_become_a_note_or_warning_titled_with_the_version():
    text, notes = settle(":::{versionchanged} 0.14.0\nRoles find keys.\n:::")
    assert text == ":::{note} Changed in version 0.14.0\nRoles find keys.\n:::"
    text, _ = settle("```{deprecated} 2.0\nUse `g`.\n```")
    assert text == "```{warning} Deprecated since version 2.0\nUse `g`.\n```"
    text, _ = settle("```{versionadded} 1.1\n```")  # an empty note is refused: its title stays
    assert text == "**New in version 1.1**\n"
    assert "{versionchanged} 0.14.0 became {note}" in notes[0]


def test_a_table_keeps_its_table_its_caption_and_a_target_its_references_reach():
    cell = ":::{table} Options\n:name: tbl-options\n:align: center\n| a | b |\n| - | - |\n:::"
    text, notes = settle(cell)
    assert text == "(tbl-options)=\n**Options**\n\n| a | b |\n| - | - |"
    labels = NotebookLabels.of([cell])
    refs = "See {numref}`tbl-options` and {ref}`tbl-options`."
    assert settle_references(refs, labels, "cell 2", notes) == (
        "See {ref}`Options <tbl-options>` and {ref}`Options <tbl-options>`."
    )
    assert any("lessons have no table captions" in note for note in notes)


def test_an_equation_reference_reaches_the_math_label():
    cell = "```{math}\n:label: eq-sum\na + b\n```\n\nBy {eq}`eq-sum`, and {eq}`elsewhere`."
    labels = NotebookLabels.of([cell])
    notes: list[str] = []
    text = settle_references(settle_directives(cell, "cell 1", notes), labels, "cell 1", notes)
    assert text == "(eq-sum)=\n$$\na + b\n$$\n\nBy {ref}`(sum) <eq-sum>`, and elsewhere."


def test_unknown_directives_are_shown_as_text_or_left_out_and_layout_is_unwrapped():
    text, notes = settle("```{mermaid}\ngraph TD; A-->B\n```\n\n```{include} ../README.md\n```")
    assert text == "```text\ngraph TD; A-->B\n```\n"
    assert "shown as code" in notes[0] and "left out" in notes[1]
    text, _ = settle("```{raw} html\n<b>x</b>\n```")
    assert text == "```html\n<b>x</b>\n```"
    # A raw block a reader of the page would see nothing of is left out, and said so.
    logo = '<div align="right">\n<a href="https://x.org"><img src="logo.svg" alt="X"></a>\n</div>'
    text, notes = settle(
        f"Before.\n\n```{{raw}} html\n{logo}\n```\n\n```{{raw}} latex\n\\newpage\n```"
    )
    assert text.strip() == "Before."
    assert "holds HTML with no text" in notes[0] and "for the latex output only" in notes[1]
    text, _ = settle("```{list-table} Sizes\n:header-rows: 1\n* - n\n  - size\n* - 1\n  - 8\n```")
    assert text == "**Sizes**\n\n| n | size |\n| --- | --- |\n| 1 | 8 |"
    text, _ = settle("::::{tab-set}\n:::{tab-item} CPU\nRuns anywhere.\n:::\n::::")
    assert text == "**CPU**\n\nRuns anywhere."
    text, _ = settle("```{code-block} python\n:linenos:\nx = 1\n```")
    assert text == "```python norun\nx = 1\n```"
    text, _ = settle(":::{hint}\n:class: dropdown\nTry it.\n:::")
    assert text == ":::{tip}\n:class: dropdown\nTry it.\n:::"


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("html", True),
        ("latex", False),
        ("latex or epub", False),
        ("html or latex", True),
        ("not latex", True),
        ("not html", False),
        ("draft and html", True),
        ("mytag", True),
    ],
)
def test_only_keeps_its_body_where_html_shows_it(expression, shown):
    """QuantEcon writes its reading lists twice, in {only} html and {only} latex: a page
    is HTML, so it shows what the HTML build showed, once."""
    text, notes = settle(f"```{{only}} {expression}\n* Hamilton, chapter 2\n```\nAfter.")
    assert text == ("* Hamilton, chapter 2\nAfter." if shown else "After.")
    assert ("it was left out" in notes[0]) is not shown


def test_known_blocks_keep_the_options_their_kind_takes_and_a_name_as_target():
    text, notes = settle(":::{seealso} More\n:name: more-label\n:width: 3\nSee [a](b).\n:::")
    assert text == "(more-label)=\n:::{seealso} More\nSee [a](b).\n:::"
    assert len(notes) == 2


def test_a_required_option_the_notebook_lacks_is_a_placeholder():
    text, notes = settle(":::{figure} images/plot.png\n:width: 80%\nThe plot.\n:::")
    assert text == ":::{figure} images/plot.png\n:alt: TODO: what it shows\nThe plot.\n:::"
    assert "needs :alt:" in notes[1]


def test_a_block_kind_a_plugin_registers_is_kept():
    class Item:
        pass

    register(BlockKind("sidebar", Item, lambda context, raw: Item(), options=("side",)))
    try:
        text, notes = settle(":::{sidebar} Aside\n:side: left\nText.\n:::")
    finally:
        unregister("sidebar")
    assert text == ":::{sidebar} Aside\n:side: left\nText.\n:::" and notes == []


def test_directives_written_out_as_examples_are_left_as_written():
    example = "````md\n```{toctree}\n```\n```{glue} key\n```\n````"
    assert settle(example) == (example, [])


CODE = [
    "from myst_nb import glue\nimport matplotlib.pyplot as plt\nmean = 2.5\nglue('mean', mean)",
    "fig, ax = plt.subplots()\nglue('plot', fig, display=False)\n%time glue('total', mean * 2)",
    "n = 1\nglue('count', n)\nn = 2",
]


def test_glued_values_become_live_values_and_the_rest_the_key_as_code():
    glued = Glued.of(CODE)
    assert glued.keys == {"mean": "mean", "plot": None, "count": None}
    notes: list[str] = []
    text = settle_references(
        "Mean {glue:text}`mean:.2f`, {glue}`mean`, {glue}`plot`, {glue}`count`, "
        "{glue:text}`other.ipynb::x`; `{glue}` in code.",
        NotebookLabels(),
        "cell 3",
        notes,
        glued=glued,
    )
    assert text == (
        "Mean {value}`format(mean, '.2f')`, {value}`mean`, `plot`, `count`, "
        "`other.ipynb::x`; `{glue}` in code."
    )
    assert len(notes) == 5


def test_glue_directives_keep_their_caption_and_label():
    cell = "```{glue:figure} plot\n:figwidth: 300px\n:name: fig-plot\n\nThe **plot**.\n```"
    text, notes = settle(cell, Glued.of(CODE))
    assert text == "(fig-plot)=\n\nThe **plot**."
    assert "became its caption" in notes[0] and "cannot paste" in notes[0]
    text, notes = settle("```{glue} mean\n```", Glued.of(CODE))
    assert text == "{value}`mean`\n"


NOTEBOOK = """\
# Directives

:::{versionadded} 1.0
Glue is new.
:::

```{code-cell} python
from myst_nb import glue
total = 40 + 2
glue("total", total)
```

(sizes/table)=

:::{table} Sizes
:name: tbl-sizes
| n | size |
| - | ---- |
| 1 | 8 |
:::

The total is {glue:text}`total:d`; see {numref}`tbl-sizes`, [the sizes](sizes/table)
and {ref}`sizes/table`.

````md
```{toctree}
```
[kept](render/x)
````

```{toctree}
advanced
```

```{contents}
```

```{code-cell} python
print(total)
```
"""


def test_an_image_or_figure_on_another_site_becomes_a_link_to_it():
    """Pythia's NumPy basics opens with an {image} of NumPy's logo by its web address: the
    import kept it and the build refused the lesson ("image ... is on another site"). As a
    Markdown image from another site does, it becomes a link, said in the report."""
    logo = "https://github.com/numpy/numpy/raw/main/branding/logo/primary/numpylogo.svg"
    text, notes = settle(
        f"```{{image}} {logo}\n:alt: NumPy Logo\n:width: 250\n```\n\n"
        ":::{figure} //example.org/plot.png\nThe plot, **drawn** elsewhere.\n:::\n\n"
        "```{image} images/local.png\n:alt: kept\n```"
    )
    assert f"[NumPy Logo]({logo})" in text and "{image} https" not in text
    assert (
        "[//example.org/plot.png](//example.org/plot.png)\n\nThe plot, **drawn** elsewhere." in text
    )
    assert "{image} images/local.png" in text  # a file of the lesson's stays an image
    assert notes[0] == (
        f"cell 1: {{image}} {logo} is on another site, from which pages load nothing: it "
        "became a link to it; save the file beside the lesson to show it"
    )
    assert len(notes) == 2


DETAILS = """# Colormaps

Click to see the examples.

<details>
    <summary> 1. <b>Sequential:</b> lightness changes
    with the value. </summary>

    Good for **ordered** data:

    * viridis
    * magma
</details>

```{code-cell} ipython3
x = 1
```

<details><summary>Solution</summary>

:::{note}
Inside.
:::
</details>
"""


def test_html_details_become_a_dropdown_titled_with_the_summary(tmp_path: Path):
    """Pythia's colormap notebook folds its examples in <details>: the block was shown as
    code, 'HTML is shown as code; rewrite it in Markdown', its Markdown with it. It is a
    dropdown admonition, titled with the summary, its body still Markdown; the lesson
    parses as the build reads it."""
    imported = converted(tmp_path, "details.md", DETAILS, "Colormaps")
    assert (
        ":::{admonition} 1. **Sequential:** lightness changes with the value.\n"
        ":class: dropdown\n\nGood for **ordered** data:\n\n* viridis\n* magma\n:::"
    ) in imported.text
    # A block inside takes one more colon than it; lessons nest no blocks: its body stays.
    assert "::::{admonition} Solution\n:class: dropdown\n\nInside.\n::::" in imported.text
    assert "<details>" not in imported.text and "</summary>" not in imported.text
    assert any("HTML <details> block(s) became a dropdown" in n for n in imported.notes)
    lesson = parsed_lesson(imported.text, tmp_path, "details")  # the build refuses none of it
    assert [run.label for run in lesson.runs] == ["step 1"]


def test_a_details_inside_another_becomes_a_dropdown_inside_one(tmp_path: Path):
    """A folded answer with a folded hint inside it: the inner <details> was left as HTML,
    and so was the outer, both shown as code. Now the inner is made a dropdown first, and
    the outer's fence is longer than the inner's."""
    nested = (
        "# Quiz\n\n<details><summary>Answer</summary>\n\nThe mean.\n\n"
        "<details><summary>Hint</summary>\n\nAdd, then divide.\n</details>\n</details>\n\n"
        "```{code-cell} ipython3\nx = 1\n```\n"
    )
    imported = converted(tmp_path, "nested.md", nested, "Quiz")
    assert "<details>" not in imported.text and "</details>" not in imported.text
    assert "::::{admonition} Answer\n:class: dropdown\n\nThe mean.\n\n" in imported.text
    assert "Add, then divide." in imported.text
    assert any("2 HTML <details> block(s) became a dropdown" in n for n in imported.notes)
    parsed_lesson(imported.text, tmp_path, "nested")


def test_a_fence_a_cell_leaves_open_is_closed_where_the_cell_ends(tmp_path: Path):
    """Pythia's pandas answers open ```python in a <details> and never close it: Jupyter
    renders each cell on its own, so the fence ends with its cell; in the lesson it ran on
    into the next questions and the build refused the lesson (an unclosed code block)."""
    from coursesite.importers.notebookcells import Cell

    answer = "<details>\n    <summary>Answer</summary>\n\n```python\n# ANSWER\nlen(df)\n</details>"
    cells = [
        Cell("markdown", "# Quiz\n\nQuestions.", "cell 1"),
        Cell("code", "x = 1", "cell 2"),
        Cell("markdown", f"### Q1\n\n{answer}", "cell 3"),
        Cell("markdown", "### Q2\n\n~~~python\nprint(2)", "cell 4"),
        Cell("markdown", "### Q3\n\n```python\nprint(3)\n```", "cell 5"),
    ]
    imported = convert(cells, "Quiz", "quiz.ipynb", "q.expected.yaml")
    assert (
        ":::{admonition} Answer\n:class: dropdown\n\n```python norun\n# ANSWER\nlen(df)\n```\n:::"
    ) in imported.text
    assert "## Q2\n\n~~~python norun\nprint(2)\n~~~\n\n## Q3" in imported.text
    closed = [note for note in imported.notes if "leaves open was closed" in note]
    assert [note.split(":")[0] for note in closed] == ["cell 3", "cell 4"]  # not cell 5
    parsed_lesson(imported.text, tmp_path, "quiz")  # the build refuses none of it


def test_an_imported_notebook_with_directives_lessons_lack_parses(tmp_path: Path):
    imported = converted(tmp_path, "directives.md", NOTEBOOK, "Directives")
    assert "[kept](render/x)" in imported.text
    lesson = tmp_path / "content" / "01-x" / "01-directives.md"
    lesson.parent.mkdir(parents=True)
    lesson.write_text(imported.text)
    phase = PhaseEntry(
        id="01", slug="x", title="X", lessons=[LessonEntry(slug="directives", source="x")]
    )
    ref = LessonRef("directives", lesson, phase, 1, 1, tmp_path)
    try:
        parsed = parse_lesson(ref)
    except BuildErrors as errors:
        raise AssertionError(str(errors)) from None
    titled = {target.label for target in parsed.targets if target.title}
    assert all(ref.has_text or ref.label in titled for ref in parsed.label_refs)
    assert [value.expression for value in parsed.values] == ["format(total, 'd')"]


EXERCISES = """---
kernelspec:
  name: python3
  language: python
---

# Cake

We compute a cake.

```{code-cell} python3
size = 10
print(size)
```

## Exercises

```{exercise}
:label: cake_ex1

Halve the cake, then see {ref}`the solution <cake_ex1>`.
```

```{solution-start} cake_ex1
:class: dropdown
```

Halving is a division.

```{code-cell} python3
half = size / 2
print(half)
```

```{solution-end}
```

```{exercise} Thirds
Cut it in three.
```

```{solution} cake_ex2
Divide by three: `size / 3`.
```
"""


def test_sphinx_exercise_blocks_become_prose_and_their_solution_cells_stay_steps(tmp_path: Path):
    """Jupyter Book's exercises (sphinx-exercise) are prose with a solution, not a lesson's
    exercise with a scaffold to check: they become an admonition, a closed one for a
    solution, and the cells between -start and -end markers stay steps in their order."""
    imported = converted(tmp_path, "cake.md", EXERCISES, "Cake")
    text = imported.text
    assert "{exercise}" not in text and "solution-" not in text
    assert "(cake_ex1)=\n```{admonition} Exercise\nHalve the cake" in text
    assert "```{admonition} Exercise: Thirds\nCut it in three.\n```" in text
    assert "```{admonition} Solution\n:class: dropdown\nDivide by three" in text
    assert "**Solution**\n\nHalving is a division." in text
    assert text.index("Halving is a division.") < text.index("half = size / 2")
    assert any(
        "{solution-start} cake_ex1 (sphinx-exercise) became a bold line" in n
        for n in imported.notes
    )
    parsed = parsed_lesson(text, tmp_path, "cake")
    assert [step.code.source.strip() for step in parsed.steps][-1] == "half = size / 2\nprint(half)"
    assert not list(parsed.items(Exercise))


def test_a_sphinx_exercise_showing_python_is_prose_with_that_code_shown():
    """A Markdown cell's ```python block runs nowhere in a notebook: an exercise showing
    one (QuantEcon's Markov chains) is still sphinx-exercise's, not a lesson's exercise
    (which has a :kind: and scaffold, solution and check blocks)."""
    source = "````{exercise}\n:label: mc_ex1\n\nThe matrix:\n\n```python\nP = [[1]]\n```\n````"
    text, notes = settle(source)
    assert "{exercise}" not in text
    assert "```python norun\nP = [[1]]\n```" in text
    assert text.startswith("(mc_ex1)=\n````{admonition} Exercise\n")
    assert any("{exercise} (sphinx-exercise) became {admonition} Exercise" in n for n in notes)
    own = ":::{exercise} Halve it\n\n```python scaffold\nhalf = ...\n```\n:::"
    assert settle(own)[0].startswith(":::{exercise} Halve it")


def test_a_lessons_own_exercise_is_kept_as_one():
    own = ":::{exercise} Halve it\n:kind: transfer\n\nDo it.\n\n```python\nhalf = ...\n```\n:::"
    text, _ = settle(own)
    assert text.startswith(":::{exercise} Halve it\n:kind: transfer")


def test_what_a_cell_that_never_runs_through_glues_is_no_live_value(tmp_path: Path):
    notebook = tmp_path / "glued.md"
    notebook.write_text(
        "# Glued\n\n```{code-cell} python\n:tags: [skip-execution]\nglue('a', 1)\n```\n\n"
        "```{code-cell} python\n:tags: [raises-exception]\nglue('b', 2)\nraise ValueError\n```"
        "\n\n```{code-cell} python\nglue('c', 3)\n```\n\n"
        "{glue}`a`, {glue}`b`, {glue}`c`.\n"
    )
    imported = convert(read_notebook(notebook), "Glued", "glued.md", "g.expected.yaml")
    assert "`a`, `b`, {value}`3`." in imported.text


def test_in_a_list_or_another_block_a_directive_is_its_title_and_body():
    text, notes = settle("- Run it.\n\n  ```{tip} Faster\n  Use jit.\n  ```\n- Done.")
    assert text == "- Run it.\n\n  **Faster**\n\n  Use jit.\n- Done."
    text, notes = settle("::::{note}\n:::{versionadded} 2.0\nNew.\n:::\n::::")
    assert text == "::::{note}\n**New in version 2.0**\n\nNew.\n::::"
    assert "title in bold" in notes[0]


def test_a_directive_that_opens_a_list_item_is_settled_where_it_is(tmp_path: Path):
    """QuantEcon's pandas lectures open nested list items with a hint (`- ```{hint}`):
    each became its title in bold and its body in that item, so the lesson builds."""
    source = (
        "# Questions\n\n```{code-cell} python\nx = 1\n```\n\n"
        "- The largest?\n    - ```{hint}\n      What type is returned?\n      ```\n"
        "    - ```{note} Read\n      The docs of `idxmax`.\n      ```\n"
        "1. Parts:\n    1. Count them\n        - ```{hint}\n          A Series?\n\n"
        "          Or a scalar?\n          ```\n    1. Plot them\n"
    )
    imported = converted(tmp_path, "questions.md", source, "Questions")
    assert (
        "- The largest?\n    - **Hint**\n\n      What type is returned?\n"
        "    - **Read**\n\n      The docs of `idxmax`.\n"
        "1. Parts:\n    1. Count them\n        - **Hint**\n\n          A Series?\n\n"
        "          Or a scalar?\n    1. Plot them"
    ) in imported.text
    assert sum("{hint} became its title in bold and its body" in n for n in imported.notes) == 2
    # Each closed at its item's indent (4 spaces and more): no fence left open to close.
    assert not [note for note in imported.notes if "leaves open" in note]
    assert "Or a scalar?\n    1. Plot them\n\n# Experiment" in imported.text
    parsed_lesson(imported.text, tmp_path, "questions")


def test_python_in_a_kept_block_is_marked_norun():
    text, _ = settle("````{note}\nLike this:\n```python\nx = 1\n```\n````")
    assert text == "````{note}\nLike this:\n```python norun\nx = 1\n```\n````"


def test_an_image_in_a_list_becomes_a_markdown_image_and_unwrapped_python_is_norun():
    text, _ = settle("- See:\n\n  ```{image} images/a.png\n  :alt: the curve\n  ```")
    assert text == "- See:\n\n  ![the curve](images/a.png)"
    text, _ = settle("::::{tab-set}\n:::{tab-item} Run\n```python\nx = 1\n```\n:::\n::::")
    assert text == "**Run**\n\n```python norun\nx = 1\n```"


def test_the_images_of_image_and_figure_directives_are_listed_to_be_checked():
    text = ":::{figure} images/a%20b.png\nCap.\n:::\n\n- x\n\n  ```{image} b.gif\n  ```\n```{image} https://x/c.png\n```"
    assert directive_images(text) == ["images/a b.png", "b.gif"]


def test_a_directive_in_a_quote_is_its_title_and_body_in_the_quote():
    text, notes = settle(
        "> Quoted:\n>\n> ```{note} Mind\n> Take care.\n>\n> More.\n> ```\n\nAfter."
    )
    assert text == "> Quoted:\n>\n> **Mind**\n>\n> Take care.\n>\n> More.\n\nAfter."
    assert "cannot go in a list or a quote" in notes[0]


def test_an_include_is_written_in_from_the_checkout_and_a_missing_one_left_out(tmp_path: Path):
    """Jupyter Book's shared snippets (`{include} _admonition/gpu.md`) arrive as their
    text, where the directive stood; `/` starts at the project's root; what the checkout
    lacks is left to the settling, which says so."""
    from coursesite.importers.includes import inline_includes

    book = tmp_path / "book"
    (book / "lectures" / "_admonition").mkdir(parents=True)
    (book / "lectures" / "_config.yml").write_text("title: A book\n")
    (book / "lectures" / "_admonition" / "gpu.md").write_text(
        "```{admonition} GPU\n:class: warning\n\nThis runs faster on a GPU.\n```\n"
    )
    (book / "lectures" / "shared.py").write_text("# head\nx = 1\n# tail\n")
    notebook = book / "lectures" / "page.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Page\n\n"
        "```{include} _admonition/gpu.md\n```\n\nWords.\n\n"
        "```{include} /shared.py\n:code: python\n:start-after: # head\n:end-before: # tail\n```\n\n"
        "```{include} _admonition/missing.md\n```\n\n"
        "```{include} _admonition/gpu.md\n:start-line: two\n```\n\n"
        "```{code-cell} python3\nprint(1)\n```\n"
    )
    cells = read_notebook(notebook)
    notes = inline_includes(cells, notebook)
    text = cells[0].source
    assert text.startswith("# Page\n\n```{admonition} GPU\n:class: warning\n\nThis runs faster")
    assert "```python norun\nx = 1\n```" in text
    assert "missing.md" not in text  # not there: said so, where it stood
    assert ":start-line: two" in text  # no line number: the settling's to say
    assert notes == [
        "line 9: {include} _admonition/gpu.md: the text of _admonition/gpu.md is written in",
        "line 14: {include} /shared.py: the text of shared.py is shown as code",
        "line 20: {include} _admonition/missing.md names a file the notebook's checkout does "
        "not hold (or one outside its project): it was left out; put the file there and "
        "import again, or write its text into the lesson",
    ]
    settled, said = settle(text)
    assert "GPU" in settled and any("{include} _admonition/gpu.md" in n for n in said)


def test_alike_directives_of_a_text_notebook_are_each_named_at_its_own_line(tmp_path: Path):
    """QuantEcon's reshape lecture has five `{hint}` blocks, three opening list items with
    the same line: the report named two lines for the five, the first of each kind."""
    text = (
        "# Hints\n\n```{code-cell} python\nx = 1\n```\n\nHere are hints:\n\n"
        "- ```{hint}\n  One.\n  ```\n- ```{hint}\n  Two.\n  ```\n\nMore.\n\n"
        "```{hint}\nThree.\n```\n\n```{hint}\nFour.\n```\n"
    )
    imported = converted(tmp_path, "hints.md", text, "Hints")
    lines = text.splitlines()
    listed = [n for n, line in enumerate(lines, start=1) if line == "- ```{hint}"]
    kept = [n for n, line in enumerate(lines, start=1) if line == "```{hint}"]
    said = [note.split(":")[0] for note in imported.notes if "{hint} became" in note]
    assert sorted(said) == sorted(f"line {n}" for n in listed + kept), imported.notes


def test_a_text_notebooks_directive_notes_name_its_own_line_and_say_each_thing_once(
    tmp_path: Path,
):
    from coursesite.importers.reportnotes import grouped_notes

    text = (
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Figures\n\nWords.\n\n"
        "```{index} single: figures\n```\n\n"
        "```{figure} a.png\nThe first.\n```\n\nMore words.\n\n"
        "```{index} single: more figures\n```\n\n"
        "```{figure} b.png\nThe second.\n```\n\n```{code-cell} python3\nprint(1)\n```\n"
    )
    imported = converted(tmp_path, "figures.md", text, "Figures")
    lines = text.splitlines()
    first, second = (lines.index(f"```{{figure}} {name}") + 1 for name in ("a.png", "b.png"))
    alt = "{figure} needs :alt:, which the notebook does not give: fill in its TODO: line"
    assert f"line {first}: {alt}" in imported.notes
    assert f"line {second}: {alt}" in imported.notes
    grouped = grouped_notes(imported.notes)
    assert f"line {first}, line {second}: {alt}" in grouped
    index = [note for note in grouped if "{index}" in note]
    assert len(index) == 1 and index[0].endswith("entries make Sphinx's index of a site: left out")
    assert "single: figures" not in imported.text
    assert grouped_notes(["a note of no place", "cell 2: x", "cell 5: x", "cell 2: x"]) == [
        "a note of no place",
        "cell 2, cell 5: x",
    ]


PROOFS = """# Stationarity

(overview)=
## Overview

```{prf:definition} Stationary
:label: def-stationary

A process is **stationary** if its law does not move.
```

```{code-cell} ipython3
x = 1
```

By {prf:ref}`def-stationary` and {prf:ref}`the same <def-stationary>`.

As {cite}`Sargent2020` shows.

1. A list item holding a block:

   ```{prf:remark}
   Lists take no blocks.
   ```

:::{prf:proof}
Trivial.
:::
"""


def test_sphinx_proof_blocks_become_titled_admonitions_that_their_references_reach(
    tmp_path: Path,
):
    """Jupyter Book's theorem environments (sphinx-proof) are kept as admonitions titled as
    sphinx-proof titles them, their labels reached by {prf:ref}; the lesson parses."""
    imported = converted(tmp_path, "proofs.md", PROOFS, "Proofs")
    text = imported.text
    assert "prf:" not in text
    assert (
        "(def-stationary)=\n```{admonition} Definition (Stationary)\n\nA process is "
        "**stationary**" in text
    )
    assert ":::{admonition} Proof\nTrivial.\n:::" in text
    assert "**Remark**\n\n   Lists take no blocks." in text
    assert (
        "By {ref}`Definition (Stationary) <def-stationary>` and "
        "{ref}`the same <def-stationary>`" in text
    )
    assert any("{prf:definition} Stationary (sphinx-proof) became" in n for n in imported.notes)
    parsed_lesson(text, tmp_path, "proofs")


def test_a_capitalised_proof_block_with_its_label_also_as_a_target_is_one_target(
    tmp_path: Path,
):
    """QuantEcon's eigen_I: `(lemma)=` above ```{prf:Theorem} with `:label: lemma`.
    docutils reads directive names in any case; the label is one target, not two (the
    build refuses a duplicate)."""
    notebook = tmp_path / "lemma.md"
    notebook.write_text(
        "# Lemma\n\n```{code-cell} ipython3\nx = 1\n```\n\n(lemma)=\n"
        "```{prf:Theorem} Neumann\n:label: lemma\n\nSums converge.\n```\n\n"
        "By {prf:ref}`lemma`.\n"
    )
    text = convert(read_notebook(notebook), "Lemma", "lemma.md", "l.expected.yaml").text
    assert "(lemma)=\n```{admonition} Theorem (Neumann)\n\nSums converge." in text
    assert text.count("(lemma)=") == 1
    parsed_lesson(text, tmp_path, "lemma")


FIGURES = """# Spending

{numref}`fig-spend` shows it; {numref}`Figure %s <fig-spend>` too.

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: Military spending
    name: fig-spend
---
x = 1
```

As {ref}`fig-spend` showed.
"""


def test_a_figure_named_in_a_cells_options_is_what_numref_and_ref_reach(tmp_path: Path):
    """QuantEcon names its figures in MyST-NB's cell options: {numref}`fig2` became the
    bare text 'fig2'; it now links to the step that draws the figure, by its caption."""
    text = converted(tmp_path, "spend.md", FIGURES, "Spending").text
    assert "(fig-spend)=\n:::{step} 1." in text
    body = text.split("\n---\n", 1)[1]  # after the front matter, whose summary quotes one
    assert body.count("{ref}`Military spending <fig-spend>`") == 3, body
    parsed_lesson(text, tmp_path, "spend")
    # QuantEcon's inequality names two figures alike: a book warns; one target is kept.
    twice = FIGURES + FIGURES.split("\n", 2)[2].replace("x = 1", "y = 2")
    imported = converted(tmp_path, "spend.md", twice, "Spending")
    assert imported.text.count("(fig-spend)=") == 1
    assert any("its figure's name fig-spend is an earlier cell's too" in n for n in imported.notes)
    parsed_lesson(imported.text, tmp_path / "twice", "spend")


def test_a_role_the_import_settles_is_reported_at_its_own_line(tmp_path: Path):
    """In a text notebook a Markdown cell spans many lines: each role's note names the
    line the role is on, not the first line of its cell."""
    imported = converted(tmp_path, "proofs.md", PROOFS, "Proofs")
    line = PROOFS.split("\n").index(next(x for x in PROOFS.split("\n") if "{cite}" in x)) + 1
    cite = next(note for note in imported.notes if "{cite}`Sargent2020`" in note)
    assert cite.startswith(f"line {line}:"), cite


MKDOCS = """# Training

!!! FAQ "What is JAX?"

    The numerical library, with a [link](https://jax.dev).

    ```python
    print("shown, never run")
    ```

??? tip

    Shown closed.

```{code-cell} ipython3
x = 1
```

```text
!!! note
    in code: as written
```
"""


def test_mkdocs_admonitions_become_myst_admonitions_of_the_closest_kind(tmp_path: Path):
    """MkDocs' `!!! kind "Title"` with its indented body (Equinox's notebooks) would show as
    a paragraph of markup and a code block: it becomes the admonition it means."""
    imported = converted(tmp_path, "mkdocs.md", MKDOCS, "Training")
    text = imported.text
    assert (
        ":::{note} What is JAX?\nThe numerical library, with a [link](https://jax.dev).\n\n"
        '```python norun\nprint("shown, never run")\n```\n:::' in text
    )
    assert ":::{tip} Tip\n:class: dropdown\nShown closed.\n:::" in text
    assert "```text\n!!! note\n    in code: as written\n```" in text
    assert any('!!! FAQ "What is JAX?" became {note} What is JAX?' in n for n in imported.notes)
    parsed_lesson(text, tmp_path, "mkdocs")


RAW_HTML = """---
kernelspec:
  name: python3
  language: python
---

# Raw

Look at the chart.

:::{raw} html
<iframe src="https://example.org/chart" style="width: 100%"></iframe>
:::

:::{raw} html
<p>Prices <b>rose</b>.</p>
:::

```{code-cell} python3
print(1)
```
"""


def test_html_in_a_colon_fenced_raw_block_is_settled_once_by_the_directive(tmp_path: Path):
    """CommonMark alone reads the body of `:::{raw} html` as HTML of the prose: shown as a
    code block there, then wrapped again by the directive, it broke the fences into an
    'unknown block' and a step numbering gap."""
    imported = converted(tmp_path, "raw.md", RAW_HTML, "Raw")
    assert "iframe" not in imported.text
    assert imported.text.count("```html\n<p>Prices <b>rose</b>.</p>\n```") == 1
    assert imported.text.count("```html") == 1
    assert any("holds HTML with no text" in note for note in imported.notes)
    parsed_lesson(imported.text, tmp_path, "raw")


SHARED_LABEL = """---
kernelspec:
  name: python3
  language: python
---

(growth)=
# Growth

The law of motion is

```{math}
:label: growth

k_{t+1} = s k_t^\\alpha
```

and {eq}`growth` with {ref}`the model <growth>` explains it; so does {eq}`the law <growth>`.

$$
y = k^\\alpha
$$ (eq-growth)

See {eq}`eq-growth`.

```{code-cell} python3
print(1)
```
"""


def test_an_equation_label_another_target_shares_is_renamed_with_its_references(
    tmp_path: Path,
):
    """Sphinx keeps equation labels apart from other labels; a lesson's are one set, where
    `(growth)=` and `:label: growth` were a duplicate target the build refused."""
    imported = converted(tmp_path, "growth.md", SHARED_LABEL, "Growth")
    parsed = parsed_lesson(imported.text, tmp_path, "growth")
    text = imported.text
    # The taken name `eq-growth` is not reused: the first equation's is numbered.
    assert "(eq-growth-2)=\n$$" in text
    assert "{ref}`(growth 2) <eq-growth-2>` with" in text
    assert "{ref}`the law <eq-growth-2>`" in text
    assert "{ref}`the model <growth>`" in text
    assert "$$ (eq-growth)\n\nSee {ref}`(growth) <eq-growth>`" in text
    labels = [target.label for target in parsed.targets]
    assert {"growth", "eq-growth", "eq-growth-2"} <= set(labels)
    assert len(labels) == len(set(labels))
    assert "line 12: equation label 'growth' is also the label" in "\n".join(imported.notes)


def imported_page(course_folder, notebook: Path, body: str):
    """`body` as a MyST notebook at `notebook`, imported into a course: the import's
    result and the notebook's lines."""
    notebook.write_text("---\nkernelspec:\n  name: python3\n  language: python\n---\n\n" + body)
    course_folder.write(authoring_example())
    result = course_folder.cli("import", str(notebook), "--phase", "02")
    assert result.returncode == 0, result.stderr
    return result, notebook.read_text().splitlines()


def test_a_code_cell_loaded_from_a_file_runs_that_files_code(course_folder, tmp_path: Path):
    """MyST-NB's `:load:` option (QuantEcon's lectures keep shared models in files so):
    the step holds the file's code, which later steps use; a file the checkout lacks and
    an option lessons have no place for are each a line of the report."""
    book = tmp_path / "book" / "lectures"
    (book / "_static" / "models").mkdir(parents=True)
    (book / "_config.yml").write_text("title: A book\n")
    (book / "_static" / "models" / "growth.py").write_text("class GrowthModel:\n    rate = 0.25\n")
    (book / "shared.py").write_text("def grown(x):\n    return x * (1 + GrowthModel.rate)\n")
    # QuantEcon's older lectures name the file with `:file:`, as classical_filtering does.
    (book / "_static" / "models" / "steps.py").write_text("STEPS = 3\n")
    result, lines = imported_page(
        course_folder,
        book / "page.md",
        "# Loaded models\n\nWords first.\n\n## The model\n\n"
        "```{code-cell} python3\n:load: /_static/models/growth.py\n```\n\n"
        "## Growing\n\n"
        "```{code-cell} python3\n:load: shared.py\n:linenos:\n```\n\n"
        "## Missing\n\n```{code-cell} python3\n:load: _static/models/absent.py\n```\n\n"
        "## Filed\n\n```{code-cell} python3\n:file: _static/models/steps.py\n```\n\n"
        "## Using them\n\n```{code-cell} python3\nprint(grown(4.0), STEPS)\n```\n",
    )
    fence = [n + 1 for n, row in enumerate(lines) if row == "```{code-cell} python3"]
    assert f"line {fence[0]}: the cell's code is loaded from _static/models/growth.py" in (
        result.stdout
    )
    assert f"line {fence[1]}: the {{code-cell}} option linenos, which lessons lack" in (
        result.stdout
    )
    assert (
        f"line {fence[2]}: the cell's code is to be loaded from _static/models/absent.py, "
        "which is not a file beside the notebook: the step is empty"
    ) in result.stdout
    (lesson,) = (course_folder.root / "content").glob("02-*/01-*.md")
    assert "class GrowthModel:\n    rate = 0.25" in lesson.read_text()
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    (page,) = (course_folder.root / "site").glob("*/loaded-models/index.html")
    assert "5.0 3" in page.read_text()
    assert "option file" not in result.stdout


def test_footnotes_defined_at_the_end_are_written_where_they_are_referred_to(
    course_folder, tmp_path: Path
):
    """QuantEcon's lectures define their footnotes under a last heading; a lesson shows
    each section's own, so each definition goes to every section that refers to it, and
    one already beside its reference stays."""
    result, lines = imported_page(
        course_folder,
        tmp_path / "notes.md",
        "# Footnoted\n\nTaxes smooth[^smooth] over time.\n\n## Model\n\n"
        "The planner[^smooth] chooses, and the state[^local] is known.\n\n"
        "[^local]: Known to everyone.\n\n"
        "```{code-cell} python3\nprint('taxed')\n```\n\n"
        "## Notes\n\n[^smooth]: Barro's idea,\nas first written in 1979.\n\n"
        "## Appendix\n\nMore on taxes.\n",
    )
    at = lines.index("[^smooth]: Barro's idea,") + 1
    assert f"line {at}: footnote [^smooth] is written in the section that refers to it" in (
        result.stdout
    )
    assert "footnote [^local]" not in result.stdout
    (lesson,) = (course_folder.root / "content").glob("02-*/01-*.md")
    text = lesson.read_text()
    assert text.count("[^smooth]: Barro's idea,\nas first written in 1979.") == 2
    assert text.count("[^local]: Known to everyone.") == 1
    assert text.index("[^smooth]: Barro") < text.index("## Model")
    assert "## Notes" not in text  # left over nothing once its footnote moved
    assert "## Appendix\n\nMore on taxes." in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    (page,) = (course_folder.root / "site").glob("*/footnoted/index.html")
    assert page.read_text().count("as first written in 1979.") == 2


def test_a_footnote_mark_defined_nowhere_is_its_text_as_myst_shows_it(
    course_folder, tmp_path: Path
):
    """nx-guides' assortativity guide writes its references as `[^1] M. E. J. Newman, ...`,
    a definition without its colon: MyST shows the text; the build refused a footnote with
    no definition. A mark in code, or one defined, is left alone."""
    result, lines = imported_page(
        course_folder,
        tmp_path / "marks.md",
        "# Marks\n\nMixing is measured[^2] here.\n\n"
        "```{code-cell} python3\nprint('[^1] in code')\n```\n\n"
        "Kept[^kept] too.\n\n[^kept]: A real note.\n\n"
        "[^1] M. E. J. Newman, Mixing patterns in networks\n\n[^2] Foster and others\n",
    )
    at = lines.index("Mixing is measured[^2] here.") + 1
    assert (
        f"line {at}: [^2] marks a footnote the notebook defines nowhere (a definition is a line "
        "'[^2]: the note'): it is shown as the text [^2], as MyST shows it"
    ) in result.stdout
    (lesson,) = (course_folder.root / "content").glob("02-*/01-*.md")
    text = lesson.read_text()
    assert "Mixing is measured\\[^2] here." in text
    assert "\\[^1] M. E. J. Newman" in text and "print('[^1] in code')" in text
    assert "Kept[^kept] too." in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    (page,) = (course_folder.root / "site").glob("*/marks/index.html")
    html = page.read_text()
    assert "[^1] M. E. J. Newman" in html and "measured[^2] here" in html


def test_a_literalinclude_of_a_file_in_the_checkout_is_shown_as_its_code(tmp_path: Path):
    """QuantEcon's amss shows its model's source with Sphinx's {literalinclude}: the file's
    text, as code in its language (Python is shown, never run), `:lines:` taken."""
    from coursesite.importers.includes import inline_includes

    book = tmp_path / "book" / "lectures"
    (book / "_static").mkdir(parents=True)
    (book / "_config.yml").write_text("title: A book\n")
    (book / "_static" / "model.py").write_text("import numpy\n\nclass Model:\n    pass\n")
    (book / "_static" / "table.csv").write_text("a,b\n1,2\n")
    notebook = book / "page.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Page\n\n"
        "```{literalinclude} _static/model.py\n:lines: 3-\n```\n\n"
        "```{literalinclude} /_static/table.csv\n:language: none\n```\n\n"
        "```{literalinclude} _static/absent.py\n```\n\n"
        "```{code-cell} python3\nprint(1)\n```\n"
    )
    cells = read_notebook(notebook)
    notes = inline_includes(cells, notebook)
    text = cells[0].source
    assert "```python norun\nclass Model:\n    pass\n```" in text
    assert "import numpy" not in text
    assert "```text\na,b\n1,2\n```" in text  # Sphinx's `none`: no highlighting
    assert "absent.py" not in text
    assert notes == [
        "line 9: {literalinclude} _static/model.py: the text of _static/model.py is shown as code",
        "line 13: {literalinclude} /_static/table.csv: the text of _static/table.csv is shown "
        "as code",
        "line 17: {literalinclude} _static/absent.py names a file the notebook's checkout does "
        "not hold (or one outside its project): it was left out; put the file there and "
        "import again, or write its code into the lesson",
    ]


def test_a_loose_footnote_mark_is_refused_and_an_escaped_one_is_text(tmp_path: Path):
    loose = authoring_example().replace(
        "# Understand\n\n", "# Understand\n\nA mark [^9] here.\n\n", 1
    )
    with pytest.raises(AssertionError, match=r"footnote \[\^9\] has no definition"):
        parsed_lesson(loose, tmp_path / "loose", "loose")
    escaped = loose.replace("A mark [^9]", "A mark \\[^9]")
    assert parsed_lesson(escaped, tmp_path / "escaped", "escaped")


def test_a_fence_of_no_language_but_a_space_is_prose_code(tmp_path: Path):
    """nx-guides' distance measures: "``` " opens a block of output shown in the prose, an
    info string of one space; the import stopped with an IndexError."""
    notebook = tmp_path / "spaced.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Spaced\n\nText.\n\n"
        "``` \n{0: 1}\n```\n\n```{code-cell} python3\nprint(1)\n```\n"
    )
    imported = convert(read_notebook(notebook), "Spaced", "spaced.md", "s.expected.yaml")
    assert "``` \n{0: 1}\n```" in imported.text


def test_footnote_definitions_on_consecutive_lines_are_two(course_folder, tmp_path: Path):
    """nx-guides' Euler page ends with `## References`, then `[^1]: ...` and `[^2]: ...` on
    the next line: the second starts a definition of its own (the import took it for the
    first's second line, and then called [^2] defined nowhere). Its first mark has a colon
    after it, in prose ("300 years ago [^1]:"): a reference all the same."""
    result, _ = imported_page(
        course_folder,
        tmp_path / "refs.md",
        "# Bridges\n\nA question was asked [^1]:\n\n> Can you cross each once?\n\n"
        "## Graph\n\nEuler[^2] drew it.\n\n"
        "```{code-cell} python3\nprint('drawn')\n```\n\n"
        "## References\n\n[^1]: The town's page.\n[^2]: Euler's paper, 1741.\n",
    )
    assert "defines nowhere" not in result.stdout
    (lesson,) = (course_folder.root / "content").glob("02-*/01-*.md")
    text = lesson.read_text()
    assert text.index("[^1]: The town's page.") < text.index("## Graph")
    assert text.index("## Graph") < text.index("[^2]: Euler's paper, 1741.")
    assert text.count("[^2]: Euler's paper") == 1
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


@pytest.mark.parametrize(
    ("file", "setting", "limit"),
    [
        ("_config.yml", "title: A book\nexecute:\n  timeout: 2400\n", 2400),
        ("conf.py", "project = 'A book'\nnb_execution_timeout = 900\n", 900),
        ("_config.yml", "title: A book\nexecute:\n  timeout: 60\n", None),
        ("_config.yml", "title: A book\nexecute:\n  timeout: -1\n", None),
    ],
)
def test_the_time_a_notebooks_project_gives_a_cell_becomes_the_lessons_own_limit(
    course_folder, tmp_path: Path, file, setting, limit
):
    """QuantEcon's lecture-python gives each cell 2400 s (`execute: timeout:`); the course
    lets a lesson run 120 s here: an imported lecture keeps the project's time as its own
    limit, in its front matter; a project that gives less (or no limit, -1) changes nothing."""
    book = tmp_path / "book" / "lectures"
    book.mkdir(parents=True)
    (book / file).write_text(setting)
    result, _ = imported_page(
        course_folder,
        book / "page.md",
        "# Slow\n\nIt takes long.\n\n```{code-cell} python3\nx = 1\n```\n",
    )
    lesson = next((course_folder.root / "content").glob("02-*/*.md")).read_text()
    front = yaml.safe_load(lesson.split("---\n")[1])
    assert front.get("timeout_seconds") == limit
    said = f"the lesson's front matter gives it timeout_seconds: {limit}"
    assert (said in result.stdout) == (limit is not None), result.stdout


@pytest.mark.parametrize(
    ("suffix", "own", "limit"),
    [
        (".ipynb", {"nbsphinx": {"timeout": 900}}, 900),
        (".ipynb", {"mystnb": {"execution_timeout": 1800}}, 1800),
        (".md", {"mystnb": {"execution_timeout": 1800}}, 1800),
        (".md", {"mystnb": {"execution_timeout": 60}}, None),
        (".md", {"nbsphinx": {"timeout": -1}}, 2400),
    ],
)
def test_a_notebooks_own_time_for_a_cell_wins_over_its_projects(
    course_folder, tmp_path: Path, suffix, own, limit
):
    """MyST-NB reads `mystnb: execution_timeout:` from a notebook's metadata (an .ipynb's,
    or a Markdown notebook's front matter) and nbsphinx `nbsphinx: timeout:`, over the
    project's time: the import does as they do. The project here gives 2400 s; a notebook
    that says less than the course's limit keeps the course's; one that says no limit (-1)
    says nothing, so the project's time holds."""
    import json

    book = tmp_path / "book" / "lectures"
    book.mkdir(parents=True)
    (book / "_config.yml").write_text("title: A book\nexecute:\n  timeout: 2400\n")
    notebook = book / f"page{suffix}"
    if suffix == ".ipynb":
        cells = [
            {"cell_type": "markdown", "metadata": {}, "source": "# Slow\n\nIt takes long."},
            {
                "cell_type": "code",
                "metadata": {},
                "source": "x = 1",
                "outputs": [],
                "execution_count": None,
            },
        ]
        kernel = {"name": "python3", "language": "python", "display_name": "Python 3"}
        notebook.write_text(
            json.dumps(
                {
                    "nbformat": 4,
                    "nbformat_minor": 5,
                    "cells": cells,
                    "metadata": {"kernelspec": kernel, **own},
                }
            )
        )
    else:
        front = yaml.safe_dump({"kernelspec": {"name": "python3", "language": "python"}, **own})
        notebook.write_text(
            f"---\n{front}---\n\n# Slow\n\nIt takes long.\n\n```{{code-cell}} python3\nx = 1\n```\n"
        )
    course_folder.write(authoring_example())
    result = course_folder.cli("import", str(notebook), "--phase", "02")
    assert result.returncode == 0, result.stderr
    lesson = next((course_folder.root / "content").glob("02-*/*.md")).read_text()
    front = yaml.safe_load(lesson.split("---\n")[1])
    assert front.get("timeout_seconds") == limit
    where = "in the notebook's metadata" if limit in (900, 1800) else "in _config.yml"
    assert (where in result.stdout) == (limit is not None), result.stdout
