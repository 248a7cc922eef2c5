"""Ruff's findings on a lesson's code read as one program, as main.py runs it.

Ruff is a dependency of the import (its NPY201 rule holds NumPy 2's migration table; its
pyflakes rules find names no step defines). The steps are joined in order, and each
finding is given back at its step and line there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

RUFF_SECONDS = 60


@dataclass(frozen=True)
class Finding:
    step: int
    offset: int  # its line in the step's code, from 0
    column: int  # from 0
    end_column: int | None  # where it ends on its line, or None past it
    message: str
    fix: str  # the text ruff's fix puts at the finding's start, or ''


def ruff_findings(steps: list[tuple[int, str, str]], rule: str, *options: str) -> list[Finding]:
    """Ruff's findings of `rule` (or rules, "NPY001,NPY201") on the steps (number, cell,
    code) read as one program; none where ruff cannot be run or read them. `options` are
    ruff's own (`--config`)."""
    lines: list[str] = []
    rows: list[tuple[int, int]] = []
    for number, _, code in steps:
        for offset, line in enumerate(code.splitlines()):
            lines.append(line)
            rows.append((number, offset))
    found = []
    for violation in _violations("\n".join(lines) + "\n", rule, options):
        row, column = violation["location"]["row"], violation["location"]["column"]
        end = violation["end_location"]
        if row > len(lines):
            continue
        edits = (violation.get("fix") or {}).get("edits", [])
        fix = next(
            (e["content"] for e in edits if e["location"] == {"row": row, "column": column}), ""
        )
        step, offset = rows[row - 1]
        end_column = end["column"] - 1 if end["row"] == row else None
        found.append(Finding(step, offset, column - 1, end_column, violation["message"], fix))
    return found


def _violations(program: str, rule: str, options: tuple[str, ...]) -> list[dict]:
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", rule, *options]
    command += ["--output-format", "json", "--stdin-filename", "lesson.py", "-"]
    try:
        done = subprocess.run(
            command, input=program, capture_output=True, text=True, timeout=RUFF_SECONDS
        )
        found = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    return [v for v in found if isinstance(v, dict) and v.get("code") in rule.split(",")]
