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
    """The warm interpreters of the lessons edited last, and the previews made with them.

    serve calls `preview` beside each rebuild and `after_build` after it; a warm-up runs
    in a thread of its own, so that serve goes on watching meanwhile."""

    def __init__(self, options: BuildOptions, say: Callable[[str], None] = print):
        self.options = options
        self.say = say
        self.sessions: dict[str, WarmSession] = {}  # by slug, the least recently edited first
        self.warming: set[str] = set()  # slugs whose warm-up runs
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

    def after_build(self, changed: set[Path], saved: bytes | None = None) -> None:
        """Start a warm interpreter, in the background, for an edited lesson that has
        none for its current code. `saved` is the lesson file as the build read it: when
        it was saved again since, that save's own rebuild comes next, and a warm-up now
        would only share the cores with it."""
        try:
            course = load_course(self.options.manifest)
            ref = edited_lesson(course, changed)
            if ref is not None and saved is not None and read_or_none(ref.source) != saved:
                return
            if ref is None:  # a data file, a module of a lesson's own: any namespace may differ
                with self.lock:
                    for kept in self.sessions.values():
                        kept.usable = False
                return
            job = lesson_job(course, ref, self.options)
        except (BuildError, BuildErrors):
            return
        with self.lock:
            if ref.slug in self.warming:  # that warm-up ends with the lesson as it is then
                return
            if self._current(ref.slug, job):
                self.sessions[ref.slug] = self.sessions.pop(ref.slug)  # the most recent now
                return
            self.warming.add(ref.slug)
        threading.Thread(target=self._warm_up, args=(ref,), daemon=True).start()

    def _current(self, slug: str, job: LessonJob) -> bool:
        """Whether the lesson's warm interpreter holds what `job`'s code leaves."""
        session = self.sessions.get(slug)
        return session is not None and session.usable and session.codes == codes_of(job)

    def _warm_up(self, ref: LessonRef) -> None:
        """Warm the lesson up until an interpreter holds what its code, as it is once
        one is ready, leaves: an edit saved meanwhile starts it again."""
        try:
            while (session := self._started(ref)) is not None:
                latest = lesson_job(load_course(self.options.manifest), ref, self.options)
                replaced: list[WarmSession | None]
                with self.lock:
                    if session.codes != codes_of(latest) or self._current(ref.slug, latest):
                        replaced = [session]  # edited meanwhile, or warm already
                    else:
                        replaced = self._keep(session)
                for old in replaced:
                    if old is not None:
                        old.close()
                if session not in replaced:
                    self.say(f"preview: {ref.slug} is warm: an edit of its code shows at once")
                    return
        except (BuildError, BuildErrors):  # the build reports it; an edit tries again
            return
        except Exception as problem:  # a bug of ours, or no room for a process: no preview
            self.say(f"preview: {ref.slug} not kept warm: {type(problem).__name__}: {problem}")
        finally:
            with self.lock:
                self.warming.discard(ref.slug)

    def _started(self, ref: LessonRef) -> WarmSession | None:
        """A warm interpreter of the lesson as it is now; None when none is needed (the
        kept one holds it) or its run failed (the build says why)."""
        job = lesson_job(load_course(self.options.manifest), ref, self.options)
        with self.lock:
            if self._current(ref.slug, job):
                return None
        session = WarmSession(job)
        try:
            if session.start():
                return session
        except BaseException:
            session.close()
            raise
        session.close()
        return None

    def _keep(self, session: WarmSession) -> list[WarmSession | None]:
        """Keep `session` as its lesson's (the lock held); the sessions it replaces."""
        slug = session.job.slug
        replaced = [self.sessions.pop(slug, None)]
        self.sessions[slug] = session
        while len(self.sessions) > KEPT:
            replaced.append(self.sessions.pop(next(iter(self.sessions))))
        return replaced

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


def read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


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
