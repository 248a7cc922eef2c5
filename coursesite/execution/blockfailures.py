"""Every failed block of a lesson, as one build reports them: causes first, then what
failed only because of them.

The runner goes on after a failed block (runner.run_every_block), so a later block may
fail only because an earlier one did: a NameError for a name that a failed block would
have defined. Its traceback and "fix the code" hint would send the author to a mistake
that is not there; it is reported in a short form that names the step to fix instead.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError, each_error, grouped
from coursesite.execution.failures import FailedJob, failure_error


class LessonJobWithCode(FailedJob, Protocol):
    """What of a lesson's job the failures need: FailedJob's, and the blocks' code."""

    @property
    def payload(self) -> dict: ...


UNDEFINED_NAME = re.compile(r"NameError: name '(\w+)' is not defined")


def lesson_failures_error(failures: list[dict], result: dict, job: LessonJobWithCode) -> BuildError:
    """The BuildError for the runner's `failures` (in the order the blocks ran): the first
    cause alone, or a GroupedBuildError of the causes then their consequences."""
    code = {block["id"]: block["code"] for block in job.payload["blocks"]}
    causes: list[BuildError] = []
    consequences: list[BuildError] = []
    bound_by: dict[str, str] = {}  # name -> the last failed block that binds it
    for failure in failures:
        undefined = UNDEFINED_NAME.match(failure["message"])
        cause = bound_by.get(undefined.group(1)) if undefined else None
        if undefined and cause:
            consequences.append(_consequence_error(failure, undefined.group(1), cause, job))
        else:
            causes.append(failure_error(failure, result, job))
        for name in bound_names(code.get(failure["block"], "")):
            bound_by[name] = failure["block"]
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


def _consequence_error(failure: dict, name: str, cause: str, job: FailedJob) -> BuildError:
    label, cause_label = job.labels.get(failure["block"], "prose"), job.labels.get(cause, cause)
    return BuildError(
        f"{label} failed: name '{name}' is not defined, because {cause_label} failed",
        job.path,
        failure["line"],
        hint=f"fix {cause_label} first: it defines '{name}', which this block uses",
    )


def bound_names(code: str) -> set[str]:
    """The names `code` assigns, defines or imports anywhere (nested scopes too: a
    name too many only makes a NameError read as a consequence, which it then most
    likely is). Nothing for code that does not parse: it failed before binding anything."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names
