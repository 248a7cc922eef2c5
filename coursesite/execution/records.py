"""Frozen records: the committed, human-readable copy of each lesson's last execution.

`records/<slug>.yaml` holds what the lesson printed, block by block, with multi-line output
as YAML block text so that a drift shows up as a readable diff in review. A publishing
machine builds with `--frozen` from these files without running any code; `build.py check`
re-runs the lessons and diffs fresh output against them.

A record also keeps *receipts*: when the same code printed the same output on another kind
of hardware (JAX saw a TPU on a cluster's worker, say), the page lists each kind it was
verified on. The kind is always what the lesson's device probe saw (probes.py), never the
worker's resources.
"""

from __future__ import annotations

import difflib
import json
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from coursesite.config.yamlmodel import LOADER
from coursesite.errors import BuildError
from coursesite.execution.executionkey import CacheKey, explain_miss
from coursesite.execution.executionrecord import (
    ExecutionRecord,
    mask_volatile,
    record_from_json,
    record_to_json,
)
from coursesite.files import write_atomically
from coursesite.lesson.model import Lesson

# The parts of an execution key that belong to the lesson itself; the interpreter and
# package versions may differ on a publishing machine without making the record stale.
_CODE_PARTS = ("code:", "values", "file:")


def code_parts(key: CacheKey) -> dict[str, str]:
    return {name: value for name, value in key.parts.items() if name.startswith(_CODE_PARTS)}


@dataclass(frozen=True)
class FrozenRecord:
    code: dict[str, str]
    record: ExecutionRecord


# libyaml's C loader and dumper when PyYAML has them: ten times faster on large outputs.


class _LiteralDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Writes multi-line strings as `|` blocks: outputs stay readable in diffs."""


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    style = "|" if "\n" in text else None  # PyYAML falls back when a block cannot hold it
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_LiteralDumper.add_representer(str, _represent_text)


def record_path(folder: Path, slug: str) -> Path:
    return folder / f"{slug}.yaml"


def save(folder: Path, key: CacheKey, record: ExecutionRecord) -> None:
    data = {"lesson": record.lesson, "code": code_parts(key), "record": record_to_json(record)}
    text = yaml.dump(data, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=100)
    write_atomically(record_path(folder, record.lesson), text)


def update(
    folder: Path, key: CacheKey, record: ExecutionRecord, committed: FrozenRecord | None
) -> None:
    """Save `record` unless `committed` (from `same_run`) already holds the same run.

    Re-running unchanged code therefore leaves records/ untouched (no new timestamp to
    commit), while a changed output shows up as a diff of records/ in review.
    """
    if committed is None or _kinds(committed.record) != _kinds(record):
        save(folder, key, record)


def receipt(record: ExecutionRecord) -> dict:
    """What one run vouches for: the hardware kind it saw, machine, date and versions."""
    return {
        "hardware": record.hardware,
        "host": record.host,
        "timestamp": record.timestamp,
        "python": record.python,
        "packages": dict(record.packages),
        "devices": record.devices,
        "worker_resources": record.worker_resources,
    }


def with_receipts(record: ExecutionRecord, committed: FrozenRecord | None) -> ExecutionRecord:
    """`record` with the receipts of other hardware kinds that `committed` (from `same_run`)
    holds, one per kind; with none when there is no committed record of the same run."""
    if committed is None:
        return record
    by_kind: dict[str, dict] = {}
    for earlier in (receipt(committed.record), *committed.record.receipts):
        # The newest receipt of a kind wins; this run is the receipt of its own kind.
        if earlier["hardware"] not in (record.hardware, *by_kind):
            by_kind[earlier["hardware"]] = earlier
    return replace(record, receipts=[by_kind[kind] for kind in sorted(by_kind)])


def same_run(
    folder: Path,
    lesson: Lesson,
    key: CacheKey,
    record: ExecutionRecord,
    warnings: list[str] | None = None,
) -> FrozenRecord | None:
    """The committed record, if it ran the same code and printed the same output. A record
    that cannot be read is replaced by this run: `warnings` hears about it."""
    try:
        committed = load(folder, record.lesson)
    except BuildError as problem:
        if warnings is not None:
            warnings.append(f"{problem.where}: {problem.message}; it is replaced by this run")
        return None
    if (
        committed is None
        or staleness(committed, key)
        or drift(committed.record, record, lesson.front.volatile, lesson.output_varies())
    ):
        return None
    return committed


def _kinds(record: ExecutionRecord) -> list[str]:
    """The kinds a record was verified on; a re-run on the same kinds leaves records/ as is."""
    return [record.hardware] + [earlier["hardware"] for earlier in record.receipts]


def load(folder: Path, slug: str) -> FrozenRecord | None:
    """The committed record of `slug`, or None when there is none; raises BuildError,
    naming the file (and the line, for invalid YAML), if it cannot be read as a record."""
    path = record_path(folder, slug)
    if not path.is_file():
        return None
    try:
        return _parse(path.read_text(encoding="utf-8"))
    # A record of the wrong shape (`code` as a list, `blocks` as a list) fails as one of
    # these; a file that is not UTF-8 as UnicodeDecodeError, a ValueError.
    except (yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as problem:
        mark = getattr(problem, "problem_mark", None)
        raise BuildError(
            f"not a readable record ({type(problem).__name__})",
            path,
            mark.line + 1 if mark else None,
            hint="restore it from version control, or delete it and build again without --frozen",
        ) from None


def _parse(text: str) -> FrozenRecord:
    data = yaml.load(text, Loader=LOADER)
    return FrozenRecord(dict(data["code"]), record_from_json(data["record"]))


def restore_from_version_control(
    folder: Path, lesson: Lesson, key: CacheKey, record: ExecutionRecord
) -> bool:
    """Put back the record that git's HEAD holds when `record` is the same run; True if so.

    Reverting an edit runs the lesson again, and its fresh record differs from the one in
    version control only in timestamps and timings: saving it would leave a change to
    commit that changes nothing. Without git, or outside a repository, this does nothing.
    """
    path = record_path(folder, record.lesson)
    try:
        shown = subprocess.run(
            ["git", "show", f"HEAD:./{path.name}"], cwd=folder, capture_output=True, timeout=30
        )
        committed = _parse(shown.stdout.decode("utf-8")) if shown.returncode == 0 else None
    except (
        OSError,
        subprocess.TimeoutExpired,
        UnicodeDecodeError,
        yaml.YAMLError,
        KeyError,
        TypeError,
    ):
        return False
    if (
        committed is None
        or staleness(committed, key)
        or _kinds(committed.record) != _kinds(record)
        or drift(committed.record, record, lesson.front.volatile, lesson.output_varies())
    ):
        return False
    if not path.is_file() or path.read_bytes() != shown.stdout:
        write_atomically(path, shown.stdout)
    return True


def staleness(frozen: FrozenRecord, key: CacheKey) -> str:
    """Why the committed record no longer matches the lesson's code ('' if it does)."""
    return explain_miss(frozen.code, code_parts(key))


