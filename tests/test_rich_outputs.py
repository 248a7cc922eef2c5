"""A block's last value shows its richest representation, as a notebook shows it: HTML
through the allowlist, PNG as a published file with its alt text, SVG and LaTeX inline,
Markdown without raw HTML; an imshow figure keeps its raster; a plugin adds a type."""

from __future__ import annotations

import base64
import json
import re

import pytest
from bs4 import BeautifulSoup

from conftest import CourseFolder, RecordingProgress, authoring_example, build_errors, line_of

PNG_ALT = "A four by two grid of grey levels, darkest at the top left."
IMSHOW_ALT = "Two heat maps of a three by four grid, brighter to the right, the second sharp."

RICH_STEPS = f"""
:::{{step}} 3. Show a table
```python
class Table:
    def _repr_html_(self):
        return (
            "<style>td {{ color: red }}</style>"
            '<table class="dataframe" border="1"><thead><tr style="text-align: right;">'
            "<th>batch</th><th>records</th></tr></thead><tbody>"
            '<tr><td onclick="steal()">0</td><td>4<script>alert(1)</script></td></tr>'
            '</tbody></table><a href="javascript:alert(2)">more</a>'
            '<img src="https://example.com/track.png">'
        )

    def __repr__(self):
        return "Table(plain)"


Table()
```
:::

:::{{step}} 4. Show a raster
:alt: {PNG_ALT}

```python
import io

import matplotlib.image


class Grid:
    def _repr_png_(self):
        buffer = io.BytesIO()
        matplotlib.image.imsave(buffer, np.arange(8).reshape(2, 4), format="png", cmap="gray")
        return buffer.getvalue()


Grid()
```
:::

:::{{step}} 5. Show a formula
```python
class Formula:
    def _repr_latex_(self):
        return r"$\\frac{{11}}{{4}}$"


Formula()
```
:::

:::{{step}} 6. Draw a grid
:alt: {IMSHOW_ALT}

```python
import matplotlib.pyplot as plt

fig, (smooth, sharp) = plt.subplots(1, 2)
smooth.imshow(np.arange(12).reshape(3, 4))
# Drawn pixel for pixel: matplotlib's SVG says so in a style (image-rendering: pixelated).
sharp.imshow(np.arange(12).reshape(3, 4), interpolation="none")
```
:::

:::{{step}} 7. Show an IPython image
:alt: {PNG_ALT}

```python
from IPython.display import Image

Image(data=Grid()._repr_png_())
```
:::
"""


def rich_lesson(steps: str = RICH_STEPS) -> str:
    text = authoring_example()
    marker = "# Experiment\n"
    assert text.count(marker) == 1
    return text.replace(marker, steps.lstrip("\n") + "\n" + marker)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from coursesite.pipeline import build

    folder = CourseFolder(tmp_path_factory.mktemp("rich"))
    folder.write(rich_lesson())
    build(folder.options(), RecordingProgress())
    page_path = next((folder.root / "site").rglob("count-batches/index.html"))
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    return folder, page_path, page


def test_a_repr_html_table_is_shown_as_a_table_with_nothing_that_runs(built):
    _, _, page = built
    shown = page.select_one("#step-3 .output-display .output-html")
    assert shown is not None, "the table's HTML is not shown"
    assert [th.get_text() for th in shown.select("th")] == ["batch", "records"]
    assert [td.get_text() for td in shown.select("td")] == ["0", "4"]
    markup = shown.decode_contents()
    for unsafe in ("<script", "alert(1)", "onclick", "style", "<img", "javascript:", "class="):
        assert unsafe not in markup, unsafe
    assert "Table(plain)" not in page.select_one("#step-3 .output-display").get_text()


def test_a_displayed_png_is_published_beside_the_page_under_its_digest(built):
    _, page_path, page = built
    image = page.select_one("#step-4 .output-display img")
    assert image is not None
    assert image["alt"] == PNG_ALT
    assert re.fullmatch(r"images/value-[0-9a-f]{16}\.png", image["src"])
    published = (page_path.parent / image["src"]).read_bytes()
    assert published.startswith(b"\x89PNG\r\n\x1a\n")
    from coursesite.files import short_digest

    assert image["src"] == f"images/value-{short_digest(published)}.png"


def test_an_ipython_image_shows_as_the_same_published_image(built):
    _, _, page = built
    ipython = page.select_one("#step-7 .output-display img")
    assert ipython is not None and ipython["alt"] == PNG_ALT
    assert ipython["src"] == page.select_one("#step-4 .output-display img")["src"]


