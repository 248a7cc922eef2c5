"""Figures: data drawn by the build, matplotlib figures a block leaves open, and how a
page shows them (inline, allow-listed, with text as text)."""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import CourseFolder, authoring_example, build_errors, line_of, replace_block
from coursesite.figures import render_svg
from coursesite.markupaudit import audit_markup


def test_dollar_signs_in_labels_are_text_not_math():
    data = {
        "kind": "bar",
        "labels": ["costs $5", "b"],
        "xlabel": "price in $",
        "series": [{"label": "a", "values": [1, 2]}],
        "ylabel": "$ per run",
    }
    svg = render_svg(data, "Bar chart of prices")
    for text in ("costs $5", "price in $", "$ per run"):
        assert f">{text}</text>" in svg.replace("\n", "") or f">{text}\n" in svg, text


# -- matplotlib figures that a block leaves open ----------------------------------------

DRAWING = """\
import matplotlib.pyplot as plt

fig, axes = plt.subplots()
axes.scatter(ids, ids % 4, label="position in batch")
axes.plot(range(len(sizes)), sizes, label="batch size")
axes.set_xlabel("record ID")
axes.legend()
plt.show()
"""


def experiment_drawing(code: str = DRAWING, alt: str = ":alt: Record positions and sizes.\n"):
    block = (
        ":::{experiment} Drop the remainder\n:predict: p\n:expected: e\n"
        + alt
        + "\n```python\n"
        + code
        + "```\n\nTakeaway.\n:::\n"
    )
    return replace_block(authoring_example(), ":::{experiment}", block)


PAGE = "site/basics/count-batches/index.html"


def captured(folder: CourseFolder) -> tuple[str, BeautifulSoup]:
    html = (folder.root / PAGE).read_text(encoding="utf-8")
    return html, BeautifulSoup(html, "html.parser")


def drawn_svg(html: str) -> str:
    return re.search(r'<figure class="captured-figure">.*?</figure>', html, re.S).group(0)


def test_an_open_matplotlib_figure_is_shown_under_its_block(course_folder):
    course_folder.write(experiment_drawing())
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    html, page = captured(course_folder)
    [figure] = page.select("figure.captured-figure")  # closed once captured: shown once
    assert figure.find_parent("section")["id"] == "drop-the-remainder"
    drawing = figure.select_one(".figure-svg")
    assert drawing["aria-label"] == "Record positions and sizes."
    texts = [text.get_text() for text in drawing.select("svg text")]
    assert "record ID" in texts and "batch size" in texts  # text stays text
    assert not drawing.select("[style], style, script, image, metadata")
    assert audit_markup(html, "../../") == []
    full_size = figure.select_one(".figure-full-size")["href"]
    file = course_folder.root / "site/basics/count-batches" / full_size
    assert file.read_text(encoding="utf-8").strip() in html
    assert re.fullmatch(r"figures/[0-9a-f]{16}\.svg", full_size)

    first = file.read_bytes()
    again = course_folder.cli("-q", "--force")
    assert again.returncode == 0, again.stderr
    assert drawn_svg(captured(course_folder)[0]) == drawn_svg(html)  # byte for byte
    assert file.read_bytes() == first


@pytest.mark.parametrize(
    "data",
    [
        # counts of 1 and IDs 0..10: matplotlib's own ticks would read 0.2, 0.4, ...
        '{"kind": "histogram", "series": [{"label": "ids", "values": ids.tolist()}, '
        '{"label": "again", "values": ids.tolist()}], "xlabel": "record", "ylabel": "count"}',
        # batches 0..2 and sizes 3..4: its own ticks would read 0.25, 0.50, 3.2, ...
        '{"kind": "line", "x": [0, 1, 2], "series": [{"label": "records", "values": sizes}, '
        '{"label": "same", "values": sizes, "style": "points"}]}',
    ],
)
def test_integer_data_gets_integer_ticks(course_folder, data):
    text = authoring_example().replace(
        'figure = {"kind": "bar", "labels": ["batch 0", "batch 1", "batch 2"],\n'
        '          "series": [{"label": "records", "values": sizes}],\n'
        '          "xlabel": "batch", "ylabel": "records"}',
        "figure = " + data,
    )
    assert "figure = " + data in text
    course_folder.write(text)
    assert (result := course_folder.cli("-q")).returncode == 0, result.stderr
    _, page = captured(course_folder)
    ticks = [
        t.get_text()
        for t in page.select("#batch-sizes .figure-svg svg text")
        if re.fullmatch(r"[\u2212-]?[\d.]+", t.get_text())
    ]
    assert len(ticks) >= 4, ticks
    assert all("." not in tick for tick in ticks), ticks


@pytest.mark.parametrize(
    "payload, problem",
    [
        ("<script>alert(1)</script>", "element <script> is not one a figure may contain"),
        ('<image href="data:image/png;base64,AA=="/>', "element <image>"),
        ('<g onload="alert(1)"/>', "attribute 'onload' on <g> is not allowed"),
        ('<use href="https://example.com/x.svg#a"/>', "a figure may link only to its parts"),
        ('<path d="M0 0" style="fill: url(https://example.com/a)"/>', "refers outside"),
    ],
)
def test_a_figure_svg_outside_the_allowlist_stops_the_build(course_folder, payload, problem):
    """Lesson code runs in the process that saves its figures, so it can forge one."""
    forged = (
        "import matplotlib.pyplot as plt\n"
        "from matplotlib.figure import Figure\n\n"
        "class Forged(Figure):\n"
        "    def savefig(self, target, **options):\n"
        f"        target.write('<svg xmlns=\"http://www.w3.org/2000/svg\">{payload}</svg>')\n\n"
        "plt.figure(FigureClass=Forged)\n"
    )
    text = experiment_drawing(
        forged.replace("'", "\\'").replace("\\'<svg", "'<svg").replace("</svg>\\')", "</svg>')")
    )
    [error] = build_errors(course_folder, text)
    assert problem in error.message
    assert error.line == line_of(text, "import matplotlib.pyplot as plt")
