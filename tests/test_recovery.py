"""'Nothing lost' in docs/reliability.md: failures reported together, damaged cache files
recomputed, and what a build killed outright leaves behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, RecordingProgress, authoring_example, line_of, path_expression
from coursesite.pipeline import build
from test_hostile_code import still_running

PAGE = "basics/count-batches/index.html"
FIGURE = "basics/count-batches/figures/batch-sizes.svg"


def run_cli(folder, *arguments: str) -> subprocess.CompletedProcess:
    return folder.cli(*arguments)


def lesson_text(title: str, step_2: str = "assert sizes == [4, 4, 3]") -> str:
    return (
        authoring_example()
        .replace("title: Count what a batch holds", f"title: {title}")
        .replace("assert sizes == [4, 4, 3]", step_2)
    )


@pytest.fixture
def built(course_folder):
    course_folder.write(authoring_example())
    result = run_cli(course_folder, "-q")
    assert result.returncode == 0, result.stderr
    return course_folder


def site_files(folder) -> dict[str, bytes]:
    site = folder.root / "site"
    return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file()}


# -- every lesson is attempted -------------------------------------------------------------


def test_every_failing_lesson_is_reported_with_its_line_and_the_others_still_run(course_folder):
    broken_run = lesson_text("Broken run", "assert sizes == [4, 4]")
    broken_later = lesson_text("Broken later", "assert sizes == [4, 4, 3]\nassert sizes[0] == 5")
    course_folder.write(
        authoring_example(), extra={"broken-run": broken_run, "broken-later": broken_later}
    )
    result = run_cli(course_folder, "-q")
    assert result.returncode == 1
    assert "build failed: 2 problem(s); site not changed" in result.stderr
    assert (
        f"broken-run.md:{line_of(broken_run, 'assert sizes == [4, 4]')}: step 2 failed: "
        "AssertionError" in result.stderr
    )
    assert (
        f"broken-later.md:{line_of(broken_later, 'assert sizes[0] == 5')}: step 2 failed: "
        "AssertionError" in result.stderr
    )
    assert not (course_folder.root / "site").exists()
    # The lesson that passed was run and kept: fixing the others runs only them.
    for slug in ("broken-run", "broken-later"):
        (course_folder.root / "content" / f"{slug}.md").write_text(lesson_text(slug.title()))
    outcome = build(course_folder.options(), RecordingProgress())
    assert outcome.cached == ["count-batches"]
    assert sorted(outcome.executed) == ["broken-later", "broken-run"]


def test_problems_in_several_lesson_files_are_reported_together(course_folder):
    unknown_block = authoring_example().replace(":::{pause}", ":::{pasue}")
    gap = authoring_example().replace("{step} 2. Batch", "{step} 3. Batch")
    course_folder.write(unknown_block, extra={"gap": gap})
    result = run_cli(course_folder, "-q")
    assert result.returncode == 1
    assert "build failed: 2 problem(s)" in result.stderr
    assert f"lesson.md:{line_of(unknown_block, '{pasue}')}: unknown block" in result.stderr
    assert f"gap.md:{line_of(gap, '{step} 3.')}: step numbering gap" in result.stderr


# -- damaged cache files are recomputed, never trusted -------------------------------------


def only_file(folder, pattern: str):
    [path] = folder.glob(pattern)
    return path


def state_file(folder, key: str):
    """The one JSON file in the build's cache that holds `key` ('jobs': the page state,
    'fingerprint': the no-op fast path's), wherever in the cache the build keeps it."""
    found = []
    for path in (folder.root / ".cache").rglob("*.json"):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict) and key in data:
            found.append(path)
    [path] = found
    return path


def test_a_damaged_page_state_renders_the_pages_again(built):
    state = state_file(built, "jobs")
    before = site_files(built)
    state.write_text(state.read_text()[:40])  # cut short, as by a full disk
    result = build(built.options(), RecordingProgress())
    assert result.executed == [] and result.pages_rendered >= len(
        [name for name in before if name.endswith(".html") and "pagefind" not in name]
    )
    assert json.loads(state.read_text())["jobs"]  # written again, whole
    assert site_files(built) == before
    assert build(built.options(), RecordingProgress()).pages_rendered == 0


def test_a_page_state_of_the_wrong_shape_renders_the_pages_again(built):
    state = state_file(built, "jobs")
    state.write_text('{"jobs": []}')
    assert build(built.options(), RecordingProgress()).pages_rendered > 0


