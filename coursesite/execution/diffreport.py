"""A diff as the terminal shows it: its first lines, and the whole of it in a file.

An output of a million lines that drifted would otherwise print a million-line diff."""

from __future__ import annotations

from pathlib import Path

from coursesite.files import write_atomically

SHOWN_LINES = 40
SHOWN_WIDTH = 240  # characters of a diff line shown: one line may be megabytes


def bounded_diff(diff: str, full: Path) -> str:
    """`diff` cut to SHOWN_LINES lines of at most SHOWN_WIDTH characters; when anything
    was cut, the whole diff is written to `full` and the last line says where. A short
    diff removes an earlier `full`, which would no longer be this diff."""
    lines = diff.splitlines()
    shown = [_cut(line) for line in lines[:SHOWN_LINES]]
    if shown == lines:
        full.unlink(missing_ok=True)
        return diff
    write_atomically(full, diff + "\n")
    more = len(lines) - len(shown)
    if more:
        shown.append(f"… {more:,} more lines, full diff in {full}")
    else:
        shown.append(f"… long lines cut, full diff in {full}")
    return "\n".join(shown)


def _cut(line: str) -> str:
    return line if len(line) <= SHOWN_WIDTH else line[:SHOWN_WIDTH] + "…"
