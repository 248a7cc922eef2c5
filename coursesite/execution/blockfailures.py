"""Every failed block of a lesson, as one build reports them: one message per cause,
with a line under it naming the blocks that failed only because of it.

The runner goes on after a failed block (runner.run_every_block), so a later block may
fail only because an earlier one did: a NameError for a name that a failed block would
have defined, an AttributeError or TypeError on a name it did not get to rebind
(consequences.py proves which, from names). Its traceback and "fix the code" hint would
send the author to a mistake that is not there, and an imported tutorial whose first cell
imports a missing package would list a dozen of them; so each is folded into one line
under its cause ("steps 2, 3, 5-14 failed because step 1 failed (names: grain, tfds)"),
through the blocks that failed because a consequence did. Blocks that fail with the very
error and hint of an earlier one (a mesh larger than the devices, built in four steps) are
one cause too: one message, and a line naming the others and their lines. So are blocks
that use what one installed package lacks (code written for another version of jax:
`jax.core.Primitive` in one step, `jax.abstract_arrays` in another): one message, and a
line naming each block, the name and its line. A block that fails for want of a module
is one cause with every other such block: its hint names every missing module the lesson
imports (missingmodules.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError, each_error, grouped
from coursesite.execution.consequences import (
    Consequence,
    LessonFailures,
    bound_names,
    import_aliases,
)
from coursesite.execution.dependencies import own_module_names
from coursesite.execution.devicehints import MACHINE_CAUSES
from coursesite.execution.failures import (
    NETWORK_HINT,
    FailedJob,
    failure_error,
    missing_data_file,
)
from coursesite.execution.installedlibraries import (
    keyword_drift,
    lacked_by_installed,
    refused_drift,
)
from coursesite.execution.missingmodules import (
    missing_module,
    missing_modules,
    missing_modules_hint,
)
from coursesite.execution.networkfailures import (
    after_own_quiet_read,
    after_quiet_read,
    after_unrun_download,
    host_of,
    other_reads_line,
    quiet_reads,
    unrun_downloads,
)

__all__ = [
    "LessonJobWithCode",
    "after_failed_blocks",
    "bound_names",
    "lesson_failures_error",
    "quiet_reads_error",
]


class LessonJobWithCode(FailedJob, Protocol):
    """What of a lesson's job the failures need: FailedJob's, and the blocks' code."""

    @property
    def payload(self) -> dict: ...
    @property
    def inputs(self) -> dict[str, bytes]: ...


