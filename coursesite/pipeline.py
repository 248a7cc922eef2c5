"""The build, top to bottom: one flat list of named stages, each timed.

Every lesson is a LessonBuild that the stages fill in. Each stage runs to completion for
every lesson before the next begins, and all problems of a stage are reported together.
Nothing durable is written before every check has passed: the site is replaced in the
write stage, and records/ and the site state only after it. The execution cache keeps each
lesson run that passed its own checks, even when another lesson fails.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coursesite import hooks
from coursesite.cache import fingerprint
from coursesite.cache.caches import ExecutionCache, FormulaMemo, cached_hidden_modules
from coursesite.cache.parsecache import ParseCache
from coursesite.config.manifest import Course, load_course
from coursesite.config.options import BuildOptions
from coursesite.errors import (
    BuildError,
    BuildErrors,
    did_you_mean,
    each_error,
    environment_failures_reported,
)
from coursesite.execution import records
from coursesite.execution.dependencies import distribution_version, installed_signature
from coursesite.execution.execute import LessonJob, prepare_job
from coursesite.execution.executionkey import execution_key
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.executors import choose_executor
from coursesite.execution.lessonprocess import (
    end_spare_guardian,
    start_spare_guardian,
    wait_for_clean_ups,
)
from coursesite.execution.runtimeimports import run_time_note
from coursesite.lesson.courseparse import parse_course
from coursesite.lesson.edition import STUDENT, values_reading_solutions
from coursesite.lesson.lessonbuild import LessonBuild, deferred_prose_problems
from coursesite.lesson.model import Prose
from coursesite.outputs.images import missing_images
from coursesite.plugins import LoadedPlugin, load_plugins
from coursesite.progress import Progress, QuietProgress
from coursesite.publish.lock import build_lock, output_lock

if TYPE_CHECKING:  # render and write load while lessons run: see execute_lessons
    from coursesite.publish.write import SiteBefore
    from coursesite.render.changed import RenderedPages
    from coursesite.render.pages import PageJob


@dataclass
class BuildResult:
    course: Course | None = None
    executed: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    pages_rendered: int = 0
    written: bool = False
    warnings: list[BuildError] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # stage name -> seconds


@dataclass
class Build:
    """What the stages share."""

    options: BuildOptions
    progress: Progress
    snapshot: fingerprint.Snapshot
    course: Course = None  # type: ignore[assignment]  # set by the first stage
    lessons: list[LessonBuild] = field(default_factory=list)
    guides: dict[str, Prose] = field(default_factory=dict)
    pages: list[PageJob] = field(default_factory=list)
    formulas: FormulaMemo = field(default_factory=FormulaMemo)  # MathML kept between builds
    parses: ParseCache | None = None  # set by the parse stage
    site_state: dict | None = None  # the output folder's state, once the write stage wrote it
    plugins: list[LoadedPlugin] = field(default_factory=list)  # set by the first stage
    site_before: SiteBefore | None = None  # the output folder as the render stage found it
    rendered: RenderedPages | None = None  # set by the render stage
    result: BuildResult = field(default_factory=BuildResult)

    @property
    def cache(self) -> ExecutionCache:
        return ExecutionCache(self.options.cache / "records")


def build(
    options: BuildOptions,
    progress: Progress | None = None,
    snapshot: fingerprint.Snapshot | None = None,
) -> BuildResult:
    """Build the site; raise BuildErrors (leaving `out`, records/ and the caches' records
    untouched) on any problem.

    `snapshot` is the inputs' fingerprint when the caller already took it (build.py does,
    to stop early when nothing changed); it is taken now otherwise.
    """
    with environment_failures_reported(), build_lock(options.cache), output_lock(options.out):
        state = Build(options, progress or QuietProgress(), snapshot or fingerprint.take(options))
        if not options.frozen and options.cluster is None:
            start_spare_guardian()  # starts while the lessons are read: see its docstring
        try:
            run_stages(state, STAGES)
        except BuildErrors:
            keep_valid_runs(state)
            raise
        finally:
            end_spare_guardian()
            wait_for_clean_ups()
        return state.result


def run_stages(state: Build, stages: list[tuple[str, Callable[[Build], None]]]) -> None:
    """Run `stages` in order, timing each. A stage may time a part of its work on its own
    (write times the search index as "search"): that part is listed after it, not in it."""
    timings = state.result.timings
    for name, stage in stages:
        before = set(timings)
        started = time.perf_counter()
        stage(state)
        elapsed = time.perf_counter() - started
        parts = {key: timings.pop(key) for key in list(timings) if key not in before}
        timings[name] = elapsed - sum(parts.values())
        timings.update(parts)


# -- the stages, in order ----------------------------------------------------------------


def load_manifest(state: Build) -> None:
    options = state.options
    state.formulas.load(options.cache / "mathml", distribution_version("latex2mathml"))
    state.course = state.result.course = load_course(options.manifest)
    state.plugins = load_plugins(state.course, options.manifest)
    state.course = state.result.course = hooks.configured(state.course)
    state.lessons = [LessonBuild(ref) for ref in state.course.lessons]
    if options.only and state.course.lesson(options.only) is None:
        slugs = [ref.slug for ref in state.course.lessons]
        raise BuildErrors(
            [
                BuildError(
                    f"--lesson {options.only}: no such lesson{did_you_mean(options.only, slugs)}",
                    options.manifest,
                    hint="lesson slugs are the 'slug:' entries in lessons.yaml",
                )
            ]
        )


def parse_lessons(state: Build) -> None:
    folder, progress = state.options.cache / "parsed", state.progress
    # Prose mistakes wait for the run, so that one round names the code's failures too.
    cache = state.parses = ParseCache(folder, state.formulas, progress.message, defer_prose=True)
    try:
        state.guides = parse_course(state.course, state.lessons, cache)
    finally:  # the lessons that did parse need not be parsed again
        cache.save([item.slug for item in state.lessons])
    installed, settings = installed_signature(), state.course.settings
    for item in state.lessons:
        item.read_inputs()
        item.key = execution_key(
            item.outlined(), item.path.parent, settings, item.inputs, installed
        )
        state.progress.add(item.ref.number, item.slug)


def look_up_records(state: Build) -> None:
    """A cached record for every lesson whose key is unchanged; the others are pending."""
    options, errors = state.options, []
    if options.frozen:  # every record comes from records/, through the frozen executor
        for item in state.lessons:
            item.state, item.reason = "pending", "--frozen"
        return
    cache = state.cache
    for item in state.lessons:
        lookup = cache.lookup(item.slug, item.keyed())
        # With --lesson, --force re-runs that lesson only: the others come from the cache.
        forced = options.force and options.only in (None, item.slug)
        item.reason = "--force" if forced else lookup.reason
        if lookup.record is not None and not forced:
            item.record, item.state = lookup.record, "cached"
            item.record_digest = lookup.digest
            item.unsaved = not lookup.recorded
            state.result.cached.append(item.slug)
            state.progress.update(item.slug, "cached")
        elif options.only and item.slug != options.only:
            if lookup.stale is None:
                errors.append(
                    BuildError(
                        f"lesson '{item.slug}' has never run, so --lesson "
                        f"{options.only} cannot take its record from the cache",
                        item.path,
                        hint="build the whole course once (python build.py, or coursesite "
                        "build), then use --lesson",
                    )
                )
                continue
            item.record, item.state = lookup.stale, "stale"
            item.record_digest = lookup.digest
            state.progress.update(
                item.slug, "cached", f"stale ({item.reason}); not re-run with --lesson"
            )
        else:
            item.state = "pending"
            state.progress.update(item.slug, "pending", item.reason)
    if errors:
        raise BuildErrors(errors)


def execute_lessons(state: Build) -> None:
    pending = [item for item in state.lessons if item.state == "pending"]
    outcomes = run_lessons(pending, state)
    errors = [
        each
        for outcome in outcomes
        if isinstance(outcome, BuildError)
        for each in each_error(outcome)
    ]
    frozen = state.options.frozen
    for item, record in zip(pending, outcomes, strict=True):
        if isinstance(record, BuildError):
            continue
        if not frozen:
            # Earlier runs of the same code on other hardware stay on the page as receipts.
            unreadable: list[str] = []
            item.committed = records.same_run(
                state.options.records, item.parsed(), item.keyed(), record, unreadable
            )
            for warning in unreadable:
                state.progress.message(f"warning: {warning}")
            record = records.with_receipts(record, item.committed)
            state.result.executed.append(item.slug)
        item.record, item.state = record, "frozen" if frozen else "executed"
        item.record_digest = ""
        item.unsaved = not frozen
        state.progress.update(item.slug, item.state, "" if frozen else item.reason)
    for item in state.lessons:  # one round names what failed, what is missing, the prose
        errors += missing_images(item.path, item.outlined().images)
    errors += deferred_prose_problems(state.lessons)
    if errors:
        raise BuildErrors(errors)


def keep_valid_runs(state: Build) -> None:
    """After a failed build: keep the runs that passed their own checks in the cache, so
    that fixing the lesson that failed does not run these again. records/ and the site
    change only when the whole build succeeds (the next good build saves these)."""
    from coursesite.execution.validation import figure_errors

    for item in state.lessons:
        if item.state == "executed" and not figure_errors(item):
            state.cache.store(item.slug, item.keyed(), item.ran(), recorded=False)


def validate_records(state: Build) -> None:
    """What a record must satisfy before anything is rendered or saved from it.

    A lesson whose text and record passed before (the parse cache remembers) is not
    loaded to be checked again; the warnings it gave are reported again."""
    from coursesite.execution.validation import figure_errors, lesson_warnings, validation_key

    figures, width = state.options.cache / "figures", state.course.settings.code_width
    errors, warnings = [], []
    assert state.parses is not None
    for item in state.lessons:
        key = validation_key(item, width)
        known = state.parses.checked(item.slug, key)
        if known is None:
            errors += figure_errors(item, figures)
            if errors:  # nothing will be shown: only look for more errors
                continue
            known = lesson_warnings(item, width, state.options.cache / "drift", figures)
            state.parses.remember_check(item.slug, key, known)
        warnings += known
    state.parses.save([item.slug for item in state.lessons])
    if errors:
        raise BuildErrors(errors)
    state.result.warnings = warnings


def lesson_hooks(state: Build) -> None:
    """Each plugin's on_lesson hook, for each lesson: all that fail are reported."""
    hooks.check_lessons(state.lessons)


