"""The build, top to bottom: manifest -> parse -> execute -> render -> write.

Each stage runs to completion for every lesson before the next begins, and all problems of
a stage are reported together; nothing is written unless every stage succeeded. Work whose
inputs did not change is skipped: cached executions, unchanged pages, an unchanged site.
"""

from __future__ import annotations

import importlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import fingerprint
from . import records
from .cache import CacheKey, ExecutionCache, execution_key
from .dependencies import distribution_version, lesson_inputs
from .errors import BuildError, BuildErrors, did_you_mean
from .cluster import create_executor
from .execute import ExecutionRecord, LessonJob, prepare_job
from .links import check_links
from .lock import build_lock
from .manifest import Course, load_course
from .markdown import FORMULAS
from .model import Lesson, Prose
from .options import BuildOptions
from .parse import parse_guide, parse_lesson
from .parsecache import ParseCache
from .progress import Progress, QuietProgress

if TYPE_CHECKING:  # render and write load while lessons run: see run_lessons
    from .render import RenderedLesson


@dataclass
class BuildResult:
    course: Course
    executed: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    pages_rendered: int = 0
    written: bool = False
    warnings: list[BuildError] = field(default_factory=list)


def build(options: BuildOptions, progress: Progress | None = None,
          snapshot: fingerprint.Snapshot | None = None) -> BuildResult:
    """Build the site; raise BuildErrors (leaving `out` untouched) on any problem.

    `snapshot` is the inputs' fingerprint when the caller already took it (build.py does,
    to stop early when nothing changed); it is taken now otherwise.
    """
    with build_lock(options.cache):
        return _build(options, progress or QuietProgress(), snapshot or fingerprint.take(options))


def _build(options: BuildOptions, progress: Progress, snapshot: fingerprint.Snapshot,
           ) -> BuildResult:
    FORMULAS.load(options.cache / "mathml", distribution_version("latex2mathml"))
    course = load_course(options.manifest)
    lessons, guides = parse_course(course, ParseCache(options.cache / "parsed"))
    if options.only and course.lesson(options.only) is None:
        slugs = [ref.slug for ref in course.lessons]
        raise BuildErrors([BuildError(f"--lesson {options.only}: no such lesson"
                                      f"{did_you_mean(options.only, slugs)}",
                                      options.manifest, hint="lesson slugs are the 'slug:' "
                                      "entries in lessons.yaml")])
    result = BuildResult(course)
    records = execute_all(course, lessons, options, progress, result)
    from .render import Publication, RenderedLesson, plan_site
    from .write import write_changed
    rendered = [RenderedLesson(lesson, records[lesson.ref.slug]) for lesson in lessons]
    result.warnings = [warning for item in rendered for warning in lesson_warnings(item)]
    jobs = plan_site(course, rendered, guides, options.templates, options.cache,
                     Publication(options.base_url, options.edition == "student"))
    outcome = write_changed(jobs, options, progress)
    result.pages_rendered, result.written, files = outcome
    FORMULAS.save()
    extra = sorted({str(path.resolve()) for lesson in lessons for path in lesson_inputs(lesson)})
    started_as = snapshot.fingerprint
    if set(extra) != set(snapshot.extra_inputs):
        started_as = fingerprint.compute(options, extra)
    # A site whose search index is still to be refreshed is not current, whatever its inputs.
    fingerprint.save(options, None if options.defer_search_index else started_as, extra, files)
    return result


def check_drift(options: BuildOptions, progress: Progress,
                accept: bool) -> list[tuple[str, str]]:
    """Re-run every lesson and diff its output against records/: [(slug, diff)] of drifts.

    With `accept`, the fresh records replace the committed ones.
    """
    with build_lock(options.cache):
        return _check_drift(options, progress, accept)


