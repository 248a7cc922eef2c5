"""Figures: data drawn by the build, matplotlib figures a block leaves open, and how a
page shows them (inline, allow-listed, with text as text)."""

import itertools
import json
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import (
    CourseFolder,
    RecordingProgress,
    authoring_example,
    build_errors,
    build_lesson,
    everything_readable,
    line_of,
    replace_block,
)
from coursesite.execution import records
from coursesite.markup.markupaudit import audit_markup
from coursesite.outputs.figures import figure_problems, render_svg
from coursesite.pipeline import build


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


def test_a_log_axis_spans_powers_of_ten_with_tick_labels_for_them():
    data = {
        "kind": "line",
        "x": [1, 2, 3],
        "series": [{"label": "gap", "values": [1e-2, 1e-5, 1e-7]}],
        "yscale": "log",
    }
    assert figure_problems(data) == []
    svg = render_svg(data, "The gap falls from 1e-2 to 1e-7")
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "10⁻⁷" in labels and "10⁻²" in labels, labels
    assert not any("$" in label for label in labels)  # no TeX shown as typed


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"yscale": "logarithmic"}, "'yscale' must be one of linear, log, not 'logarithmic'"),
        ({"yscale": "log", "series": [{"label": "g", "values": [1, 0, 2]}]}, "positive numbers"),
        ({"xscale": "log", "x": [0, 1, 2]}, "positive numbers"),
    ],
)
def test_a_log_axis_refuses_what_it_cannot_show(change, problem):
    data = {"kind": "line", "x": [1, 2, 3], "series": [{"label": "g", "values": [1, 2, 3]}]}
    assert any(problem in p for p in figure_problems({**data, **change}))


def test_a_bar_figure_keeps_a_linear_x():
    data = {"kind": "bar", "labels": ["a"], "series": [{"values": [1]}], "xscale": "log"}
    assert figure_problems(data) == ["'xscale': log is for line and scatter figures, not bar"]


# -- matplotlib figures that a block leaves open ----------------------------------------

LEGEND = """\
import matplotlib.pyplot as plt

fig, axes = plt.subplots()
for n in (64, 16):
    axes.plot([1, 2, 3], [n, n / 2, n / 4], label=f"batch {n}")
axes.legend(loc="center left", bbox_to_anchor=(ANCHOR, 0.5))
"""


def legend_figure(course_folder, anchor: float):
    """The SVG of a two-line figure whose legend is placed at `anchor` (1.0: past the
    figure's right edge), as the lesson's build captured it, and the build's warnings."""
    text = (
        authoring_example()
        .replace(
            'print("Batch sizes:", sizes)\n',
            'print("Batch sizes:", sizes)\n' + LEGEND.replace("ANCHOR", str(anchor)),
            1,
        )
        .replace(
            ":::{step} 2. Batch and check\n", ":::{step} 2. Batch and check\n:alt: Two lines\n"
        )
    )
    course_folder.write(text)
    result = build(course_folder.options(force=True), RecordingProgress())
    record = records.load(course_folder.root / "records", "count-batches").record
    (svg,) = [svg for block in record.blocks.values() for svg in block.captured_svgs]
    return svg, result.warnings


def test_a_legend_drawn_past_the_figures_edge_is_shown_whole_as_a_notebook_shows_it(
    course_folder,
):
    """A notebook's inline backend saves a figure in a box that holds all it drew: a legend
    placed past the edge widens the picture instead of being cut ("batch 1" of "batch 16")."""
    inside, _ = legend_figure(course_folder, 0.55)
    outside, warnings = legend_figure(course_folder, 1.0)

    def width(svg: str) -> float:
        return float(re.search(r'<svg[^>]* width="([\d.]+)pt"', svg).group(1))

    assert width(outside) > width(inside) + 40  # the legend, beside the axes
    assert "batch 64" in outside and "batch 16" in outside
    assert not [w for w in warnings if "edge" in w.message]


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
        ('<image href="data:image/png;base64,AA=="/>', "is not the image/png it says it is"),
        ('<image href="https://example.com/a.png"/>', "may only hold a PNG or JPEG inline"),
        ('<image href="data:image/svg+xml;base64,PHN2Zz4="/>', "PNG or JPEG inline"),
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
    text = experiment_drawing(forged)
    [error] = build_errors(course_folder, text)
    assert problem in error.message
    assert error.line == line_of(text, "import matplotlib.pyplot as plt")


