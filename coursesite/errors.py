"""Errors an author can act on: each names a file, a line, the problem and the fix."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BuildError(Exception):
    """A problem in the author's input or code, reported without a generator traceback."""

    message: str
    path: Path | str | None = None
    line: int | None = None
    hint: str | None = None
    detail: str | None = None  # e.g. a traceback in lesson-file terms

    @property
    def where(self) -> str:
        """'file:line', 'file', or '' when the problem is in no file."""
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        if self.detail:
            text += "\n" + "\n".join("  | " + row for row in self.detail.rstrip().splitlines())
        return text


class BuildErrors(Exception):
    """Several BuildErrors collected from one stage, reported together."""

    def __init__(self, errors: list[BuildError]):
        super().__init__(f"{len(errors)} error(s)")
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """A ' (did you mean 'x'?)' suffix when a close choice exists, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