def test_lesson_md_and_the_zip_show_a_displayed_image(built):
    import zipfile

    _, page_path, page = built
    src = page.select_one("#step-4 .output-display img")["src"]
    markdown = (page_path.parent / "lesson.md").read_text(encoding="utf-8")
    assert f"![{PNG_ALT}]({src})" in markdown
    with zipfile.ZipFile(page_path.parent / "count-batches.zip") as archive:
        assert archive.read(src) == (page_path.parent / src).read_bytes()


def test_latex_is_mathml_and_markdown_has_no_raw_html(built):
    _, _, page = built
    step = page.select_one("#step-5")
    assert step.select_one(".output-display math") is not None
    assert "\\frac" not in step.select_one(".output-display").get_text()


def test_markdown_value_is_rendered_without_raw_html(course_folder):
    from coursesite.pipeline import build

    steps = """
:::{step} 3. Say it in Markdown
```python
class Note:
    def _repr_markdown_(self):
        return "**eleven** records <b onmouseover=x>raw</b>"


Note()
```
:::
"""
    course_folder.write(rich_lesson(steps))
    build(course_folder.options(), RecordingProgress())
    page = BeautifulSoup(
        next((course_folder.root / "site").rglob("count-batches/index.html")).read_text(),
        "html.parser",
    )
    shown = page.select_one("#step-3 .output-display .output-html")
    assert shown.select_one("strong").get_text() == "eleven"
    assert shown.select("b") == [] and not shown.find(attrs={"onmouseover": True})
    assert "<b onmouseover=x>raw</b>" in shown.get_text()  # shown as the text it is


def test_a_representation_that_fails_is_said_on_stderr_and_the_text_shown(course_folder):
    """graphviz's SVG needs its `dot` program: without it the representation raises, the
    notebook shows the value's text and IPython says why on stderr; so does the page."""
    from coursesite.pipeline import build

    steps = """
:::{step} 3. Draw the model
```python
class Graph:
    def _repr_svg_(self):
        raise RuntimeError("failed to execute 'dot': is Graphviz installed?")

    def __repr__(self):
        return "Graph(3 nodes)"


Graph()
```
:::
"""
    course_folder.write(rich_lesson(steps))
    progress = RecordingProgress()
    build(course_folder.options(), progress)
    page = BeautifulSoup(
        next((course_folder.root / "site").rglob("count-batches/index.html")).read_text(),
        "html.parser",
    )
    assert page.select_one("#step-3 .output-display pre").get_text().strip() == "Graph(3 nodes)"
    said = page.select_one("#step-3 .output-stderr pre").get_text()
    assert said == (
        "_repr_svg_() of the value failed: RuntimeError: failed to execute 'dot': is "
        "Graphviz installed?\n"
    )


def test_an_imshow_figure_keeps_its_raster_inline(built):
    _, _, page = built
    images = page.select("#step-6 .captured-figure svg image")
    assert len(images) == 2
    for image in images:
        href = image["href"]
        assert href.startswith("data:image/png;base64,")
        assert base64.b64decode(href.partition(",")[2]).startswith(b"\x89PNG")
    assert images[1]["image-rendering"] == "pixelated" and not images[0].get("image-rendering")


def test_the_page_passes_the_markup_audit_and_a_data_url_elsewhere_does_not(built):
    from coursesite.markup.markupaudit import audit_markup

    _, page_path, _ = built
    assert audit_markup(page_path.read_text(encoding="utf-8"), "../../") == []
    png = "data:image/png;base64,iVBORw0KGgo="
    forged = f'<svg><image href="{png}"/></svg><img src="{png}"><a href="{png}">x</a>'
    findings = [finding.message for finding in audit_markup(forged)]
    assert findings == ["<img src> holds a data: URL", "<a href> holds a data: URL"]


def test_the_notebook_download_carries_the_whole_bundle(built):
    _, page_path, _ = built
    notebook = json.loads((page_path.parent / "lesson.ipynb").read_text(encoding="utf-8"))
    results = [
        output["data"]
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if output["output_type"] == "execute_result"
    ]
    table = next(data for data in results if "text/html" in data)
    assert table["text/plain"] == "Table(plain)"
    assert "<table>" in table["text/html"] and "<script" not in table["text/html"]
    png = next(data for data in results if "image/png" in data)
    assert base64.b64decode(png["image/png"]).startswith(b"\x89PNG")


def test_a_displayed_image_without_alt_text_stops_the_build(course_folder):
    steps = RICH_STEPS.replace(f":alt: {PNG_ALT}\n\n", "")
    text = rich_lesson(steps)
    errors = build_errors(course_folder, text)
    found = [e for e in errors if "displays an image" in e.message]
    assert [e.line for e in found] == [
        line_of(text, "import io"),
        line_of(text, "from IPython.display"),
    ]
    assert all("image/png" in e.message for e in found)