# -- captured figures in the downloads, and in the student edition ------------------------

STEP_ALT = "Bar chart [step 2]: batches of 4, 4 and 3 records."
SOLUTION_ALT = "Bar chart of the solution's batch sizes: 3, 3, 3 and 2."
DRAWING_STEP = f"""\
:::{{step}} 2. Batch and check
:alt: {STEP_ALT}

```python
import matplotlib.pyplot as plt

batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]
sizes = [len(b) for b in batches]
assert sizes == [4, 4, 3]
print("PASS: count-batches")
fig, axes = plt.subplots()
axes.bar(range(len(sizes)), sizes)
axes.set_xlabel("batch in the step")
plt.figure().gca().set_xlabel("second figure of the step")
```
:::
"""
DRAWING_SOLUTION = f"""\
::::{{exercise}} Batch by three
:kind: make-it-yours
:alt: {SOLUTION_ALT}

Batch the same IDs by three and check the sizes.

```python scaffold
threes = ...  # TODO: batches of three
```

```python solution
threes = [ids[i:i + 3] for i in range(0, len(ids), 3)]
fig, axes = plt.subplots()
axes.bar(range(len(threes)), [len(b) for b in threes])
axes.set_xlabel("batch in the solution")
```
::::
"""
LESSON = "basics/count-batches"


@pytest.fixture(scope="module")
def editions(tmp_path_factory) -> tuple[Path, Path]:
    """The folders of one lesson, built into the full and the student edition by the CLI:
    its step 2 draws a figure, and so does its exercise's solution."""
    folder = CourseFolder(tmp_path_factory.mktemp("drawing-course"))
    text = replace_block(authoring_example(), ":::{step} 2.", DRAWING_STEP)
    folder.write(replace_block(text, "::::{exercise}", DRAWING_SOLUTION))
    for arguments in (("-q",), ("-q", "--edition", "student", "--out", "student")):
        result = folder.cli(*arguments)
        assert result.returncode == 0, result.stderr
    return folder.root / "site" / LESSON, folder.root / "student" / LESSON


def full_size_links(folder: Path, section: str) -> list[str]:
    """The full-size files the lesson page links under the captured figures of a section."""
    page = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    return [
        link["href"] for link in page.select(f"#{section} figure.captured-figure .figure-full-size")
    ]


def code_cell(notebook: dict, fragment: str) -> dict:
    [cell] = [c for c in notebook["cells"] if c["cell_type"] == "code" and fragment in c["source"]]
    return cell


def read_notebook(path: Path) -> dict:
    nbformat.validate(nbformat.read(path, as_version=4))
    return json.loads(path.read_text(encoding="utf-8"))


def test_notebooks_show_each_captured_figure_after_the_cells_other_outputs(editions):
    full, _ = editions
    notebook = read_notebook(full / "lesson.ipynb")
    step = code_cell(notebook, 'axes.set_xlabel("batch in the step")')
    assert [o["output_type"] for o in step["outputs"]] == [
        "stream",
        "execute_result",
        "display_data",
        "display_data",
    ]
    drawn = [o["data"] for o in step["outputs"][2:]]
    assert [d["text/plain"] for d in drawn] == [STEP_ALT, STEP_ALT]
    # The sanitised SVGs the page links to at full size, byte for byte, in the order drawn.
    assert [d["image/svg+xml"] for d in drawn] == [
        (full / link).read_text(encoding="utf-8") for link in full_size_links(full, "step-2")
    ]
    assert ">batch in the step<" in drawn[0]["image/svg+xml"]
    assert ">second figure of the step<" in drawn[1]["image/svg+xml"]

    solution = code_cell(notebook, 'axes.set_xlabel("batch in the solution")')
    [drawn] = [o["data"] for o in solution["outputs"] if o["output_type"] == "display_data"]
    assert drawn["text/plain"] == SOLUTION_ALT
    [solution_link] = full_size_links(full, "batch-by-three")
    assert drawn["image/svg+xml"] == (full / solution_link).read_text(encoding="utf-8")

    student = read_notebook(full / "lesson-student.ipynb")
    assert code_cell(student, "batch in the step")["outputs"] == step["outputs"]
    assert "batch in the solution" not in json.dumps(student)