def test_a_damaged_figure_in_the_cache_is_drawn_again(built):
    drawn = (built.root / "site" / FIGURE).read_text()
    cached = only_file(built.root / ".cache" / "figures", "*.svg")
    assert cached.read_text() == drawn
    cached.write_text(drawn[: len(drawn) // 2])
    state_file(built, "jobs").unlink()  # so the page is rendered
    result = build(built.options(), RecordingProgress())
    assert result.executed == [] and result.pages_rendered > 0
    assert (built.root / "site" / FIGURE).read_text() == drawn
    assert cached.read_text() == drawn


def test_a_damaged_cleaned_figure_in_the_cache_is_cleaned_again(built):
    page = (built.root / "site" / PAGE).read_text()
    cleaned = only_file(built.root / ".cache" / "figures" / "clean", "*.svg")
    assert cleaned.read_text() in page  # what the page shows inline
    cleaned.write_text(cleaned.read_text()[:100])
    state_file(built, "jobs").unlink()  # so the page is rendered
    result = build(built.options(), RecordingProgress())
    assert result.pages_rendered > 0
    assert (built.root / "site" / PAGE).read_text() == page


def test_a_damaged_prose_memo_is_rendered_again(built):
    page = (built.root / "site" / PAGE).read_text()
    memo = only_file(built.root / ".cache" / "prose", "*.json")
    for damage in ("{not json", '{"key": 1, "pieces": "no"}', "[]"):
        memo.write_text(damage)
        state_file(built, "jobs").unlink()  # so the page is rendered
        result = build(built.options(), RecordingProgress())
        assert result.pages_rendered > 0
        assert (built.root / "site" / PAGE).read_text() == page
        assert json.loads(memo.read_text())["pieces"]  # written again, whole


def test_a_damaged_fingerprint_means_a_full_build_not_a_wrong_no_op(built):
    fingerprint = state_file(built, "fingerprint")
    assert "no input changed" in run_cli(built).stdout
    built.lesson_path.write_text(
        built.lesson_path.read_text().replace(
            "Eleven records do not divide", "Eleven records cannot divide"
        )
    )
    for damage in ("", '{"fingerprint": 1, "files": 5, "extra_inputs": [7]}'):
        fingerprint.write_text(damage)
        result = run_cli(built)
        assert result.returncode == 0, result.stderr
        assert "no input changed" not in result.stdout
        assert "Eleven records cannot divide" in (built.root / "site" / PAGE).read_text()
        assert "no input changed" in run_cli(built).stdout  # the fingerprint is whole again


# -- a build killed outright ---------------------------------------------------------------


def pids(marker) -> int:
    return len(marker.read_text().split()) if marker.exists() else 0


def leftovers(folder) -> list[str]:
    """What builds left beside the site, besides the spare the next build reuses."""
    return sorted(
        p.name
        for p in folder.root.iterdir()
        if p.name.startswith(".site.") and p.name != ".site.spare"
    )


def test_a_build_killed_with_sigkill_leaves_the_site_and_the_next_write_clears_up(built, tmp_path):
    before = site_files(built)
    started = tmp_path / "started"
    original = built.lesson_path.read_text()
    built.lesson_path.write_text(
        original.replace(
            'print("PASS: count-batches")',
            f"import os, time\nopen({path_expression(started)}, 'a')"
            ".write(str(os.getpid()) + '\\n')\n"
            'time.sleep(120)\nprint("PASS: count-batches")',
        )
    )
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=built.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Both the lesson's runner and the reader's main.py write their pid.
        deadline = time.monotonic() + 60
        while pids(started) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pids(started) == 2, "the lesson never started"
        process.kill()
        process.wait(timeout=30)
        # Their guardian sees the build gone and stops them (tests/test_lifetime.py).
        assert still_running(list(map(int, started.read_text().split())), grace=10) == []
    finally:
        for pid in map(int, started.read_text().split()) if started.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert site_files(built) == before
    # A build killed while writing leaves its staging folders; they are named like these.
    for name in (".site.new-k1", ".site.old-k2", ".site.search-k3"):
        (built.root / name / "site").mkdir(parents=True)
    built.lesson_path.write_text(original)
    quiet = run_cli(built)  # nothing changed since the last build that finished
    assert quiet.returncode == 0 and "no input changed" in quiet.stdout
    assert len(leftovers(built)) == 3  # a build that writes nothing leaves them
    built.lesson_path.write_text(
        original.replace("Eleven records do not divide", "Eleven records cannot divide")
    )
    result = run_cli(built, "-q")
    assert result.returncode == 0, result.stderr
    # The killed build's folders go at once; what this build discarded is deleted by a
    # detached process, so that the build need not wait for it. The site it replaced is
    # kept as the spare, for the next build to bring up to date.
    assert not {".site.new-k1", ".site.old-k2", ".site.search-k3"} & set(leftovers(built))
    deadline = time.monotonic() + 30
    while leftovers(built) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(built) == []
    assert "Eleven records do not divide" in (built.root / ".site.spare" / PAGE).read_text()
    assert "Eleven records cannot divide" in (built.root / "site" / PAGE).read_text()
