import pytest
from bs4 import BeautifulSoup

from conftest import RecordingProgress, authoring_example, build_errors, line_of, replace_block
from coursesite.errors import BuildErrors
from coursesite.lesson.courseparse import parse_course
from coursesite.outputs.figures import figure_problems, render_svg
from coursesite.pipeline import build


def render(course_folder, text) -> dict[str, str]:
    """Build a one-lesson course through build(); return {site path: text} of its pages
    and figures."""
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    site = course_folder.root / "site"
    return {
        str(path.relative_to(site)): path.read_text()
        for path in site.rglob("*")
        if path.suffix in (".html", ".svg")
    }


def lesson_page(files) -> BeautifulSoup:
    return BeautifulSoup(files["basics/count-batches/index.html"], "html.parser")


def experiment(code: str, options: str = "", takeaway: str = "Takeaway.") -> str:
    block = (
        ":::{experiment} Drop the remainder\n:predict: p\n:expected: e\n"
        + options
        + "\n```python\n"
        + code
        + "\n```\n\n"
        + takeaway
        + "\n:::\n"
    )
    return replace_block(authoring_example(), ":::{experiment}", block)


def test_printed_html_is_escaped_never_executed(course_folder):
    page = lesson_page(render(course_folder, experiment('print("<script>alert(1)</script>")')))
    assert all(script.get("src") for script in page.find_all("script"))  # no inline script
    outputs = [pre.get_text() for pre in page.select("#drop-the-remainder .output pre")]
    assert outputs == ["<script>alert(1)</script>\n"]


def test_an_experiments_outcome_waits_for_the_reader_to_predict(course_folder):
    page = lesson_page(render(course_folder, experiment('print("eight survive")')))
    section = page.select_one("#drop-the-remainder")
    predict = section.select_one(".predict")
    gate = section.select_one(".predict-gate")
    outcome = gate.select_one(".gated")
    # The question, the code, the prediction box and its buttons come before the outcome.
    assert predict.find_next(class_="predict-gate") is gate
    assert section.select_one(".code-block").find_parent(class_="gated") is None
    assert gate.select_one(".portfolio textarea").find_next(class_="gated") is outcome
    assert gate.select_one("[data-gate-show]").get_text() == "Show what it printed"
    assert gate.select_one("[data-gate-skip]").get_text() == "Show without predicting"
    for shown in (".output", ".expected", ".takeaway"):
        assert outcome.select_one(shown) is not None, shown
        assert all(found.find_parent(class_="gated") for found in section.select(shown))
    # In the HTML the outcome is not hidden: without JavaScript, in print and in search it
    # is all there. What My learning keeps beside the prediction is what the run printed.
    assert not outcome.has_attr("hidden") and outcome.find_parent("details") is None
    assert gate["data-observed"] == "eight survive\n"
    assert gate["data-predict-gate"] == "drop-the-remainder-prediction"


@pytest.mark.parametrize("asks", [True, False])
def test_a_figure_waits_for_a_prediction_only_when_it_asks_for_one(course_folder, asks):
    text = authoring_example()
    alt = ":alt: Bar chart: two batches of four records and a final batch of three.\n"
    assert alt in text
    if asks:
        text = text.replace(alt, alt + ":predict: How tall is the last bar?\n")
    section = lesson_page(render(course_folder, text)).select_one("#batch-sizes")
    gate = section.select_one(".predict-gate")
    if not asks:
        assert gate is None and section.select_one("figure .figure-svg") is not None
        return
    outcome = gate.select_one(".gated")
    for shown in ("figure .figure-svg", "figcaption", "#batch-sizes-read"):
        assert outcome.select_one(shown) is not None, shown
    assert gate.select_one("[data-gate-show]").get_text() == "Show the figure"
    assert gate["data-observed"] == alt.removeprefix(":alt: ").strip()
    assert section.select_one(".figure-code").find_parent(class_="gated") is None


def test_raw_html_in_markdown_is_refused_at_its_line(course_folder):
    text = experiment("x = 1", takeaway='<script>bad()</script> and <b onclick="x">bold</b>')
    text = text.replace(":::{pause} What", ":::{pause} What <i>exactly</i>")
    errors = build_errors(course_folder, text)
    # A line that starts with <script> is one HTML block, reported once.
    assert [(error.line, error.message.split(" in ")[0]) for error in errors] == [
        (line_of(text, ":::{pause} What <i>"), "raw HTML '<i>'"),
        (line_of(text, "<script>bad()"), "raw HTML '<script>bad()</script> and <b onclick=\"x'"),
    ]


