"""Where a lesson was when its run ended without a result: the step the build stopped at
its timeout or memory limit, or the one in which the interpreter crashed.

Such a run leaves no record of its blocks; "lesson code ran longer than 600 s" alone sends
the author through every step of a long tutorial to find the slow one. The runner writes,
as each block starts, which it is and how long each block before it took
(runner.run_every_block); the error is then put at that block's line and says how far the
run had got.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError

RUNNING_BLOCK = "running-block.json"  # the runner writes it in its folder as blocks start


class RunningJob(Protocol):
    """What of a lesson's job the message needs."""

    @property
    def payload(self) -> dict: ...
    @property
    def labels(self) -> dict[str, str]: ...


def at_running_block(ended: BuildError, folder: Path, job: RunningJob) -> BuildError:
    """`ended` (a run stopped or crashed), at the line of the block that was running, and
    saying how long the blocks before it took; as it was if the runner wrote no such file
    (it had not started a block) or the lesson damaged it."""
    try:
        running = json.loads((folder / RUNNING_BLOCK).read_text(encoding="utf-8"))
        block, done = running["block"], [(str(id), float(took)) for id, took in running["done"]]
        line = next(b["line"] for b in job.payload["blocks"] if b["id"] == block)
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return ended
    label = job.labels.get(block, "a block")
    ended.line = line
    ended.message += f", in {label}, " + _before(done, job.labels)
    return ended


def _before(done: list[tuple[str, float]], labels: dict[str, str]) -> str:
    if not done:
        return "the first block to run"
    total = sum(took for _, took in done)
    slowest, took = max(done, key=lambda block: block[1])
    said = f"after the {len(done)} before it had run in {total:.0f} s"
    if len(done) > 1 and took >= 1:
        said += f" (the longest: {labels.get(slowest, slowest)}, {took:.0f} s)"
    return said
