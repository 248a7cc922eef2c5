"""Warnings about what a lesson lacks or overdoes: they let the build finish (the page can
be previewed) and make `build.py check` fail."""

from conftest import authoring_example, line_of

LONG = "print('" + "x" * 90 + "')"


def test_a_code_line_wider_than_the_column_is_a_warning_at_its_line(course_folder):
    text = authoring_example().replace(
        'print("PASS: count-batches")', LONG + '\nprint("PASS: count-batches")'
    )
    # Prose in a MyST directive written with backticks wraps on the page: not code.
    prose = "A note whose one line of prose runs on " + "and on " * 15 + "without a break."
    text = text.replace("# Understand\n", f"# Understand\n\n```{{note}}\n{prose}\n```\n", 1)
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert (
        f"lesson.md:{line_of(text, LONG)}: code line of {len(LONG)} characters, longer than 88"
        in built.stderr
    )
    assert len(prose) > 88 and built.stderr.count("longer than 88") == 1
    checked = course_folder.cli("check")
    assert checked.returncode == 1 and "longer than 88" in checked.stderr
    # A course with a wider column says so, and the line fits.
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(
        manifest.replace("settings:\n", "settings:\n  code_width: 100\n")
    )
    wider = course_folder.cli("-q")
    assert wider.returncode == 0 and "longer than" not in wider.stderr


def test_scaffold_todo_comments_are_instructions_not_placeholders(course_folder):
    text = authoring_example()
    assert "# TODO: batches of three" in text
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0 and built.stderr == ""
    checked = course_folder.cli("check")
    assert checked.returncode == 0, checked.stderr


def test_empty_stages_and_todo_lines_are_warnings(course_folder):
    text = authoring_example()
    text = text[: text.index("# Evidence\n")] + "# Evidence\n"
    text = text.replace("expected_result: Batch sizes", "expected_result: 'TODO: say it' #")
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert f"lesson.md:{line_of(text, '# Evidence')}: stage 'Evidence' is empty" in built.stderr
    where = line_of(text, "expected_result: 'TODO:")
    assert (
        f"lesson.md:{where}: placeholder left to fill in: expected_result: 'TODO: say it'"
        in built.stderr
    )
    assert course_folder.cli("check").returncode == 1