def test_html_comments_are_dropped_from_the_page(course_folder):
    text = authoring_example().replace("## The problem\n", "## The problem\n\n<!-- secret -->\n")
    files = render(course_folder, text)
    assert "secret" not in files["basics/count-batches/index.html"]


def test_math_becomes_mathml(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "$$\nv_{t+1} = \\mu v_t + g_t\n$$\n\nEleven records do not"
    )
    page = lesson_page(render(course_folder, text))
    block = page.find("math", attrs={"display": "block"})
    assert block is not None and block.find("msub") is not None
    inline = page.find("math", attrs={"display": "inline"})
    assert inline is not None and "11" in inline.get_text()


@pytest.mark.parametrize(
    "latex, rows, columns",
    [
        ("\\begin{align} a &= b \\\\ c &= d \\end{align}", 2, 3),  # and its numbers
        ("\\begin{eqnarray} a &=& b \\\\ c &=& d \\end{eqnarray}", 2, 3),
        ("\\begin{eqnarray*} x &\\le& y \\end{eqnarray*}", 1, 3),
        ("\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}", 2, 2),
        ("\\begin{alignedat}{2} a &= b \\\\ c &= d \\end{alignedat}", 2, 2),
        ("\\begin{gather} a = b \\\\ c = d \\end{gather}", 2, 1),
        ("\\begin{gathered} a \\\\ b \\\\ c \\end{gathered}", 3, 1),
        # A break outside any environment: MathJax shows the lines one under the other.
        ("x_{k+1} = x_k - g \\\\ y_{k+1} = y_k + g", 2, 1),
    ],
)
def test_multiline_math_that_mathjax_takes_is_a_table_of_rows(latex, rows, columns):
    from coursesite.markup.mathml import latex_to_mathml

    table = BeautifulSoup(latex_to_mathml(latex, display=True), "html.parser").find("mtable")
    assert len(table.find_all("mtr")) == rows
    assert {len(row.find_all("mtd")) for row in table.find_all("mtr")} == {columns}


def test_a_line_break_inside_a_group_or_inline_is_no_table():
    from coursesite.markup.mathml import latex_to_mathml

    for latex, display in (("{a \\\\ b}", True), ("a \\\\ b", False)):
        assert "<mtable" not in latex_to_mathml(latex, display=display)


def test_every_part_of_the_lesson_is_on_the_page(course_folder):
    page = lesson_page(render(course_folder, authoring_example()))
    stages = [s["id"] for s in page.select("section.stage")]
    assert stages == ["understand", "build-run", "experiment", "exercise-check", "evidence"]
    assert [h.get_text(" ", strip=True) for h in page.select(".step h3")] == [
        "1 Make the records",
        "2 Batch and check",
    ]
    recorded = page.select_one(".recorded-run .output pre").get_text()
    assert recorded == "Batch sizes: [4, 4, 3]\nPASS: count-batches\n"
    solution = page.select_one("#batch-by-three details.solution")
    assert solution is not None and not solution.has_attr("open")
    assert "assert [len(b) for b in threes]" in solution.get_text()
    answer = page.select_one("#check-your-understanding details.answer").get_text()
    assert "Answer 2" in answer and "Eleven is not a multiple of four." in answer
    environment = page.select_one(".environment").get_text()
    assert "numpy" in environment and "JAX not used" in environment


def test_declared_exception_is_shown_with_its_message(course_folder):
    text = experiment("raise ValueError('seed 99 does not match')", ":raises: ValueError")
    page = lesson_page(render(course_folder, text))
    raised = page.select_one("#drop-the-remainder .output-raised pre").get_text()
    assert raised == "ValueError: seed 99 does not match"


def test_figure_is_inline_svg_with_alt_text_and_links(course_folder):
    files = render(course_folder, authoring_example())
    page = lesson_page(files)
    drawing = page.select_one("#batch-sizes figure .figure-svg")
    assert drawing["role"] == "img"
    assert drawing["aria-label"].startswith("Bar chart: two batches")
    assert "batch 2" in [text.get_text() for text in drawing.select("svg text")]
    links = {a.get_text(): a["href"] for a in page.select("#batch-sizes .figure-links a")}
    full_size = files["basics/count-batches/" + links["Open full size (SVG)"]]
    assert full_size.strip() in files["basics/count-batches/index.html"]  # the same drawing
    assert links["Data and provenance (JSON)"] == "figures/batch-sizes.json"
    assert page.select_one(links["Code"]).name == "details"
    # lesson.md and the notebook keep the drawing under its block's name
    svg = files["basics/count-batches/figures/batch-sizes.svg"]
    assert svg.lstrip().startswith("<?xml") and "<text" in svg and "batch 2" in svg


