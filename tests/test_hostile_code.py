"""Lesson code is arbitrary Python: the build survives it and keeps everything it promised."""

import json
import signal
import subprocess
import sys
import time

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, RecordingProgress, authoring_example, line_of, no_traceback
from coursesite.errors import BuildErrors
from coursesite.pipeline import build
from coursesite.publish.lock import build_lock, output_lock

PAGE = "site/basics/count-batches/index.html"


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a killed child nobody reaped yet is a zombie: 'Z')."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return False
    return state not in ("Z", "X")


def lesson_with(code: str) -> str:
    """The example lesson with `code` appended to its second build step."""
    return authoring_example().replace(
        'print("PASS: count-batches")', code + '\nprint("PASS: count-batches")'
    )


def test_printing_past_the_output_limit_fails_naming_the_block(course_folder):
    text = lesson_with('import sys\nsys.stdout.write("x" * 200_000_000)')
    course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    [error] = caught.value.errors
    assert (
        error.message == "step 2 printed more than 200,000 characters, more than its page can show"
    )
    assert error.line == line_of(text, "batches = [ids[i:i + 4]")  # the block's code
    assert "settings.output_limit" in error.hint
    assert not (course_folder.root / "records").exists()  # nothing of the run was kept


def test_output_that_is_not_utf8_is_shown_with_replacement_characters(course_folder):
    course_folder.write(
        lesson_with(
            'import sys\nsys.stdout.flush()\nsys.stdout.buffer.write(b"bad \\xff\\xfe bytes\\n")'
        )
    )
    build(course_folder.options(), RecordingProgress())
    assert "bad \ufffd\ufffd bytes" in (course_folder.root / PAGE).read_text()


def test_lone_surrogates_in_output_and_values_are_shown_not_fatal(course_folder):
    text = lesson_with('odd = "half \\udcff pair"\nprint(odd)')
    course_folder.write(
        text.replace("Eleven records do not divide", "{value}`odd` Eleven records do not divide")
    )
    build(course_folder.options(), RecordingProgress())
    page = (course_folder.root / PAGE).read_text()
    assert page.count("half \ufffd pair") >= 2  # in the output and as the live value


def test_terminal_colour_codes_and_control_characters_never_reach_a_page(course_folder):
    # termcolor, logging handlers and progress bars colour what they print, as for a terminal.
    course_folder.write(
        lesson_with(
            'import sys\nprint("\\x1b[1;31mred\\x1b[0m and \\x07bell")\n'
            'print("\\x1b[33mwarned\\x1b[0m", file=sys.stderr)'
        )
    )
    build(course_folder.options(), RecordingProgress())
    page = (course_folder.root / PAGE).read_text()
    assert "\x1b" not in page and "\x07" not in page
    shown = [samp.get_text() for samp in BeautifulSoup(page, "html.parser").select("samp")]
    assert sum("red and bell\n" in text for text in shown) >= 2  # the step's, and main.py's
    assert any("warned\n" in text for text in shown)
    assert not any("[0m" in text or "[33m" in text for text in shown)


def test_a_child_process_that_outlives_the_lesson_is_stopped(course_folder, tmp_path):
    marker = tmp_path / "child.pid"
    course_folder.write(
        lesson_with(
            "import subprocess\n"
            "child = subprocess.Popen(['sleep', '300'])\n"
            f"open({str(marker)!r}, 'a').write(str(child.pid) + '\\n')"
        )
    )
    started = time.monotonic()
    build(course_folder.options(), RecordingProgress())
    assert time.monotonic() - started < 60
    for pid in map(int, marker.read_text().split()):  # the lesson's and main.py's children
        assert not running(pid)


def test_exit_handlers_of_lesson_code_do_not_hold_up_the_build(course_folder):
    # The runner ends without interpreter teardown once everything is recorded (teardown
    # of JAX and Grain cost 0.17 s per lesson); a lesson's exit handlers never run there.
    course_folder.write(
        authoring_example().replace(
            'print("Omitted:", np.setdiff1d(ids, kept).tolist())',
            'print("Omitted:", np.setdiff1d(ids, kept).tolist())\n'
            "import atexit, time\natexit.register(time.sleep, 60)",
        ),
        timeout=20,
    )
    started = time.monotonic()
    build(course_folder.options(), RecordingProgress())
    assert time.monotonic() - started < 20
    assert "Omitted: [8, 9, 10]" in (course_folder.root / PAGE).read_text()


def test_files_the_code_writes_stay_in_its_temporary_folder(course_folder):
    course_folder.write(
        lesson_with(
            "import os\nopen('site-notes.txt', 'w').write('x')\n"
            "for folder in ('site', 'content', '.cache', '.cache/records'):\n"
            "    os.makedirs(folder, exist_ok=True)\n"
            "for name in ('site/index.html', 'content/lesson.md',\n"
            "             '.cache/records/count-batches.json'):\n"
            "    open(name, 'w').write('hacked')\n"
            "assert os.path.expanduser('~') == os.getcwd()"
        )
    )
    lesson = course_folder.lesson_path.read_text()
    build(course_folder.options(), RecordingProgress())
    assert not (course_folder.root / "site-notes.txt").exists()
    assert "hacked" not in (course_folder.root / "site" / "index.html").read_text()
    assert course_folder.lesson_path.read_text() == lesson
    record = course_folder.root / ".cache" / "records" / "count-batches.json"
    assert json.loads(record.read_text())["record"]["lesson"] == "count-batches"