def test_a_forged_png_stops_the_build_at_its_block(course_folder):
    steps = """
:::{step} 3. Forge an image
:alt: Not an image at all.

```python
class Forged:
    def _repr_png_(self):
        return b"<svg onload=alert(1)>"


Forged()
```
:::
"""
    text = rich_lesson(steps)
    [error] = build_errors(course_folder, text)
    assert "is not a image/png image" in error.message
    assert error.line == line_of(text, "class Forged")


PLUGIN = """
from coursesite.outputs.displays import DisplayView


def render_json(data, context):
    return DisplayView("text", "application/json", text="JSON: " + data)


def register(api):
    api.output_renderer("application/json", render_json, priority=5)
"""


def test_a_plugin_adds_an_output_type(course_folder):
    from coursesite.pipeline import build

    steps = """
:::{step} 3. Show JSON
```python
class Config:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"application/json": '{"batch": 4}'}


Config()
```
:::
"""
    course_folder.write(rich_lesson(steps))
    (course_folder.root / "json_outputs.py").write_text(PLUGIN, encoding="utf-8")
    manifest = course_folder.manifest.read_text(encoding="utf-8")
    course_folder.manifest.write_text("plugins: [json_outputs]\n" + manifest, encoding="utf-8")
    try:
        build(course_folder.options(), RecordingProgress())
    finally:
        from coursesite.outputs.displays import unregister_renderer

        unregister_renderer("application/json")
    page = BeautifulSoup(
        next((course_folder.root / "site").rglob("count-batches/index.html")).read_text(),
        "html.parser",
    )
    assert 'JSON: {"batch": 4}' in page.select_one("#step-3 .output-display").get_text()


SVG_STEP = """
:::{step} 3. Draw a box
:alt: One square box.

```python
class Box:
    def _repr_svg_(self):
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
            '<rect id="box" width="20" height="20" fill="teal"/>%s</svg>'
        )


Box()
```
:::
"""


def test_a_displayed_svg_is_shown_inline_and_cleaned(course_folder):
    from coursesite.pipeline import build

    course_folder.write(rich_lesson(SVG_STEP.replace("%s", "")))
    build(course_folder.options(), RecordingProgress())
    page = BeautifulSoup(
        next((course_folder.root / "site").rglob("count-batches/index.html")).read_text(),
        "html.parser",
    )
    shown = page.select_one("#step-3 .output-display .output-svg")
    assert shown["aria-label"] == "One square box."
    assert shown.select_one("svg rect")["fill"] == "teal"


def test_a_displayed_svg_with_a_script_stops_the_build(course_folder):
    text = rich_lesson(SVG_STEP.replace("%s", "<script>alert(1)</script>"))
    [error] = build_errors(course_folder, text)
    assert "element <script>" in error.message
    assert error.line == line_of(text, "class Box")


def test_a_matplotlib_animation_plays_as_an_animated_png_with_no_script(course_folder):
    """`HTML(anim.to_jshtml())` (QuantEcon's Markov chains) is frames a script plays, and
    pages run no script: the page shows the same frames as one animated PNG, at the
    animation's interval, with the step's alt text."""
    steps = """
:::{step} 3. Watch the dot move
:alt: A dot moving right across the plot, one frame at a time.

```python
import matplotlib.pyplot as plt
from IPython.display import HTML
from matplotlib.animation import FuncAnimation

fig, ax = plt.subplots()
dot, = ax.plot([0], [0], "o")
ax.set_xlim(0, 3)


def move(frame):
    dot.set_data([frame], [0])
    return (dot,)


anim = FuncAnimation(fig, move, frames=range(4), interval=150)
plt.close()
HTML(anim.to_jshtml())
```
:::
"""
    from PIL import Image

    from coursesite.pipeline import build

    course_folder.write(rich_lesson(steps))
    build(course_folder.options(), RecordingProgress())
    page_path = next((course_folder.root / "site").rglob("count-batches/index.html"))
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    shown = page.select_one("#step-3 .output-display")
    image = shown.select_one("img")
    assert image["alt"] == "A dot moving right across the plot, one frame at a time."
    assert not shown.select("script") and "Animation(" not in shown.decode_contents()
    played = Image.open(page_path.parent / image["src"])
    assert played.format == "PNG" and played.is_animated and played.n_frames == 4
    assert abs(played.info["duration"] - 150) <= 1  # APNG keeps it as a fraction