def test_lesson_links_become_relative_urls(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "[Back to the problem](lesson:count-batches#the-problem). Eleven"
    )
    page = lesson_page(render(course_folder, text))
    link = page.find("a", string="Back to the problem")
    assert link["href"] == "index.html#the-problem"


def test_dead_lesson_link_is_a_build_error_with_line(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "[gone](lesson:count-batchez) Eleven records do not"
    )
    course = course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        parse_course(course)
    [error] = caught.value.errors
    assert "unknown lesson 'count-batchez' (did you mean 'count-batches'?)" in error.message
    assert error.line == line_of(text, "lesson:count-batchez")


def test_dead_anchor_is_a_build_error(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "[x](lesson:count-batches#the-problen) Eleven"
    )
    with pytest.raises(BuildErrors) as caught:
        parse_course(course_folder.write(text))
    assert "did you mean 'the-problem'" in caught.value.errors[0].message


def test_unusable_figure_data_names_the_figure_line(course_folder):
    text = authoring_example().replace('"values": sizes', '"values": sizes[:2]')
    [error] = build_errors(course_folder, text)
    assert "has 2 values for 3 'labels' entries" in error.message
    assert error.line == line_of(text, 'figure = {"kind": "bar"')


def test_svg_bytes_depend_only_on_the_data():
    data = {
        "kind": "line",
        "x": [0, 1, 2],
        "series": [{"label": "a", "values": [3, 1, 2]}],
        "xlabel": "position",
        "ylabel": "id",
        "separators": [1.5],
    }
    assert figure_problems(data) == []
    first, second = render_svg(data, "d"), render_svg(data, "d")
    assert first == second
    changed = dict(data, series=[{"label": "a", "values": [3, 2, 1]}])
    assert render_svg(changed, "d") != first


@pytest.mark.parametrize(
    "data, problem",
    [
        ({"kind": "pie", "x": [1], "series": []}, "line, scatter, bar, histogram, not 'pie'"),
        (
            {"kind": "line", "x": [1], "series": [{"values": [1], "style": "wavy"}]},
            "style 'wavy'; allowed: line, dashed, markers, points",
        ),
        (
            {"kind": "line", "x": [1], "series": [{"values": [1], "colour": "red"}]},
            "unknown keys ['colour']; allowed: ['label', 'values', 'style']",
        ),
        ({"kind": "bar", "labels": ["a"], "series": [{"values": [1], "style": "line"}]}, "only"),
        ({"kind": "histogram", "series": [{"values": [1]}], "bins": 0}, "'bins'"),
        # Data matplotlib would refuse with its own error, outside any lesson line.
        ({"kind": "histogram", "series": [{"values": [1]}], "bins": [3, 1, 2]}, "increasing"),
        (
            {"kind": "histogram", "series": [{"values": [1, float("inf")]}]},
            "not finite",
        ),
        ({"kind": "bar", "labels": [], "series": []}, "non-empty list 'labels'"),
        ({"kind": "line", "x": [1, 2], "series": [{"values": ["a", 1]}]}, "list of numbers"),
        ({"kind": "line", "x": [1], "series": [{"values": [1]}], "colour": "red"}, "unknown"),
    ],
)
def test_figure_problems_are_specific(data, problem):
    assert any(problem in message for message in figure_problems(data))
    if "increasing" in problem or "finite" in problem:
        with pytest.raises(ValueError):  # what drawing it would have done instead
            render_svg(data, "d")


def test_prediction_choices_are_offered_on_the_page_and_listed_in_the_downloads(course_folder):
    text = experiment('print("eight survive")', options=":choices: 8 | 11 | `None`\n")
    files = render(course_folder, text)
    gate = lesson_page(files).select_one("#drop-the-remainder .predict-gate")
    radios = gate.select(".prediction-choices input[type=radio]")
    assert [radio["value"] for radio in radios] == ["8", "11", "`None`"]
    assert len({radio["name"] for radio in radios}) == 1  # one group: one pick
    labels = gate.select(".prediction-choices label")
    assert labels[2].code is not None and labels[2].get_text(strip=True) == "None"
    # Shown by the script only where a pick can be saved, like the prediction box.
    assert gate.select_one(".prediction-choices").has_attr("hidden")
    folder = course_folder.root / "site" / "basics" / "count-batches"
    markdown = (folder / "lesson.md").read_text(encoding="utf-8")
    assert "**Predict before running:** p\n\n- [ ] 8\n- [ ] 11\n- [ ] `None`\n" in markdown