def test_code_that_runs_past_the_timeout_is_stopped_with_its_children(course_folder, tmp_path):
    marker = tmp_path / "child.pid"
    course_folder.write(
        lesson_with(
            "import subprocess\nchild = subprocess.Popen(['sleep', '300'])\n"
            f"open({str(marker)!r}, 'a').write(str(child.pid) + '\\n')\n"
            "while True:\n    pass"
        ),
        timeout=20,
    )  # time to start on a busy machine
    started = time.monotonic()
    with pytest.raises(BuildErrors, match="ran longer than 20 s and was stopped"):
        build(course_folder.options(), RecordingProgress())
    assert time.monotonic() - started < 150  # not held up by the children's 300 s
    children = list(map(int, marker.read_text().split()))
    assert children and not still_running(children)


def still_running(pids: list[int], grace: float = 5) -> list[int]:
    """Those of `pids` still alive after `grace` seconds: a SIGKILLed process on a busy
    machine may take a moment to die."""
    deadline = time.monotonic() + grace
    while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def test_a_second_build_at_the_same_time_is_refused_clearly(course_folder):
    course_folder.write(authoring_example())
    with build_lock(course_folder.root / ".cache"), pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    message = str(caught.value)
    assert "another build of this course is running (pid" in message and "wait for it" in message
    build(course_folder.options(), RecordingProgress())  # the lock is released afterwards


def test_two_builds_with_different_caches_into_one_folder_are_refused(course_folder, tmp_path):
    course_folder.write(authoring_example())
    options = course_folder.options()
    with output_lock(options.out), pytest.raises(BuildErrors) as caught:
        build(course_folder.options(cache=tmp_path / "other-cache"), RecordingProgress())
    message = str(caught.value)
    assert f"another build is writing {options.out.resolve()} (pid" in message
    assert not options.out.exists()  # nothing was written meanwhile


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_killing_a_build_midway_keeps_the_previous_site(course_folder, tmp_path, stop):
    course_folder.write(authoring_example())
    build(course_folder.options(), RecordingProgress())
    site = course_folder.root / "site"
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    started = tmp_path / "started"
    course_folder.lesson_path.write_text(
        lesson_with(
            f"import os, time\nopen({str(started)!r}, 'a').write(str(os.getpid()) + '\\n')\n"
            "time.sleep(120)"
        )
    )
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), "the lesson never started"
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and "interrupted; site not changed" in stderr
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    assert not [p for p in course_folder.root.iterdir() if p.name.startswith(".site.")]
    for pid in map(int, started.read_text().split()):
        assert not running(pid)


def test_lesson_code_sees_only_allowlisted_environment_variables(course_folder, monkeypatch):
    """A deploy token in the build's environment never reaches a page through lesson code;
    settings.pass_environment lets a course hand one variable on, by name."""
    monkeypatch.setenv("DEPLOY_TOKEN", "s3cr3t-deploy-token")
    monkeypatch.setenv("COURSE_DATA_URL", "file:///data")
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'import os\nprint("Batch sizes:", sizes)\n'
        'print(sorted(k for k in os.environ if k in ("DEPLOY_TOKEN", "COURSE_DATA_URL",'
        ' "JAX_PLATFORMS", "PATH")))',
    )
    course_folder.write(text)
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(
        manifest.replace("[HAS_DEVICE, FAKE_TPU_HOST]", "[COURSE_DATA_URL]")
    )

    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    site = course_folder.root / "site"
    page = (site / "basics" / "count-batches" / "index.html").read_text()
    assert "[&#39;COURSE_DATA_URL&#39;, &#39;JAX_PLATFORMS&#39;, &#39;PATH&#39;]" in page
    assert not [p for p in site.rglob("*") if p.is_file() and b"s3cr3t" in p.read_bytes()]


@pytest.mark.parametrize(
    "sabotage",
    [
        'json.dump = lambda obj, handle: handle.write("{}")',  # a result without its keys
        'json.dump = lambda obj, handle: handle.write("{not json")',
        'json.dump = lambda obj, handle: handle.write(\'{"failure": null, "blocks": 3}\')',
    ],
)
def test_a_result_file_the_lesson_spoiled_is_an_error_naming_the_lesson(course_folder, sabotage):
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)', f'import json\n{sabotage}\nprint("Batch sizes:", sizes)'
    )
    course_folder.write(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert "lesson.md: the lesson's run left a damaged result" in result.stderr, result.stderr
    assert no_traceback(result.stderr)