MARKDOWN_IMAGE = re.compile(r"!\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)\)")


def lesson_md_images(folder: Path) -> dict[str, list[str]]:
    """lesson.md's images: alt text, with Markdown's escapes undone -> files linked."""
    text = (folder / "lesson.md").read_text(encoding="utf-8")
    images: dict[str, list[str]] = {}
    for alt, link in MARKDOWN_IMAGE.findall(text):
        images.setdefault(re.sub(r"\\(.)", r"\1", alt), []).append(link)
    return images


def test_lesson_md_shows_captured_figures_from_files_in_the_site_and_the_zip(editions):
    full, _ = editions
    images = lesson_md_images(full)
    # The page's own files, in the order drawn.
    assert images[STEP_ALT] == full_size_links(full, "step-2")
    assert images[SOLUTION_ALT] == full_size_links(full, "batch-by-three")
    with zipfile.ZipFile(full / "count-batches.zip") as archive:
        for link in [link for links in images.values() for link in links]:  # {figure}s too
            assert archive.read(link) == (full / link).read_bytes(), link


def test_student_edition_leaves_out_what_solutions_drew_everywhere(editions):
    full, student = editions
    # The control: the full edition shows the solution's figure on the page.
    assert full_size_links(full, "batch-by-three")
    assert full_size_links(student, "step-2") == full_size_links(full, "step-2")
    assert full_size_links(student, "batch-by-three") == []
    assert "batch in the solution" not in everything_readable(student.parent.parent)
    assert set(lesson_md_images(student)) == set(lesson_md_images(full)) - {SOLUTION_ALT}
    step = code_cell(read_notebook(student / "lesson.ipynb"), "batch in the step")
    assert step["outputs"][-1]["data"]["text/plain"] == STEP_ALT
    with zipfile.ZipFile(student / "count-batches.zip") as archive:
        assert set(full_size_links(full, "step-2")) <= set(archive.namelist())
    shown = {f"figures/{path.name}" for path in (student / "figures").glob("*.svg")}
    assert shown == {f"figures/{path.name}" for path in (full / "figures").glob("*.svg")} - set(
        full_size_links(full, "batch-by-three")
    )


def test_long_labels_wrap_so_that_none_runs_past_the_figure_or_into_its_neighbour():
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    data = {
        "kind": "bar",
        "labels": ["at 0%", "at 1/3", "at 2/3", "after last byte", "not killed"],
        "series": [
            {"label": "in-place writer", "values": [0, 0, 0, 3, 3]},
            {"label": "temporary name, rename, manifest", "values": [2, 2, 2, 2, 3]},
        ],
        "xlabel": "when the child process saving step 3 of the run was killed",
        "ylabel": "newest step the restore found afterwards",
    }
    svg = ElementTree.fromstring(render_svg(data, "Bars of restored steps"))
    height = float(svg.get("viewBox").split()[3])
    measure = TextToPath()

    def width(text: str) -> float:
        return measure.get_text_width_height_descent(text, FontProperties(size=11), False)[0]

    texts = [t for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.text]
    upright, along_y = [], []
    for text in texts:
        transform = text.get("transform", "")
        if transform.startswith("translate("):  # a line of wrapped text, placed by its start
            x, y = (float(v) for v in transform[10:].split(")")[0].split())
            middle = (x + width(text.text) / 2, y)
        else:  # one line, placed by its middle
            x, y = float(text.get("x")), float(text.get("y"))
            middle = (x, y)
        if "rotate(-90" not in transform:
            upright.append((*middle, text.text))
        elif transform.startswith("translate("):  # runs up from where it starts
            along_y.append((y - width(text.text), y, text.text))
        else:
            along_y.append((y - width(text.text) / 2, y + width(text.text) / 2, text.text))
    ylabel = [t for _, _, t in along_y]
    assert " ".join(ylabel) == data["ylabel"] and len(ylabel) > 1  # wrapped, nothing lost
    for low, high, text in along_y:
        assert low >= 0 and high <= height, text
    first_row = min(y for _, y, text in upright if text == "at 0%")
    ticks = sorted((x, text) for x, y, text in upright if abs(y - first_row) < 4)
    assert [text for _, text in ticks] == ["at 0%", "at 1/3", "at 2/3", "after", "not"]
    for (x1, left), (x2, right) in itertools.pairwise(ticks):
        assert x1 + width(left) / 2 < x2 - width(right) / 2, (left, right)


