"""The build as a list of stages: what each failure leaves behind, and --timings."""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest

from conftest import RecordingProgress, authoring_example, no_traceback
from coursesite.errors import BuildErrors
from coursesite.execution import records
from coursesite.pipeline import STAGES, build

BAD_FIGURE = ('"values": sizes}', '"values": sizes[:2]}')


def snapshot(folder) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_record_that_fails_validation_writes_no_record_cache_entry_or_page(course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options()
    build(options)
    site, saved = snapshot(options.out), snapshot(options.records)
    cache_entry = options.cache / "records" / "count-batches.json"
    cached = cache_entry.read_bytes()
    course_folder.lesson_path.write_text(
        course_folder.lesson_path.read_text()
        .replace(*BAD_FIGURE)
        .replace('print("PASS: count-batches")', 'print("PASS: count-batches!")')
    )
    with pytest.raises(BuildErrors) as caught:
        build(options)
    assert "has 2 values for 3 'labels' entries" in str(caught.value)
    # The run itself succeeded; its figure data did not, so nothing of it is kept.
    assert snapshot(options.records) == saved
    assert cache_entry.read_bytes() == cached
    assert snapshot(options.out) == site


def test_valid_lessons_stay_cached_when_another_lesson_fails(course_folder):
    broken = authoring_example().replace("assert sizes == [4, 4, 3]", "assert sizes == [4]")
    course_folder.write(broken, extra={"plain": authoring_example()})
    options = course_folder.options()
    with pytest.raises(BuildErrors):
        build(options)
    assert (options.cache / "records" / "plain.json").is_file()
    assert not (options.cache / "records" / "count-batches.json").exists()
    assert not options.records.exists() or not list(options.records.iterdir())
    course_folder.write(authoring_example(), extra={"plain": authoring_example()})
    result = build(options)
    assert result.executed == ["count-batches"] and result.cached == ["plain"]
    assert records.load(options.records, "plain") is not None


# The search index is timed apart from the rest of write, and listed after it.
TIMED = [name for name, _ in STAGES]
TIMED.insert(TIMED.index("write") + 1, "search")


def test_every_stage_is_timed_in_order(course_folder):
    course_folder.write(authoring_example())
    started = time.perf_counter()
    result = build(course_folder.options())
    took = time.perf_counter() - started
    assert list(result.timings) == TIMED
    assert result.timings["execute"] > result.timings["look-up"]  # it ran a lesson
    assert result.timings["search"] > 0
    # Parts are not counted twice: the stages add up to no more than the whole build.
    assert sum(result.timings.values()) <= took


def test_timings_on_the_command_line(course_folder):
    course_folder.write(authoring_example())
    first = course_folder.cli("-q", "--timings")
    assert first.returncode == 0, first.stderr
    names = [line.split()[0] for line in first.stdout.splitlines()]
    assert names == ["fingerprint", *TIMED, "total"]
    again = course_folder.cli("-q", "--timings")
    # Nothing changed: only the fingerprint was taken.
    assert [line.split()[0] for line in again.stdout.splitlines()] == ["fingerprint", "total"]


def test_check_leaves_no_state_behind_and_the_site_has_one_state_file(course_folder):
    course_folder.write(authoring_example())
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    state_files = sorted((course_folder.root / ".cache").rglob("site/*.json"))
    assert len(state_files) == 1  # pages, search index and fingerprint of site/ together
    state = json.loads(state_files[0].read_text())
    assert {"fingerprint", "stamps", "jobs", "search"} <= set(state)
    checked = course_folder.cli("check")
    assert "check passed" in checked.stdout, checked.stdout + checked.stderr
    assert sorted((course_folder.root / ".cache").rglob("site/*.json")) == state_files


def test_a_change_of_declared_hardware_runs_the_lesson_again(course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options()
    build(options)
    course_folder.lesson_path.write_text(
        course_folder.lesson_path.read_text().replace("hardware: cpu", "hardware: gpu")
    )
    progress = RecordingProgress()
    assert build(options, progress).executed == ["count-batches"]
    assert ("count-batches", "executed", "hardware changed") in progress.events


def test_reverting_an_edit_leaves_records_as_version_control_holds_them(course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options()
    build(options)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "records"], ["commit", "-qm", "records"]):
        subprocess.run(git + command, cwd=course_folder.root, check=True, capture_output=True)
    committed = (options.records / "count-batches.yaml").read_bytes()
    original = course_folder.lesson_path.read_text()
    course_folder.lesson_path.write_text(
        original.replace("ids = np.arange(11)", "ids = np.arange(11)  # the IDs")
    )
    build(options)  # the code changed, so its record names the new code
    assert (options.records / "count-batches.yaml").read_bytes() != committed
    course_folder.lesson_path.write_text(original)
    assert build(options).executed == ["count-batches"]  # it really ran again
    assert (options.records / "count-batches.yaml").read_bytes() == committed


def test_a_failure_of_the_machine_is_a_message_not_a_traceback(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "occupied").write_text("a file where a folder is needed")
    result = course_folder.cli("-q", "--out", "occupied/site")
    assert result.returncode == 1
    assert no_traceback(result.stderr)
    assert "occupied: cannot use this file: File exists" in result.stderr
    assert "hint: a file stands where a folder is needed" in result.stderr


def test_a_damaged_page_in_the_site_is_rendered_again_by_the_next_build(course_folder):
    course_folder.write(authoring_example())
    assert course_folder.cli("-q").returncode == 0
    page = course_folder.root / "site" / "basics" / "count-batches" / "index.html"
    whole = page.read_bytes()
    page.write_bytes(whole[: len(whole) // 2])  # as a full disk or a stray edit leaves it
    again = course_folder.cli("-q", "--timings")
    assert again.returncode == 0, again.stderr
    assert re.search(r"^render\s+[\d.]+ s$", again.stdout, re.M)  # not the no-op path
    assert page.read_bytes() == whole


def test_damaged_cache_entries_and_records_are_replaced_with_a_warning_naming_them(course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options()
    build(options)
    entry = options.cache / "parsed" / "count-batches.pickle"
    entry.write_bytes(b"not a pickle")
    record = options.records / "count-batches.yaml"
    record.write_text("lesson: [unclosed\n")
    course_folder.lesson_path.write_text(  # so that the lesson runs again
        course_folder.lesson_path.read_text().replace(
            "ids = np.arange(11)", "ids = np.arange(11)  # IDs"
        )
    )
    progress = RecordingProgress()
    build(options, progress)
    warnings = [text for text in progress.messages if text.startswith("warning:")]
    assert any(str(entry) in text and "parsed again" in text for text in warnings), warnings
    assert any(f"{record}:" in text and "replaced by this run" in text for text in warnings), (
        warnings
    )
    assert "code:" in record.read_text()  # a readable record again


def test_pages_are_rendered_onto_the_lessons_build_before_anything_is_written(course_folder):
    """The render stage leaves each lesson's files on its LessonBuild; only the write
    stage touches the output folder."""
    from coursesite.cache import fingerprint
    from coursesite.pipeline import Build, run_stages
    from coursesite.progress import QuietProgress

    course_folder.write(authoring_example())
    options = course_folder.options()
    state = Build(options, QuietProgress(), fingerprint.take(options))
    names = [name for name, _ in STAGES]
    run_stages(state, STAGES[: names.index("render") + 1])
    [lesson] = state.lessons
    paths = [file.path for file in lesson.pages]
    assert "basics/count-batches/index.html" in paths and "basics/count-batches/main.py" in paths
    assert not options.out.exists()
    run_stages(state, STAGES[names.index("write") :])
    assert (options.out / "basics" / "count-batches" / "index.html").is_file()
    again = Build(options, QuietProgress(), fingerprint.take(options))
    run_stages(again, STAGES[: names.index("render") + 1])
    assert again.lessons[0].pages is None  # unchanged: the site holds its files already
