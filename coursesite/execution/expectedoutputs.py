"""Outputs a lesson is expected to reproduce: those a notebook stored when it was imported.

`build.py import` keeps each code cell's stored output in a YAML file beside the lesson and
names it in the front matter (`expected_outputs:`). After every run, each block's fresh
output is compared with it, volatile lines masked as `build.py check` masks them, and each
difference is a warning (so `build.py check` fails) at the block's line, with the diff.
Once the author has read the differences, they delete the file and the front-matter line.

A stored output too long to keep whole (a notebook may store megabytes) is kept as its first
and last lines around a marker (`capped`); the fresh output is cut the same way before the
two are compared, so a long output that did not change gives no warning. A difference shows
its first lines; the whole diff is written beside the cache (diffreport.py).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import msgspec
import yaml

from coursesite.config.yamlmodel import dump_yaml
from coursesite.errors import BuildError
from coursesite.execution.diffreport import bounded_diff
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord, mask_volatile
from coursesite.lesson.model import Lesson

# Characters of a stored output the expected-outputs file keeps, from its start and its end.
KEPT_HEAD, KEPT_TAIL = 20_000, 5_000


def capped(text: str) -> str:
    """`text`, or when it is longer than KEPT_HEAD + KEPT_TAIL (and a marker's room), its
    first and last whole lines with a line between them saying what was left out. The
    result is short enough to stay as it is when capped again."""
    if len(text) <= KEPT_HEAD + KEPT_TAIL + 200:
        return text
    head, tail = text[:KEPT_HEAD], text[-KEPT_TAIL:]
    if "\n" in head:
        head = head[: head.rindex("\n") + 1]
    if "\n" in tail[:-1]:
        tail = tail[tail.index("\n") + 1 :]
    left = text[len(head) : len(text) - len(tail)]
    marker = (
        f"[… {left.count(chr(10)):,} lines, {len(left):,} characters left out: only the "
        "first and last lines are kept and compared …]\n"
    )
    return head + ("" if head.endswith("\n") else "\n") + marker + tail


class StoredOutput(msgspec.Struct, forbid_unknown_fields=True):
    stdout: str = ""
    display: str = ""
    cell: str = ""  # where the notebook holds it ("cell 5", "line 40"); older files lack it


class ExpectedOutputs(msgspec.Struct, forbid_unknown_fields=True):
    source: str  # the notebook they came from, as given to `build.py import`
    blocks: dict[str, StoredOutput]


def dump_expected(source: str, blocks: dict[str, StoredOutput]) -> str:
    """The YAML file `build.py import` writes; block ids are those of the lesson's record."""
    data = msgspec.to_builtins(ExpectedOutputs(source, blocks))
    header = (
        "# Outputs stored in the notebook this lesson was imported from. Every build compares\n"
        "# them with what the lesson's blocks print now and warns about each difference.\n"
        "# Once you have checked them, delete this file and the lesson's `expected_outputs:`.\n"
    )
    return header + dump_yaml(data)


def output_drift(
    lesson: Lesson, record: ExecutionRecord, data: bytes, reports: Path
) -> list[BuildError]:
    """A warning per block whose fresh output differs from the stored one; a long diff is
    cut, and written whole to `reports`/BLOCK.diff."""
    name = lesson.front.expected_outputs or ""
    path = lesson.path.parent / name
    try:
        expected = msgspec.convert(yaml.safe_load(data.decode("utf-8")), ExpectedOutputs)
    except (yaml.YAMLError, UnicodeDecodeError, msgspec.ValidationError) as problem:
        return [
            BuildError(
                f"expected outputs file {name} cannot be read: {problem}",
                path,
                hint="it is written by `build.py import`; delete it and the lesson's "
                "`expected_outputs:` line once its outputs are checked",
            )
        ]
    lines = {block.id: block.code.line for block in lesson.runnable_blocks()}
    warnings = []
    for block_id, stored in expected.blocks.items():
        fresh = record.blocks.get(block_id)
        if fresh is None or block_id not in lines:
            warnings.append(
                BuildError(
                    f"{name} has outputs for '{block_id}', which the lesson no longer has",
                    path,
                    hint="delete that entry, or the whole file once the outputs are checked",
                )
            )
            continue
        difference = _difference(stored, fresh, lesson.front.volatile, expected.source)
        if difference:
            warnings.append(
                BuildError(
                    f"output of {block_id} differs from the output stored in {expected.source}"
                    + (f" ({stored.cell})" if stored.cell else ""),
                    lesson.path,
                    lines[block_id],
                    hint=f"if the new output is right, remove '{block_id}' from {name}",
                    detail=bounded_diff(difference, reports / f"{block_id}.diff"),
                )
            )
    return warnings


def _difference(stored: StoredOutput, fresh: BlockOutput, volatile: list[str], source: str) -> str:
    def comparable(stdout: str, display: str) -> list[str]:
        return mask_volatile(capped(stdout), volatile) + [
            "Out: " + line for line in mask_volatile(capped(display), volatile)
        ]

    return "\n".join(
        difflib.unified_diff(
            comparable(stored.stdout, stored.display),
            comparable(fresh.stdout, fresh.display),
            fromfile=f"stored in {Path(source).name}",
            tofile="fresh run",
            lineterm="",
        )
    )
