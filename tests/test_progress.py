import io

from rich.console import Console

from conftest import RecordingProgress, authoring_example
from coursesite.pipeline import build
from coursesite.progress import LiveProgress, PlainProgress, QuietProgress, create_progress


def test_quiet_and_non_terminal_choices(monkeypatch):
    assert isinstance(create_progress(quiet=True), QuietProgress)
    monkeypatch.setattr("sys.stdout", io.StringIO())  # not a terminal
    assert type(create_progress(quiet=False)) is PlainProgress


def test_ci_never_gets_the_live_display(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdout", Terminal())
    monkeypatch.setenv("CI", "true")
    assert type(create_progress(quiet=False)) is PlainProgress
    monkeypatch.delenv("CI")
    assert type(create_progress(quiet=False)) is LiveProgress


def test_plain_lines_name_state_lesson_and_reason():
    stream = io.StringIO()
    progress = PlainProgress(stream=stream)
    progress.add("06.02", "grain-order")
    progress.update("grain-order", "pending", "step 2 changed")
    progress.update("grain-order", "running")
    progress.update("grain-order", "executed")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].split()[:3] == ["executed", "06.02", "grain-order"]
    assert lines[0].endswith(": step 2 changed")


def test_live_table_ends_with_a_summary_of_every_lesson():
    console = Console(file=io.StringIO(), force_terminal=False, width=100)
    with LiveProgress(console=console) as progress:
        progress.add("06.01", "first")
        progress.add("06.02", "second")
        progress.update("first", "cached")
        progress.update("second", "running")
        progress.update("second", "failed", "lesson.md:12")
    summary = console.file.getvalue()
    assert "06.01 first" in summary and "cached" in summary
    assert "06.02 second" in summary and "failed" in summary and "lesson.md:12" in summary


def test_each_lesson_reports_its_own_time_not_the_whole_run(course_folder):
    slow = authoring_example().replace(
        'print("PASS: count-batches")', 'import time\ntime.sleep(5)\nprint("PASS: count-batches")'
    )
    course_folder.write(authoring_example(), extra={"slow-lesson": slow})
    progress = RecordingProgress()
    build(course_folder.options(jobs=2), progress)
    seconds = {slug: status.seconds for slug, status in progress.lessons.items()}
    assert seconds["slow-lesson"] >= 5
    assert seconds["count-batches"] < seconds["slow-lesson"] - 1.5
