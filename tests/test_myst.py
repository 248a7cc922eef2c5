"""MyST constructs in a lesson, through the real build: admonitions, images, footnotes,
definition lists, targets and `{ref}`, `{doc}` and API roles, on the page and in the
Markdown and notebook downloads. (Refusals are cases of tests/bad/cases.yaml.)"""

import hashlib
import json

import pytest
from bs4 import BeautifulSoup

from conftest import RecordingProgress, authoring_example
from coursesite.markup.markupaudit import audit_markup
from coursesite.pipeline import build

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24  # the file's bytes; nothing decodes them

MYST_UNDERSTAND = """# Understand

(the-problem)=
## The problem

:::{tip} Count *first*
Eleven is not a multiple of four.[^why]

[^why]: 11 = 2 * 4 + 3.
:::

```{warning}
Dropping the remainder loses records.
```

::::{note} Read on only if curious
:class: dropdown
Batches shorter than the rest are normal.
::::

```{admonition} Hidden with the *toggle* class
:class: toggle tip
Its title is its label.
```

:::{admonition} A plain admonition
Set apart like a note.
:::

Epoch
: One pass over every record.

$$
11 = 2 \\cdot 4 + 3
$$ (eq:remainder)

![Three bars: four, four and three records](images/batches.png)

:::{figure} images/batches.png
:alt: The same bar chart, as a figure
The bars of {func}`jax.numpy.split`, see {ref}`the-problem` and {doc}`other`.
:::

<!-- a note to the authors: never shown -->

Text roles: {math}`11 = 2 \\cdot 4 + 3`, H{sub}`2`O, x{sup}`2`, press {kbd}`Ctrl+C`,
{abbr}`RNG (random number generator)`, a {term}`batch <glossary-batch>`, and
{py:class}`numpy.ndarray` with {obj}`jax.Array`.
"""

