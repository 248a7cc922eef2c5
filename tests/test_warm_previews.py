"""serve's warm interpreters (coursesite/warm/warmpreview.py), with real lesson processes:
one warm-up at a time per lesson, and the one kept holds the lesson as last saved."""

import time

from conftest import authoring_example
from coursesite.warm import warmpreview
from coursesite.warm.session import WarmSession
from coursesite.warm.warmpreview import WarmPreviews

SLOW_STEP_1 = "ids = np.arange(11)\nimport time\ntime.sleep(1.5)\n"
LAST = 'print("PASS: count-batches")'


def wait_until_warm(warm, slug="count-batches", timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if warm.ready(slug) and not warm.warming:
            return
        time.sleep(0.05)
    raise AssertionError("never warm")


def test_an_edit_saved_during_a_warm_up_is_what_the_warm_interpreter_holds(
    course_folder, monkeypatch
):
    started = []

    class CountedSession(WarmSession):
        def start(self):
            started.append(self)
            return super().start()

    monkeypatch.setattr(warmpreview, "WarmSession", CountedSession)
    course_folder.write(authoring_example().replace("ids = np.arange(11)\n", SLOW_STEP_1, 1))
    said = []
    warm = WarmPreviews(course_folder.options(), said.append)
    lesson = {course_folder.lesson_path}
    try:
        warm.after_build(lesson)
        warm.after_build(lesson)  # a second batch of changes for the same save
        text = course_folder.lesson_path.read_text()
        course_folder.lesson_path.write_text(text.replace(LAST, 'print("PASS", 1)'))
        warm.after_build(lesson)  # saved while the first warm-up runs
        wait_until_warm(warm)
        assert said == ["preview: count-batches is warm: an edit of its code shows at once"]
        # One warm-up at a time: the first run again once, for the edit saved meanwhile.
        assert len(started) <= 2
        [session] = warm.sessions.values()
        assert any('print("PASS", 1)' in code for code in session.codes)
        course_folder.lesson_path.write_text(text.replace(LAST, 'print("PASS", 2)'))
        files = warm.preview(lesson)
        assert files is not None
        page = files["basics/count-batches/index.html"].decode()
        assert "PASS 2" in page and "Preview:" in page
    finally:
        warm.close()


def test_no_warm_up_starts_for_a_lesson_saved_again_since_the_build_read_it(course_folder):
    course_folder.write(authoring_example())
    warm = WarmPreviews(course_folder.options(), lambda line: None)
    lesson = {course_folder.lesson_path}
    try:
        # Its own rebuild comes next: a warm-up now would share the cores with it.
        warm.after_build(lesson, saved=b"the lesson as the build read it, before a later save")
        assert not warm.warming and not warm.sessions
        warm.after_build(lesson, saved=course_folder.lesson_path.read_bytes())
        wait_until_warm(warm)
    finally:
        warm.close()
