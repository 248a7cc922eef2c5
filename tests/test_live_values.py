"""`{value}`expression`` in prose: computed by the lesson's own run, never typed by hand."""

from bs4 import BeautifulSoup

from conftest import RecordingProgress, authoring_example, build_errors, build_lesson, line_of
from coursesite.pipeline import build

PAGE = "site/basics/count-batches/index.html"
SENTENCE = "The sizes are {value}`sizes` and the last batch holds {value}`batches[-1].tolist()`."


def with_values(sentence: str = SENTENCE) -> str:
    return authoring_example().replace(
        "Eleven records do not divide", sentence + "\n\nEleven records do not divide"
    )


def test_values_are_computed_in_the_lessons_namespace_and_shown_escaped(course_folder):
    record = build_lesson(course_folder, with_values(SENTENCE + " Tag: {value}`'<b>'`"))
    assert record.values == {
        "sizes": "[4, 4, 3]",
        "batches[-1].tolist()": "[8, 9, 10]",
        "'<b>'": "<b>",
    }
    page = BeautifulSoup((course_folder.root / PAGE).read_text(), "html.parser")
    shown = [span.get_text() for span in page.select(".live-value")]
    assert shown == ["[4, 4, 3]", "[8, 9, 10]", "<b>"]
    assert page.find("b") is None


def test_a_failing_expression_names_file_and_line(course_folder):
    text = with_values("Missing: {value}`no_such_name + 1`.")
    [error] = build_errors(course_folder, text)
    assert error.line == line_of(text, "no_such_name")
    assert "live value `no_such_name + 1` failed: NameError" in error.message


def test_a_failing_expression_on_a_paragraphs_third_line_names_that_line(course_folder):
    """Inline nodes carry no line of their own: each line break before one counts."""
    text = with_values(
        "The sizes, with *emphasis*\nand a `code span`, are {value}`sizes`,\n"
        "and what is missing is {value}`no_such_name + 1`\nin the last line."
    )
    [error] = build_errors(course_folder, text)
    assert error.line == line_of(text, "no_such_name") == line_of(text, "The sizes, with") + 2
    assert "live value `no_such_name + 1` failed: NameError" in error.message


def test_a_broken_expression_after_a_hard_break_names_its_line(course_folder):
    text = with_values("The sizes are\\\nhere: {value}`sizes[`.")
    [error] = build_errors(course_folder, text)
    assert "is not a Python expression" in error.message and error.line == line_of(text, "sizes[")
    assert error.line == line_of(text, "The sizes are") + 1


def test_an_expression_that_is_not_python_is_a_parse_error(course_folder):
    text = with_values("Broken: {value}`sizes[`.")
    [error] = build_errors(course_folder, text)
    assert "is not a Python expression" in error.message and error.line == line_of(text, "sizes[")


def test_changing_an_expression_reruns_the_lesson(course_folder):
    course_folder.write(with_values())
    build(course_folder.options(), RecordingProgress())
    course_folder.lesson_path.write_text(with_values(SENTENCE.replace("`sizes`", "`len(sizes)`")))
    progress = RecordingProgress()
    result = build(course_folder.options(), progress)
    assert result.executed == ["count-batches"]
    assert progress.final("count-batches") == ("executed", "live values changed")
    assert (
        'The sizes are <span class="live-value">3</span>' in (course_folder.root / PAGE).read_text()
    )