def lesson_failures_error(failures: list[dict], result: dict, job: LessonJobWithCode) -> BuildError:
    """The BuildError for the runner's `failures` (in the order the blocks ran): one per
    cause, each with a line under it naming the blocks that failed only because of it."""
    so_far = LessonFailures(job.payload["blocks"], job.payload.get("source_path", str(job.path)))
    causes: dict[str, BuildError] = {}  # by the failed block's id, in the order they ran
    root: dict[str, str] = {}  # a consequence's block -> the cause it follows from
    followers: dict[str, list[tuple[str, str]]] = {}  # cause -> (block, name) it failed on
    modules = _MissingModules(job)
    seen: dict[tuple[str, str], str] = {}  # (message, hint) -> the first block failing so
    alike: dict[str, list[tuple[str, int]]] = {}  # cause -> (block, line) failing the same
    lacking: dict[str, str] = {}  # an installed package -> the first block using what it lacks
    lacked_in: dict[str, str] = {}  # that first block -> the package
    drifted: dict[str, list[tuple[str, int, str]]] = {}  # that block -> (block, line, name)
    blocks = job.payload["blocks"]
    reads = quiet_reads(blocks, result.get("blocks", []), {f["block"] for f in failures})
    downloads = unrun_downloads(blocks)
    network: dict[str, list[tuple[str, int, str]]] = {}  # the first -> (block, line, host)
    unfound: dict[str, list[tuple[str, int, str]]] = {}  # the first -> (block, line, file)
    aliases = import_aliases([block["code"] for block in blocks])
    outputs = result.get("blocks", [])
    ran_at = {output["id"]: n for n, output in enumerate(outputs)}
    failed = {failure["block"] for failure in failures}
    # The blocks that raised what they declare, in the order they ran.
    raised = [o for o in outputs if o.get("raised") and o["id"] not in failed]
    raised_by = {output["id"]: output["raised"] for output in raised}
    for failure in failures:
        failure = {**failure, "aliases": aliases}
        block = failure["block"]
        while raised and ran_at[raised[0]["id"]] < ran_at.get(block, len(outputs)):
            so_far.note_raised(raised.pop(0)["id"])
        if found := so_far.consequence(failure):
            cause = root.get(found.cause, found.cause)
            if cause not in causes and cause not in failed:  # it raised as it declares
                causes[cause] = _raised_as_declared_error(raised_by[cause], cause, failure, job)
            if cause in causes:
                root[block] = cause
                followers.setdefault(cause, []).append((block, found.name))
            else:  # not one this report names (cannot happen): reported in full
                causes[block] = _consequence_error(failure, found, job)
        elif (first := modules.first_failed_on(failure)) and first in causes:
            root[block] = first  # what fails for want of its names follows from it too
            followers.setdefault(first, []).append((block, ""))  # the same hint lists it
        else:
            failure = after_unrun_download(
                after_quiet_read(failure, blocks, reads), blocks, downloads
            )
            failure = after_own_quiet_read(failure, result.get("blocks", []))
            if failure.get("network") and network and block not in network:
                first = next(iter(network))  # no network: one cause, however many hosts
                root[block] = first
                network[first].append((block, failure["line"], host_of(failure)))
                continue
            if failure.get("network"):
                network[block] = []
            # Files not beside the lesson (a data set's, from Kaggle): one cause, one fix.
            if file := missing_data_file(failure):
                first = next(iter(unfound), block)
                unfound.setdefault(first, [])
                if first != block:
                    root[block] = first
                    unfound[first].append((block, failure["line"], file))
                    continue
            if lacked := (
                lacked_by_installed(failure) or keyword_drift(failure) or refused_drift(failure)
            ):
                first = lacking.setdefault(lacked.package, block)
                lacked_in.setdefault(first, lacked.package)
                if first != block:  # another name of the same version: one cause
                    root[block] = first
                    drifted.setdefault(first, []).append((block, failure["line"], lacked.name))
                    continue
            error = failure_error(failure, result, job)
            said = "" if error.hint in MACHINE_CAUSES else failure["message"]
            first = seen.setdefault((said, _cell_named_apart(error.hint or "")), block)
            if first != block:  # the same error and hint again: one message, one cause
                root[block] = first
                alike.setdefault(first, []).append((block, failure["line"]))
                continue
            causes[block] = error
            if modules.first_failed_on(failure) == block:
                causes[block].hint = modules.hint()
    for cause in causes:
        same = causes[cause].hint not in MACHINE_CAUSES  # else one cause in other words
        lines = [_alike_line(alike.get(cause, []), job.labels, same)]
        lines.append(_drifted_line(drifted.get(cause, []), job.labels, lacked_in.get(cause, "")))
        lines.append(_unfound_line(unfound.get(cause, []), job.labels))
        reached = network.get(cause, [])
        lines.append(
            other_reads_line(reached, _blocks_named([b for b, _, _ in reached], job.labels))
        )
        did = "failed" if cause in failed else "raised"
        lines.append(_followers_line(cause, followers.get(cause, []), job.labels, did))
        causes[cause].detail = "\n".join(filter(None, [*lines, causes[cause].detail]))
    return grouped(list(causes.values()))


def quiet_reads_error(result: dict, job: LessonJobWithCode) -> BuildError | None:
    """For a run in which no block failed but one printed a network failure (yfinance
    prints "Could not resolve host" and returns an empty table, which a later step plots as
    an empty chart): the page would show what a download that never came gives, as the
    lesson's result. One message for every such block, at the first."""
    blocks = job.payload["blocks"]
    reads = quiet_reads(blocks, result.get("blocks", []), set())
    if not reads:
        return None
    first, others = reads[0], reads[1:]
    label = job.labels.get(first.block, "prose")
    lines = job.step_lines
    return BuildError(
        f"{label} read the network and got nothing, though it raised no error: it printed "
        f"'{first.said}' and went on with what the read returned, which the page would show "
        "as the lesson's result",
        job.path,
        lines.get(first.block),
        hint=NETWORK_HINT,
        detail=(
            f"{_blocks_named([read.block for read in others], job.labels)} printed such a "
            f"failure too, at line{'s' * (len(others) > 1)} "
            f"{', '.join(str(lines.get(read.block)) for read in others)}"
        )
        if others
        else None,
    )


def _cell_named_apart(hint: str) -> str:
    """A hint without the notebook cell it names (the stored-run hint's "(cell 12)"): the
    same failure in two cells of a notebook is one cause."""
    return re.sub(r"\(cell \d+\)", "(cell)", hint)


def _alike_line(blocks: list[tuple[str, int]], labels: dict[str, str], same: bool = True) -> str:
    """'steps 11, 12 failed with the same error too, at lines 167, 177': one message for
    one cause, such as a mesh larger than the devices, met by every block that builds one."""
    if not blocks:
        return ""
    # Steps that call one function of an earlier step fail at that function's one line.
    lines = list(dict.fromkeys(str(line) for _, line in blocks))
    return (
        f"{_blocks_named([block for block, _ in blocks], labels)} failed "
        f"{'with the same error' if same else 'for the same cause'} too, "
        f"at line{'s' if len(lines) > 1 else ''} {', '.join(lines)}"
    )