def _check_drift(options: BuildOptions, progress: Progress,
                 accept: bool) -> list[tuple[str, str]]:
    course = load_course(options.manifest)
    lessons, _ = parse_course(course)
    for lesson in lessons:
        progress.add(lesson.ref.number, lesson.ref.slug)
    pending = [(lesson, execution_key(lesson, course.settings), "check") for lesson in lessons]
    outcomes = run_lessons(pending, course, options, progress)
    errors = [outcome for outcome in outcomes if isinstance(outcome, BuildError)]
    if errors:
        raise BuildErrors(errors)
    drifts = []
    cache = ExecutionCache(options.cache / "records")
    for (lesson, key, _), fresh in zip(pending, outcomes):
        progress.update(lesson.ref.slug, "executed")
        fresh = records.with_receipts(fresh, records.same_run(options.records, lesson, key, fresh))
        cache.store(lesson.ref.slug, key, fresh)
        try:
            committed = records.load(options.records, lesson.ref.slug)
        except BuildError as problem:
            committed, difference = None, str(problem)
        else:
            difference = "no committed record" if committed is None else \
                records.drift(committed.record, fresh, lesson.front.volatile)
        if difference:
            drifts.append((lesson.ref.slug, difference))
        if accept and (difference or committed is None):
            records.save(options.records, key, fresh)
    return drifts


def lesson_warnings(item: RenderedLesson) -> list[BuildError]:
    """Problems that do not stop a build but fail `build.py check`."""
    warnings = []
    for block in item.lesson.runnable_blocks():
        output = item.record.blocks.get(block.id)
        if output is not None and output.stderr.strip():
            first = output.stderr.strip().splitlines()[0]
            warnings.append(BuildError(
                f"{block.label} wrote to stderr: {first}", item.lesson.path, block.code.line,
                hint="usually a library warning, such as a deprecated call: fix its cause"))
    return warnings


def parse_course(course: Course, cache: ParseCache | None = None,
                 ) -> tuple[list[Lesson], dict[str, Prose]]:
    """Every lesson and phase guide, with cross-lesson links checked.

    With a `cache`, lessons whose files did not change come from earlier builds' parses.
    """
    errors: list[BuildError] = []
    lessons: list[Lesson] = []
    guides: dict[str, Prose] = {}
    links = []
    for ref in course.lessons:
        try:
            lesson = cache.parse(ref) if cache else parse_lesson(ref)
        except BuildErrors as problem:
            errors.extend(problem.errors)
            continue
        lessons.append(lesson)
        links.extend((lesson.path, link) for link in lesson.links)
    for phase in course.phases:
        if phase.guide:
            path = course.root / phase.guide
            try:
                guides[phase.slug], guide_links = parse_guide(path)
            except BuildErrors as problem:
                errors.extend(problem.errors)
                continue
            links.extend((path, link) for link in guide_links)
    if not errors:
        anchors = {lesson.ref.slug: lesson.anchors for lesson in lessons}
        errors.extend(check_links(course, anchors, links))
    if errors:
        raise BuildErrors(errors)
    return lessons, guides


def execute_all(course: Course, lessons: list[Lesson], options: BuildOptions,
                progress: Progress, result: BuildResult) -> dict[str, ExecutionRecord]:
    """A record for every lesson: from the cache when its key is unchanged, else by running it."""
    for lesson in lessons:
        progress.add(lesson.ref.number, lesson.ref.slug)
    if options.frozen:
        return frozen_records(course, lessons, options, progress)
    cache = ExecutionCache(options.cache / "records")
    found: dict[str, ExecutionRecord] = {}
    errors: list[BuildError] = []
    pending: list[tuple[Lesson, CacheKey, str]] = []
    for lesson in lessons:
        slug = lesson.ref.slug
        key = execution_key(lesson, course.settings)
        lookup = cache.lookup(slug, key)
        reason = "--force" if options.force else lookup.reason
        if lookup.record is not None and not options.force:
            found[slug] = lookup.record
            result.cached.append(slug)
            progress.update(slug, "cached")
        elif options.only and slug != options.only:
            if lookup.stale is None:
                errors.append(BuildError(f"lesson '{slug}' has never run",
                                         lesson.path, hint="build once without --lesson"))
            else:
                found[slug] = lookup.stale
                progress.update(slug, "cached", f"stale ({reason}); not re-run with --lesson")
        else:
            pending.append((lesson, key, reason))
            progress.update(slug, "pending", reason)
    for (lesson, key, reason), outcome in zip(pending, run_lessons(pending, course, options,
                                                                    progress)):
        if isinstance(outcome, BuildError):
            errors.append(outcome)
            continue
        # Earlier runs of the same code on other hardware stay on the page as receipts.
        committed = records.same_run(options.records, lesson, key, outcome)
        outcome = records.with_receipts(outcome, committed)
        cache.store(lesson.ref.slug, key, outcome)
        records.update(options.records, key, outcome, committed)
        found[lesson.ref.slug] = outcome
        result.executed.append(lesson.ref.slug)
        progress.update(lesson.ref.slug, "executed", reason)
    if errors:
        raise BuildErrors(errors)
    return found