def comparable_output(
    record: ExecutionRecord, volatile: list[str], varying: frozenset[str] = frozenset()
) -> list[str]:
    """The record's output as lines, block by block, with volatile lines masked: what it
    printed, the value it displayed, what it raised and its figure's data; of the blocks
    `varying` (tagged nbval-ignore-output), only what they raised."""
    lines = []
    for block in record.blocks.values():
        lines.append(f"--- {block.id}")
        if block.id in varying:
            lines.append("(its output differs on every run: nbval-ignore-output)")
            lines += [f"raised: {block.raised.type}"] if block.raised else []
            continue
        for stream, text in (("", block.stdout), ("stderr: ", block.stderr)):
            lines.extend(stream + line for line in mask_volatile(text, volatile))
        lines.extend("Out: " + line for line in mask_volatile(block.display, volatile))
        if block.raised:
            lines.append(f"raised: {block.raised.type}: {block.raised.message}")
        if block.figure is not None:
            # One line per top-level field, so a diff names what moved (a series, a label).
            lines.extend(
                f"figure {name}: {json.dumps(value, sort_keys=True)}"
                for name, value in sorted(block.figure.items())
            )
    lines.extend(f"value {name} = {text}" for name, text in sorted(record.values.items()))
    return lines


def drift(
    committed: ExecutionRecord,
    fresh: ExecutionRecord,
    volatile: list[str],
    varying: frozenset[str] = frozenset(),
) -> str:
    """A unified diff of committed against fresh output, the blocks `varying` aside (but
    for what they raised); '' when they agree."""
    return "\n".join(
        difflib.unified_diff(
            comparable_output(committed, volatile, varying),
            comparable_output(fresh, volatile, varying),
            fromfile=f"records/{committed.lesson}.yaml",
            tofile="fresh run",
            lineterm="",
        )
    )
