"""What NumPy 2 removed, written as NumPy 2 has it, by ruff's NPY201 rule.

NumPy 2.0 took about fifty names out of its main namespace. For some its error says what
to use (renames.py reads "Use `np.str_` instead."); for others it says only "module 'numpy'
has no attribute 'NAN'". Ruff's NPY201 rule carries NumPy's migration table: the import
asks it about the lesson's code, read as one program (the `np` of step 1 is numpy in step
5), and takes its fix for a name the installed NumPy lacks. Where ruff gives no fix, the
replacement behaves differently (`np.in1d` flattens, `np.isin` keeps the shape): its advice
goes into the report, and the author decides.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

RUFF_SECONDS = 60


@dataclass(frozen=True)
class Migration:
    old: str  # the use as the code writes it: `np.NAN`
    new: str  # what NumPy 2 has in its place (`np.nan`), or '' where ruff has no fix
    advice: str  # ruff's words: "`np.in1d` will be removed in NumPy 2.0. Use `np.isin` ..."


def numpy_migrations(steps: list[tuple[int, str, str]]) -> dict[tuple[int, int], list[Migration]]:
    """The migrations of the steps (number, cell, code), by (step, line in its code)."""
    lines: list[str] = []
    rows: list[tuple[int, int]] = []
    for number, _, code in steps:
        for offset, line in enumerate(code.splitlines()):
            lines.append(line)
            rows.append((number, offset))
    found: dict[tuple[int, int], list[Migration]] = {}
    for violation in _ruff_violations("\n".join(lines) + "\n"):
        row, column = violation["location"]["row"], violation["location"]["column"]
        end = violation["end_location"]
        if row > len(lines) or end["row"] != row:
            continue
        old = lines[row - 1][column - 1 : end["column"] - 1]
        edits = (violation.get("fix") or {}).get("edits", [])
        new = next(
            (
                edit["content"]
                for edit in edits
                if edit["location"] == {"row": row, "column": column}
            ),
            "",
        )
        found.setdefault(rows[row - 1], []).append(Migration(old, new, violation["message"]))
    return found


def _ruff_violations(program: str) -> list[dict]:
    """Ruff's NPY201 findings in `program`, none where ruff cannot be run or read it."""
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "NPY201"]
    command += ["--output-format", "json", "--stdin-filename", "lesson.py", "-"]
    try:
        done = subprocess.run(
            command, input=program, capture_output=True, text=True, timeout=RUFF_SECONDS
        )
        found = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    return [v for v in found if isinstance(v, dict) and v.get("code") == "NPY201"]