def run_lessons(pending: list[tuple[Lesson, CacheKey, str]], course: Course,
                options: BuildOptions, progress: Progress) -> list[ExecutionRecord | BuildError]:
    """Execute lessons in parallel; a failed one is reported and returned as its error."""
    if not pending:
        return []
    # The local process pool, or a Dask cluster: the rest of the build cannot tell which ran.
    executor = create_executor(options, course.settings)
    progress.message(f"executing {len(pending)} lesson(s), {executor.where}")
    lessons = {lesson.ref.slug: lesson for lesson, _, _ in pending}
    started = threading.Event()

    def on_start(job: LessonJob) -> None:
        progress.update(job.slug, "running")
        started.set()

    def on_done(job: LessonJob, record: ExecutionRecord) -> None:
        progress.finished(job.slug)  # reported as executed once every lesson has ended
        drawing.submit(_prerender_figures, lessons[job.slug], record, options.cache / "figures")

    with ThreadPoolExecutor(max_workers=1) as drawing:
        # While the lessons run, this process would only wait: load the render and write
        # stages (about 0.1 s of imports) and draw each lesson's figures (into the figure
        # cache) as soon as it finishes. The imports wait until a lesson has started, as
        # they would hold the GIL that starting its processes needs.
        drawing.submit(lambda: started.wait() and importlib.import_module("coursesite.write"))
        try:
            outcomes = executor.run(
                [prepare_job(lesson, course.settings) for lesson, _, _ in pending],
                on_start=on_start, on_done=on_done)
        finally:
            started.set()  # no lesson may have started at all
    for (lesson, _, _), outcome in zip(pending, outcomes):
        if isinstance(outcome, BuildError):
            progress.update(lesson.ref.slug, "failed", outcome.where)
    return outcomes


def frozen_records(course: Course, lessons: list[Lesson], options: BuildOptions,
                   progress: Progress) -> dict[str, ExecutionRecord]:
    """The committed record of every lesson, refusing any whose code changed since."""
    found: dict[str, ExecutionRecord] = {}
    errors: list[BuildError] = []
    for lesson in lessons:
        try:
            frozen = records.load(options.records, lesson.ref.slug)
        except BuildError as problem:
            errors.append(problem)
            continue
        if frozen is None:
            errors.append(BuildError(f"--frozen: lesson '{lesson.ref.slug}' has no record in "
                                     f"{options.records}", lesson.path,
                                     hint="build once without --frozen and commit records/"))
            continue
        stale = records.staleness(frozen, execution_key(lesson, course.settings))
        if stale:
            errors.append(BuildError(f"--frozen: the code of lesson '{lesson.ref.slug}' changed "
                                     f"since its record ({stale})", lesson.path,
                                     hint="build without --frozen where the lesson can run, "
                                          "then commit records/"))
            continue
        found[lesson.ref.slug] = frozen.record
        progress.update(lesson.ref.slug, "frozen")
    if errors:
        raise BuildErrors(errors)
    return found


def _prerender_figures(lesson: Lesson, record: ExecutionRecord, cache: Path) -> None:
    from .render import prerender_figures
    prerender_figures(lesson, record, cache)
