"""`build.py check`'s drift check: every lesson run again and compared with records/."""

from __future__ import annotations

from coursesite.cache import fingerprint
from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, environment_failures_reported
from coursesite.execution import records
from coursesite.execution.diffreport import bounded_diff
from coursesite.execution.lessonprocess import wait_for_clean_ups
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.pipeline import (
    Build,
    execute_lessons,
    keep_valid_runs,
    load_manifest,
    parse_lessons,
    run_stages,
)
from coursesite.progress import Progress
from coursesite.publish.lock import build_lock


def check_drift(options: BuildOptions, progress: Progress, accept: bool) -> list[tuple[str, str]]:
    """Re-run every lesson and diff its output against records/: [(slug, diff)] of drifts.

    With `accept`, the fresh records replace the committed ones. The fresh runs enter the
    execution cache, so the build that follows need not run them again.
    """
    with environment_failures_reported(), build_lock(options.cache):
        state = Build(options, progress, fingerprint.Snapshot(None, [], []))
        try:
            run_stages(
                state,
                [
                    ("manifest", load_manifest),
                    ("parse", parse_lessons),
                    ("execute", _run_everything),
                ],
            )
        finally:
            wait_for_clean_ups()
            keep_valid_runs(state)
        return [drift for item in state.lessons if (drift := _drift(item, options, accept))]


def _run_everything(state: Build) -> None:
    for item in state.lessons:
        item.state, item.reason = "pending", "check"
    execute_lessons(state)


def _drift(item: LessonBuild, options: BuildOptions, accept: bool) -> tuple[str, str] | None:
    try:
        committed = records.load(options.records, item.slug)
    except BuildError as problem:
        committed, difference = None, str(problem)
    else:
        lesson = item.parsed()
        difference = (
            "no committed record"
            if committed is None
            else records.drift(
                committed.record, item.ran(), lesson.front.volatile, lesson.output_varies()
            )
        )
    if committed is not None:
        full = options.cache / "drift" / item.slug / "record.diff"
        difference = bounded_diff(difference, full)
    if accept and (difference or committed is None):
        records.save(options.records, item.keyed(), item.ran())
    return (item.slug, difference) if difference else None
