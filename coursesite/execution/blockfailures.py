"""Every failed block of a lesson, as one build reports them: causes first, then what
failed only because of them.

The runner goes on after a failed block (runner.run_every_block), so a later block may
fail only because an earlier one did: a NameError for a name that a failed block would
have defined, an AttributeError or TypeError on a name it did not get to rebind
(consequences.py proves which, from names). Its traceback and "fix the code" hint would
send the author to a mistake that is not there; it is reported in a short form that names
the step to fix instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError, each_error, grouped
from coursesite.execution.consequences import Consequence, LessonFailures, bound_names
from coursesite.execution.failures import FailedJob, failure_error

__all__ = ["after_failed_blocks", "bound_names", "lesson_failures_error"]


class LessonJobWithCode(FailedJob, Protocol):
    """What of a lesson's job the failures need: FailedJob's, and the blocks' code."""

    @property
    def payload(self) -> dict: ...


def lesson_failures_error(failures: list[dict], result: dict, job: LessonJobWithCode) -> BuildError:
    """The BuildError for the runner's `failures` (in the order the blocks ran): the first
    cause alone, or a GroupedBuildError of the causes then their consequences."""
    so_far = LessonFailures(job.payload["blocks"], job.payload.get("source_path", str(job.path)))
    causes: list[BuildError] = []
    consequences: list[BuildError] = []
    for failure in failures:
        if found := so_far.consequence(failure):
            consequences.append(_consequence_error(failure, found, job))
        else:
            causes.append(failure_error(failure, result, job))
    return grouped(causes + consequences)


FAILURES_SO_FAR = "failures-so-far.json"  # the runner writes it in its folder as blocks fail


def after_failed_blocks(stopped: BuildError, folder: Path, job: LessonJobWithCode) -> BuildError:
    """`stopped` (the lesson ran too long, or ended without a result), after the blocks
    that had failed before it, if any did: a block that runs on after a failure may hang
    or crash because of it, and the author must still see the failure that caused it."""
    try:
        failures = json.loads((folder / FAILURES_SO_FAR).read_text(encoding="utf-8"))
        earlier = lesson_failures_error(failures, {}, job) if failures else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # none, or damaged
        return stopped
    if earlier is None:
        return stopped
    stopped.message += ", after blocks had failed before it"
    stopped.hint = f"fix the failures above first, which may be the cause; else: {stopped.hint}"
    return grouped([*each_error(earlier), stopped])


def _consequence_error(failure: dict, found: Consequence, job: FailedJob) -> BuildError:
    label = job.labels.get(failure["block"], "prose")
    cause, name = job.labels.get(found.cause, found.cause), found.name
    if found.kind == "undefined":
        message, hint = (
            f"name '{name}' is not defined",
            f"fix {cause} first: it defines '{name}', which this block uses",
        )
    else:
        message = failure["message"]
        hint = (
            f"fix {cause} first: it failed before it (re)bound '{name}', which this block "
            f"uses, so '{name}' still held what it held before {cause}"
        )
    return BuildError(
        f"{label} failed: {message}, because {cause} failed", job.path, failure["line"], hint=hint
    )