def _drifted_line(blocks: list[tuple[str, int, str]], labels: dict[str, str], package: str) -> str:
    """'steps 9, 11 use more that the installed jax lacks: jax.abstract_arrays (line 281),
    jax.lib.xla_client (line 322)': one cause, the version the code was written for."""
    if not blocks:
        return ""
    names = ", ".join(f"{name} (line {line})" for _, line, name in blocks)
    verb = "uses" if len({block for block, _, _ in blocks}) == 1 else "use"
    return (
        f"{_blocks_named([block for block, _, _ in blocks], labels)} {verb} more that the "
        f"installed {package} lacks: {names}"
    )


class _MissingModules:
    """The modules the lesson imports that are not installed (missingmodules.py), found
    once a block failed for want of one of them."""

    def __init__(self, job: LessonJobWithCode) -> None:
        self.job = job
        self.missing: dict[str, list[str]] | None = None
        self.first = ""  # the first block that failed on one

    def first_failed_on(self, failure: dict) -> str:
        """The first block that failed on a missing module, if `failure` is one too."""
        # Or the import the lesson's own error was raised while handling ("needs pydot").
        module = missing_module(failure["message"]) or missing_module(
            failure.get("while_missing") or ""
        )
        if module is None:
            return ""
        if self.missing is None:
            local = own_module_names(self.job.inputs)
            self.missing = missing_modules(self.job.payload["blocks"], local)
        # Python names the first package of the chain it did not find ('google.cloud' of
        # google.cloud.storage): a module missing_modules lists, or one inside it.
        if not any(m == module or m.startswith(f"{module}.") for m in self.missing):
            return ""
        self.first = self.first or failure["block"]
        return self.first

    def hint(self) -> str:
        text = self.job.payload.get("source_text", "")
        return missing_modules_hint(self.missing or {}, self.job.labels, text)


def _followers_line(
    cause: str, blocks: list[tuple[str, str]], labels: dict[str, str], did: str = "failed"
) -> str:
    """'steps 2, 3, 5-14 failed because step 1 failed (names: grain, tfds)' (or 'raised',
    for a block that raised what it declares), and the blocks that failed on another of the
    missing modules the hint lists."""
    label = labels.get(cause, cause)
    named = [(block, name) for block, name in blocks if name]
    lines = []
    if named:
        names = ", ".join(dict.fromkeys(name for _, name in named))
        lines.append(
            f"{_blocks_named([b for b, _ in named], labels)} failed because {label} {did} "
            f"(names: {names})"
        )
    if modules := [block for block, name in blocks if not name]:
        lines.append(f"{_blocks_named(modules, labels)} failed on modules the hint lists too")
    return "\n".join(lines)


def _unfound_line(blocks: list[tuple[str, int, str]], labels: dict[str, str]) -> str:
    """'steps 9, 12 read files not beside the lesson too: test.csv (line 133), ...'."""
    if not blocks:
        return ""
    files = ", ".join(f"{file} (line {line})" for _, line, file in blocks)
    named = _blocks_named([block for block, _, _ in blocks], labels)
    return f"{named} read files not beside the lesson too (save and list them as well): {files}"


def _blocks_named(blocks: list[str], labels: dict[str, str]) -> str:
    """'steps 2, 3, 5-14' for blocks labelled 'step 2' ... ; other labels as they are."""
    numbers: list[int] = []
    others: list[str] = []
    for block in dict.fromkeys(blocks):
        label = labels.get(block, block)
        if step := re.fullmatch(r"step (\d+)", label):
            numbers.append(int(step.group(1)))
        else:
            others.append(label)
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    spans = [
        str(run[0])
        if len(run) == 1
        else f"{run[0]}, {run[1]}"
        if len(run) == 2
        else f"{run[0]}-{run[-1]}"
        for run in runs
    ]
    named = []
    if spans:
        named.append(("step " if len(numbers) == 1 else "steps ") + ", ".join(spans))
    return ", ".join(named + others)


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


def _raised_as_declared_error(
    raised: dict, cause: str, follower: dict, job: LessonJobWithCode
) -> BuildError:
    """The error of a block that raised the exception it declares (`:raises:`) before it
    bound names later blocks use: the cause of their failures, worded and hinted as the
    failure it is for them (ImportError of a name the installed library lacks)."""
    code = next(block for block in job.payload["blocks"] if block["id"] == cause)
    failure = {
        **follower,
        "block": cause,
        "line": code["line"],
        "message": f"{raised['type']}: {raised['message']}",
        "traceback": "",
        "network": False,
        "positions": [],
    }
    error = failure_error(failure, {}, job)  # for its hint: what the exception means here
    error.message = (
        f"{job.labels.get(cause, cause)} raised what it declares (:raises:), before it "
        f"bound what later steps use: {failure['message']}"
    )
    return error


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