def apply_edition(state: Build) -> None:
    """What readers get: every stage after this one renders each lesson as
    LessonBuild.shown() gives it (the student edition: without its solutions)."""
    errors = []
    for item in state.lessons:
        item.edition = state.options.edition
        if item.edition == STUDENT:
            errors += values_reading_solutions(item.parsed())
    if errors:
        raise BuildErrors(errors)


def plan_pages(state: Build) -> None:
    from coursesite.render.pages import Publication, plan_site

    options = state.options
    state.pages = plan_site(
        state.course,
        state.lessons,
        state.guides,
        template_folders(options, state.plugins),
        options.cache,
        Publication(options.base_url, options.edition == "student"),
        state.formulas,
    )


def render_pages(state: Build) -> None:
    """The pages whose inputs changed since the site was written, onto each lesson's build
    (and the course's pages); the others are kept as the site holds them."""
    from coursesite.publish.write import site_before
    from coursesite.render.changed import render_changed

    options = state.options
    before = state.site_before = site_before(options)
    templates = template_folders(options, state.plugins)
    state.rendered = render_changed(
        state.pages, before.jobs, before.intact, templates, options.force
    )
    by_job = state.rendered.by_job
    for item in state.lessons:
        jobs = [f"{part}:{item.slug}" for part in ("lesson", "downloads")]
        rendered = [file for job in jobs for file in by_job.get(job, [])]
        item.pages = rendered if any(job in by_job for job in jobs) else None