@pytest.mark.parametrize(
    ("change", "cut"),
    [
        # One word too long for the figure's width: no wrapping can save it.
        ('"xlabel": "batch"', '"xlabel": "' + "batch_index_" * 8 + '"'),
        # Words that fit once wrapped at spaces: a long title is not cut.
        ('"xlabel": "batch"', '"xlabel": "batch", "title": "' + "records per batch " * 6 + '"'),
    ],
)
def test_figure_data_whose_text_is_cut_at_its_edge_is_a_warning_at_its_code(
    course_folder, change, cut
):
    text = authoring_example()
    assert change in text
    text = text.replace(change, cut)
    course_folder.write(text)
    result = build(course_folder.options(), RecordingProgress())
    warnings = [w for w in result.warnings if "draws text past its edge" in w.message]
    if "title" in cut:
        assert warnings == []
        return
    [warning] = warnings
    assert warning.message == (
        "figure 'Batch sizes' draws text past its edge, which the page shows cut: "
        f"'{'batch_index_' * 8}'"
    )
    assert warning.line == line_of(text, "figure = {")
    assert "put spaces into it" in warning.hint


def test_a_code_edit_that_keeps_the_figure_data_does_not_draw_it_to_find_cut_text(
    course_folder, monkeypatch
):
    """The cut-text warning of unchanged figure data comes from the figure cache: drawing
    it again took matplotlib's import (0.4 s) on every code edit of the lesson."""
    text = authoring_example().replace('"xlabel": "batch"', '"xlabel": "' + "batch_" * 12 + '"')
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    course_folder.write(
        text.replace('print("PASS: count-batches")', 'print("PASS: count-batches")  # edited')
    )

    def no_drawing(data):
        raise AssertionError("the figure was drawn again")

    monkeypatch.setattr("coursesite.outputs.figures.cut_words", no_drawing)
    result = build(course_folder.options(), RecordingProgress())
    assert result.executed == ["count-batches"]
    [warning] = [w for w in result.warnings if "draws text past its edge" in w.message]
    assert "batch_" * 12 in warning.message