OTHER = """---
title: Another lesson
summary: It links back.
minutes: 5
hardware: cpu
outcomes: [Follow a reference.]
expected_result: The link resolves.
revision: v0.1.0
---

# Understand

See {ref}`the problem of batching <the-problem>`.

Its formula: {ref}`the remainder <eq:remainder>`.

# Build & Run

:::{step} 1. Print
```python
print("PASS: other")
```
:::

# Experiment

# Exercise & Check

# Evidence
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from conftest import CourseFolder

    folder = CourseFolder(tmp_path_factory.mktemp("myst"))
    text = authoring_example().replace("# Understand\n", MYST_UNDERSTAND, 1)
    folder.write(text, extra={"other": OTHER})
    (folder.root / "content" / "images").mkdir()
    (folder.root / "content" / "images" / "batches.png").write_bytes(PNG)
    manifest = folder.manifest.read_text().replace(
        "record_packages: [numpy]",
        'record_packages: [numpy]\n  api_docs: {jax: "https://docs.jax.dev/api/{name}.html"}',
    )
    folder.manifest.write_text(manifest)
    build(folder.options(), RecordingProgress())
    return folder.root / "site" / "basics"


def page(site, slug="count-batches"):
    return BeautifulSoup((site / slug / "index.html").read_text(), "html.parser")


def test_admonitions_are_labelled_in_words_and_a_dropdown_starts_closed(site):
    soup = page(site)
    tip = soup.select_one(".admonition-tip")
    assert tip["role"] == "note"
    title = soup.find(id=tip["aria-labelledby"])
    assert title.get_text() == "Tip: Count first" and title.em is not None
    warning = soup.select_one(".admonition-warning")  # the ```{warning} form
    assert warning.select_one(".admonition-title").get_text() == "Warning"
    dropdown = soup.select_one("details.admonition-note")
    assert dropdown.summary.get_text() == "Note: Read on only if curious"
    assert not dropdown.has_attr("open")


def test_a_myst_admonition_is_labelled_by_its_title_and_its_class_sets_its_look(site):
    soup = page(site)
    toggled = soup.select_one("details.admonition-tip")  # `:class: toggle tip`
    assert toggled.summary.get_text() == "Hidden with the toggle class"
    assert toggled.summary.em is not None and not toggled.has_attr("open")
    assert toggled.select_one(".admonition-label") is None
    plain = soup.find(id="a-plain-admonition")
    assert plain.name == "div" and "admonition-note" in plain["class"]
    assert soup.find(id=plain["aria-labelledby"]).get_text() == "A plain admonition"


def test_a_footnote_in_an_admonition_links_both_ways(site):
    tip = page(site).select_one(".admonition-tip")
    reference = tip.select_one("sup.footnote-ref a")
    note = tip.find(id=reference["href"][1:])
    assert "11 = 2 * 4 + 3." in note.get_text()
    assert tip.find(id=note.select_one(".footnote-backref")["href"][1:]) is reference


def test_images_are_copied_under_their_content_hash(site):
    soup = page(site)
    name = f"images/batches-{hashlib.sha256(PNG).hexdigest()[:12]}.png"
    sources = [img["src"] for img in soup.select(".prose img, figure.picture img")]
    assert sources == [name, name]
    assert (site / "count-batches" / name).read_bytes() == PNG
    figure = soup.select_one("figure.picture")
    assert figure.img["alt"] == "The same bar chart, as a figure"
    assert "The bars of" in figure.figcaption.get_text()


def test_roles_link_to_targets_lessons_and_api_docs(site):
    soup = page(site)
    caption = soup.select_one("figure.picture figcaption")
    links = {a.get_text(): a["href"] for a in caption.find_all("a")}
    assert links == {
        "jax.numpy.split": "https://docs.jax.dev/api/jax.numpy.split.html",
        "The problem": "index.html#the-problem",
        "Another lesson": "../other/index.html",
    }
    assert soup.find(id="the-problem") is not None
    back = page(site, "other").select_one(".prose a")
    assert back["href"] == "../count-batches/index.html#the-problem"
    assert back.get_text() == "the problem of batching"


def test_a_labelled_formula_is_a_target_references_reach(site):
    """MyST's `$$ (label)` after display math: the page gives the formula that id, and a
    {ref} from another lesson links to it."""
    formula = page(site).find(id="eq:remainder")
    assert formula is not None and formula.find("math") is not None
    link = page(site, "other").find("a", string="the remainder")
    assert link["href"] == "../count-batches/index.html#eq:remainder"


def test_myst_text_roles_render_as_their_elements(site):
    paragraph = next(
        p for p in page(site).select(".prose p") if p.get_text().startswith("Text roles")
    )
    assert paragraph.select_one("math") is not None
    assert [e.get_text() for e in paragraph.select("sub, sup, kbd")] == ["2", "2", "Ctrl+C"]
    abbreviation = paragraph.select_one("abbr")
    assert (abbreviation.get_text(), abbreviation["title"]) == ("RNG", "random number generator")
    assert "a batch," in paragraph.get_text() and "glossary" not in paragraph.get_text()
    codes = [code.get_text() for code in paragraph.select("code")]
    assert codes == ["numpy.ndarray", "jax.Array"]


def test_definition_lists_show_and_comments_vanish(site):
    html = (site / "count-batches" / "index.html").read_text()
    soup = BeautifulSoup(html, "html.parser")
    assert soup.select_one(".prose dl dt").get_text() == "Epoch"
    assert "note to the authors" not in html


def test_pages_with_myst_pass_the_markup_audit(site):
    for slug in ("count-batches", "other"):
        assert audit_markup((site / slug / "index.html").read_text(), "../../") == []


def test_the_markdown_download_and_notebook_keep_the_constructs(site):
    markdown = (site / "count-batches" / "lesson.md").read_text()
    name = f"images/batches-{hashlib.sha256(PNG).hexdigest()[:12]}.png"
    assert "> **Tip: Count *first***" in markdown
    assert "> Eleven is not a multiple of four.[^why]" in markdown
    assert "<details><summary>Note: Read on only if curious</summary>" in markdown
    assert "<details><summary>Hidden with the *toggle* class</summary>" in markdown
    assert "> **A plain admonition**\n>\n> Set apart like a note." in markdown
    assert f"![Three bars: four, four and three records]({name})" in markdown
    assert f"![The same bar chart, as a figure]({name})" in markdown
    assert "[`jax.numpy.split`](https://docs.jax.dev/api/jax.numpy.split.html)" in markdown
    assert "[Another lesson](../other/index.html)" in markdown
    assert "(the-problem)=" not in markdown and "note to the authors" not in markdown
    notebook = json.loads((site / "count-batches" / "lesson.ipynb").read_text())
    cells = "\n".join(cell["source"] for cell in notebook["cells"])
    assert "> **Warning**" in cells and f"]({name})" in cells


def test_an_image_changed_since_the_last_build_is_published_under_its_new_name(course_folder):
    """Image digests are kept between builds while a file's size, time and inode hold
    (caches.ImageDigests): a file rewritten since, even to the same size, is read again."""
    text = authoring_example().replace(
        "# Understand\n", "# Understand\n\n![Three bars](images/batches.png)\n", 1
    )
    course_folder.write(text)
    image = course_folder.root / "content" / "images" / "batches.png"
    image.parent.mkdir()
    image.write_bytes(PNG)
    build(course_folder.options())
    changed = PNG[:-1] + b"\x01"  # the same size
    image.write_bytes(changed)
    build(course_folder.options())
    lesson = course_folder.root / "site" / "basics" / "count-batches"
    soup = BeautifulSoup((lesson / "index.html").read_text(), "html.parser")
    name = f"images/batches-{hashlib.sha256(changed).hexdigest()[:12]}.png"
    assert soup.select_one(".prose img")["src"] == name
    assert (lesson / name).read_bytes() == changed