def write_pages(state: Build) -> None:
    from coursesite.publish.write import write_rendered

    assert state.site_before is not None and state.rendered is not None  # rendered first
    outcome = write_rendered(state.site_before, state.rendered, state.options, state.progress)
    state.result.pages_rendered, state.result.written = outcome.rendered, outcome.written
    state.site_state = outcome.site_state
    if outcome.search_seconds:
        state.result.timings["search"] = outcome.search_seconds


def save_records(state: Build) -> None:
    """Only now that the site is written: records/ and the site state."""
    options = state.options
    for item in state.lessons:
        if item.unsaved:
            if item.state == "cached":  # run by a build that failed later
                item.committed = records.same_run(
                    options.records, item.parsed(), item.keyed(), item.ran()
                )
            # After a reverted edit, records/ is put back as version control holds it.
            reverted = item.committed is None and records.restore_from_version_control(
                options.records, item.parsed(), item.keyed(), item.ran()
            )
            if not reverted:
                records.update(options.records, item.keyed(), item.ran(), item.committed)
            state.cache.store(item.slug, item.keyed(), item.ran(), recorded=True)
    state.formulas.save()
    extra = sorted(
        {str(path) for item in state.lessons for path in item.input_paths()}
        | {str(path) for plugin in state.plugins for path in plugin.inputs()}
    )
    course = state.course
    folders = sorted(
        {str(item.path.resolve().parent) for item in state.lessons}
        | {
            str((course.root / phase.guide).resolve().parent)
            for phase in course.phases
            if phase.guide
        }
        | {str(f) for plugin in state.plugins for f in plugin.api.template_folders}
    )
    started_as = state.snapshot.fingerprint
    if extra != sorted(state.snapshot.extra_inputs) or folders != state.snapshot.content_folders:
        started_as = fingerprint.compute(options, extra, folders)
    # A site whose search index is still to be refreshed is not current, whatever its inputs.
    fingerprint.save(
        options,
        None if options.defer_search_index else started_as,
        extra,
        folders,
        state.site_state,
    )