def _drawn_in_step_two(course_folder, code: str) -> list[str]:
    """The SVGs of the figures the authoring example's step 2 shows with `code` added."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)\n', 'print("Batch sizes:", sizes)\n' + code, 1
    )
    text = text.replace(
        ":::{step} 2. Batch and check\n", ":::{step} 2. Batch and check\n:alt: Lines\n"
    )
    return build_lesson(course_folder, text).blocks["step-2"].captured_svgs


def test_plt_show_ends_a_figure_as_a_notebook_shows_it(course_folder):
    """A step that plots, calls plt.show(), then plots again shows two figures, in that
    order, as a notebook's inline backend shows them; before, the second drawing went
    into the first figure and one of the two was lost."""
    svgs = _drawn_in_step_two(
        course_folder,
        "import matplotlib.pyplot as plt\n"
        "plt.plot([1, 2, 3], label='first drawing')\nplt.legend()\nplt.show()\n"
        "plt.plot([3, 2, 1], label='second drawing')\nplt.legend()\n",
    )
    assert len(svgs) == 2
    assert "first drawing" in svgs[0] and "second drawing" not in svgs[0]
    assert "second drawing" in svgs[1] and "first drawing" not in svgs[1]


def test_plt_show_without_blocking_leaves_the_figure_to_draw_on(course_folder):
    """Matplotlib's blitting tutorial calls plt.show(block=False), then copies the canvas
    and draws on: the figure stays open (it was closed, and its canvas lost its renderer),
    and is shown once, as it is when the step ends."""
    [svg] = _drawn_in_step_two(
        course_folder,
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()\nplt.show(block=False)\n"
        "background = fig.canvas.copy_from_bbox(fig.bbox)\n"
        "ax.plot([3, 2, 1], label='drawn after show')\nax.legend()\n",
    )
    assert "drawn after show" in svg


def test_a_draw_callback_that_refuses_other_canvases_does_not_lose_the_figure(course_folder):
    """Matplotlib's blitting tutorial raises in its draw callback for any canvas but the
    figure's own, and the SVG of the page is drawn on another: the figure is saved without
    that callback, as sphinx-gallery's PNG shows it."""
    [svg] = _drawn_in_step_two(
        course_folder,
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()\nax.plot([3, 2, 1], label='blitted line')\nax.legend()\n"
        "canvas = fig.canvas\n"
        "def on_draw(event):\n    if event.canvas is not canvas:\n        raise RuntimeError\n"
        "fig.canvas.mpl_connect('draw_event', on_draw)\nfig.canvas.draw()\n",
    )
    assert "blitted line" in svg


def test_a_figure_that_cannot_be_saved_is_named_at_the_drawing_code_that_failed(course_folder):
    """Matplotlib's blend-groups guide draws with a renderer method newer matplotlib has:
    the failure is at the lesson's line that calls it, with the hint for another version,
    not at the block's first line with "fix the code"."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)\n',
        'print("Batch sizes:", sizes)\n'
        "import matplotlib.pyplot as plt\nfrom matplotlib.artist import Artist\n"
        "class Grouped(Artist):\n"
        "    def draw(self, renderer):\n"
        "        renderer.open_blend_group('multiply')\n"
        "fig, ax = plt.subplots()\nfig.add_artist(Grouped())\n",
        1,
    )
    text = text.replace(
        ":::{step} 2. Batch and check\n", ":::{step} 2. Batch and check\n:alt: Lines\n"
    )
    [error] = build_errors(course_folder, text)
    assert error.line == line_of(text, "renderer.open_blend_group")
    assert error.message.endswith(
        "the figure it drew cannot be saved as SVG: AttributeError: 'RendererSVG' object "
        "has no attribute 'open_blend_group'"
    )
    assert "code written for another version of matplotlib" in error.hint


def test_the_backend_a_step_prints_is_the_one_the_readers_main_py_prints(course_folder):
    """sphinx-gallery's unicode example prints all of rcParams: the build showed its own
    capturing backend (`module://…`), the reader's main.py prints Agg, and the build refused
    the lesson for a difference the lesson did not make. Figures are still captured at
    plt.show()."""
    text = (
        authoring_example()
        .replace(
            'print("Batch sizes:", sizes)\n',
            'print("Batch sizes:", sizes)\nimport matplotlib\nimport matplotlib.pyplot as plt\n'
            'print("backend", matplotlib.get_backend(), plt.rcParams["backend"])\n'
            "plt.plot([1, 2])\nplt.show()\nplt.plot([2, 1])\n",
            1,
        )
        .replace(":::{step} 2. Batch and check\n", ":::{step} 2. Batch and check\n:alt: Lines\n")
    )
    step = build_lesson(course_folder, text).blocks["step-2"]  # main.py's run agrees
    assert "backend Agg Agg" in step.stdout
    assert len(step.captured_svgs) == 2
