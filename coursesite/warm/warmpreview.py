"""serve's warm previews: for each lesson edited while it runs, an interpreter kept warm
(session.py); on an edit of a lesson's code, the blocks the edit makes stale (dataflow.py)
run again in it and the page shows their outputs at once, marked as a preview, while the
clean full run follows (serve.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from coursesite.config.manifest import Course, LessonRef, load_course
from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors
from coursesite.execution.execute import LessonJob, prepare_job
from coursesite.lesson.model import Lesson
from coursesite.lesson.parse import parse_lesson
from coursesite.warm.dataflow import RerunPlan, plan_rerun
from coursesite.warm.previewpage import formula_memo, preview_files
from coursesite.warm.session import WarmSession

KEPT = 3  # warm interpreters at once, the most recently edited lessons': each holds a namespace


class WarmPreviews:
    def __init__(self, options: BuildOptions, say: Callable[[str], None] = print):
        self.options = options
        self.say = say
        self.sessions: dict[str, WarmSession] = {}  # by slug, the least recently edited first
        self.lock = threading.Lock()

    def preview(self, changed: set[Path]) -> dict[str, bytes] | None:
        """The preview files of an edit of one lesson's code, run again warm; None when
        the edit is not that, or the warm run cannot show it (the full run then does)."""
        try:
            course = load_course(self.options.manifest)
            ref = edited_lesson(course, changed)
            with self.lock:
                session = self.sessions.get(ref.slug) if ref else None
            if ref is None or session is None or not session.usable:
                return None
            lesson = parse_lesson(ref, formulas=formula_memo(self.options))
            job = warm_job(lesson, course)
        except (BuildError, BuildErrors):  # the build that follows reports it
            return None
        if job.inputs != session.job.inputs:
            session.usable = False
            self.say(f"preview: {ref.slug}: its data files changed; the full run shows the edit")
            return None
        plan = plan_rerun(session.codes, codes_of(job), labels_of(job))
        if plan.fallback:
            session.usable = False  # started again once the full run is done
            self.say(f"preview: {ref.slug}: {plan.fallback}; the full run shows the edit")
            return None
        if not plan.rerun:  # prose alone changed: the build is as quick
            return None
        if too_slow := session.costly(plan.rerun):
            self.say(f"preview: {ref.slug}: {too_slow}; the full run shows the edit")
            return None
        return self._run_warm(course, lesson, session, job, plan)

    def _run_warm(
        self, course: Course, lesson: Lesson, session: WarmSession, job: LessonJob, plan: RerunPlan
    ) -> dict[str, bytes] | None:
        started = time.perf_counter()
        answer = session.rerun(job.payload, plan.rerun)
        if answer is None or answer["failure"]:
            self.say(f"preview: {job.slug}: the warm run failed; the full run reports why")
            return None
        seconds = time.perf_counter() - started
        note = (
            f"{describe(plan, labels_of(job))} ran again in the warm interpreter ({seconds:.2f} s)."
        )
        self.say(f"preview: {job.slug}: {note}")
        return preview_files(self.options, course, lesson, session.record(), note)

    def after_build(self, changed: set[Path]) -> None:
        """Start a warm interpreter, in the background, for an edited lesson that has
        none for its current code."""
        try:
            course = load_course(self.options.manifest)
            ref = edited_lesson(course, changed)
            if ref is None:  # a data file, a module of a lesson's own: any namespace may differ
                with self.lock:
                    for kept in self.sessions.values():
                        kept.usable = False
                return
            job = lesson_job(course, ref, self.options)
        except (BuildError, BuildErrors):
            return
        with self.lock:
            session = self.sessions.get(ref.slug)
            if session is not None and session.usable and session.codes == codes_of(job):
                self.sessions[ref.slug] = self.sessions.pop(ref.slug)  # the most recent now
                return
        threading.Thread(target=self._warm_up, args=(job,), daemon=True).start()

    def _warm_up(self, job: LessonJob) -> None:
        session = WarmSession(job)
        try:
            started = session.start()
        except Exception as problem:  # a bug of ours, or no room for a process: no preview
            self.say(f"preview: {job.slug} not kept warm: {type(problem).__name__}: {problem}")
            started = False
        if not started:
            session.close()
            return
        with self.lock:
            replaced = [self.sessions.pop(job.slug, None)]
            self.sessions[job.slug] = session
            while len(self.sessions) > KEPT:
                replaced.append(self.sessions.pop(next(iter(self.sessions))))
        for old in replaced:
            if old is not None:
                old.close()
        self.say(f"preview: {job.slug} is warm: an edit of its code shows at once")

    def ready(self, slug: str) -> bool:
        """Whether the lesson has a warm interpreter that can run an edit (for tests)."""
        with self.lock:
            session = self.sessions.get(slug)
            return session is not None and session.usable

    def close(self) -> None:
        with self.lock:
            sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            session.close()


def edited_lesson(course: Course, changed: set[Path]) -> LessonRef | None:
    """The lesson whose file is the one file that changed, if that is what changed."""
    if len(changed) != 1:
        return None
    path = next(iter(changed)).resolve()
    return next((ref for ref in course.lessons if ref.source.resolve() == path), None)


def lesson_job(course: Course, ref: LessonRef, options: BuildOptions) -> LessonJob:
    return warm_job(parse_lesson(ref, formulas=formula_memo(options)), course)


def warm_job(lesson: Lesson, course: Course) -> LessonJob:
    """The lesson's job for its warm interpreter, which runs no main.py: the modules
    main.py may not import need not be looked up."""
    return prepare_job(lesson, course.settings, hidden_for=lambda installs: {})


def codes_of(job: LessonJob) -> list[str]:
    return [block["code"] for block in job.payload["blocks"]]


def labels_of(job: LessonJob) -> list[str]:
    return [job.labels[block["id"]] for block in job.payload["blocks"]]


def describe(plan: RerunPlan, labels: list[str]) -> str:
    """ "step 2 and 3 blocks after it": what ran again."""
    first, later = labels[plan.rerun[0]], len(plan.rerun) - 1
    first = first[:1].upper() + first[1:]
    if not later:
        return first
    return f"{first} and {later} block{'s' if later > 1 else ''} after it"