STAGES: list[tuple[str, Callable[[Build], None]]] = [
    ("manifest", load_manifest),
    ("parse", parse_lessons),
    ("look-up", look_up_records),
    ("execute", execute_lessons),
    ("validate", validate_records),
    ("on-lesson", lesson_hooks),
    ("edition", apply_edition),
    ("plan", plan_pages),
    ("render", render_pages),
    ("write", write_pages),
    ("save", save_records),
]


# -- what the stages use -----------------------------------------------------------------


def template_folders(options: BuildOptions, plugins: list[LoadedPlugin]) -> list[Path]:
    """The course's templates, then each plugin's, then the theme's: the first match wins."""
    *course, theme = options.template_folders
    return [*course, *(f for plugin in plugins for f in plugin.api.template_folders), theme]


def run_lessons(pending: list[LessonBuild], state: Build) -> list[ExecutionRecord | BuildError]:
    """Records for the pending lessons, from whichever executor the options choose; a
    failed lesson is reported and returned as its error."""
    if not pending:
        return []
    options, progress = state.options, state.progress
    executor = choose_executor(
        options, state.course.settings, {item.slug: item.keyed() for item in pending}
    )
    if executor.runs_code:
        progress.message(f"executing {len(pending)} lesson(s), {executor.where}")
    by_slug = {item.slug: item for item in pending}
    started = threading.Event()

    def on_start(job: LessonJob) -> None:
        progress.update(job.slug, "running")
        started.set()

    def on_done(job: LessonJob, record: ExecutionRecord) -> None:
        progress.finished(job.slug)  # reported as executed once every lesson has ended
        if note := run_time_note(record):
            progress.message(note)
        drawing.submit(_prerender_figures, by_slug[job.slug], record, options.cache / "figures")

    def hidden_for(distributions: list[str]) -> dict[str, str]:
        return cached_hidden_modules(distributions, state.options.cache / "installs")

    settings = state.course.settings
    jobs = [prepare_job(item.parsed(), settings, item.inputs, hidden_for) for item in pending]
    with ThreadPoolExecutor(max_workers=1) as drawing:
        # While the lessons run, this process would only wait: load the later stages and
        # draw each lesson's figures (into the figure cache) as soon as it finishes. The
        # imports wait until a lesson has started, as they would hold the GIL that
        # starting its processes needs.
        drawing.submit(_load_later_stages, started)
        try:
            outcomes = executor.run(jobs, on_start=on_start, on_done=on_done)
        finally:
            started.set()  # no lesson may have started at all
    for item, outcome in zip(pending, outcomes, strict=True):
        if isinstance(outcome, BuildError):
            progress.update(item.slug, "failed", outcome.where)
    return outcomes


def _load_later_stages(started: threading.Event) -> None:
    """Once a lesson has started: what the stages after execute import (about 0.1 s), and
    the highlighter that the changed code of an executed lesson needs on its page."""
    started.wait()
    for module in ("coursesite.execution.validation", "coursesite.publish.write"):
        importlib.import_module(module)
    from coursesite.markup.markdown import warm_highlighter

    warm_highlighter()


def _prerender_figures(item: LessonBuild, record: ExecutionRecord, cache: Path) -> None:
    from coursesite.render.lessonpage import prerender_figures

    prerender_figures(item.parsed(), record, cache)
