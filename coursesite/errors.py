"""Errors an author can act on: each names a file, a line, the problem and the fix."""

from __future__ import annotations

import contextlib
import difflib
import errno
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
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


@dataclass
class GroupedBuildError(BuildError):
    """Several problems of one task (every failed block of one lesson) where callers expect
    one BuildError: it reads as the first of them (its file and line, for progress lines);
    `errors` holds them all, the first included, for the build's report."""

    errors: list[BuildError] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)


def grouped(errors: list[BuildError]) -> BuildError:
    """One error for `errors` (at least one): the only one, or their group."""
    if len(errors) == 1:
        return errors[0]
    first = errors[0]
    return GroupedBuildError(
        first.message, first.path, first.line, first.hint, first.detail, errors
    )


def each_error(error: BuildError) -> list[BuildError]:
    """The problems `error` stands for: its group's, or itself alone."""
    return error.errors if isinstance(error, GroupedBuildError) and error.errors else [error]


def report_warnings(warnings: list[BuildError]) -> None:
    """Print a build's warnings to stderr, as the command line and the preview show them."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


class BuildErrors(Exception):
    """Several BuildErrors collected from one stage, reported together."""

    def __init__(self, errors: list[BuildError]):
        super().__init__(f"{len(errors)} error(s)")
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)

    def report(self) -> None:
        """Print every problem to stderr, as the command line and the preview show them."""
        print(f"build failed: {len(self.errors)} problem(s); site not changed", file=sys.stderr)
        for error in self.errors:
            print(f"error: {error}", file=sys.stderr)


_FULL_DISK = (
    "free some disk space (df -h shows how full each disk is) and build again; the "
    "previous site is unchanged"
)
_ENVIRONMENT_HINTS = {
    errno.ENOSPC: _FULL_DISK,
    errno.EDQUOT: _FULL_DISK.replace("free some disk space", "free some of your disk quota"),
    errno.EACCES: "check the permissions of that file or folder",
    errno.EPERM: "check the permissions (and immutable flags) of that file or folder",
    errno.EROFS: "the file system is read-only: build into another folder with --out",
    errno.ENOENT: "a file went missing while the build ran: build again",
    errno.EEXIST: "a file stands where a folder is needed: move it, or build elsewhere with --out",
    errno.ENOTDIR: "a file stands where a folder is needed: move it, or build elsewhere with --out",
}


def environment_error(problem: OSError | UnicodeError) -> BuildError:
    """A failure of the machine rather than of the lesson (disk full, permissions, a file
    that is not text), as a BuildError naming the file when the system said which."""
    if isinstance(problem, UnicodeError):
        return BuildError(
            f"text that is not valid UTF-8: {problem}", hint="save the files of the course as UTF-8"
        )
    path = problem.filename if isinstance(problem.filename, (str, Path)) else None
    reason = problem.strerror or type(problem).__name__
    if problem.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = reason[0].lower() + reason[1:]  # "no space left on device"
        what = f"cannot write this file: {reason}"
    else:
        what = f"cannot use this file: {reason}"
    return BuildError(
        what if path else f"system error: {reason}",
        path,
        hint=_ENVIRONMENT_HINTS.get(
            problem.errno or 0, "fix the cause and build again; the previous site is unchanged"
        ),
    )


@contextlib.contextmanager
def environment_failures_reported() -> Iterator[None]:
    """Turn OSError and UnicodeError inside the block into BuildErrors."""
    try:
        yield
    except BrokenPipeError:
        raise  # whoever read our output went away: there is no one to tell
    except (OSError, UnicodeError) as problem:
        raise BuildErrors([environment_error(problem)]) from None


@contextlib.contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Name `path` in an OSError raised inside the block, where the system names no file
    (a disk that fills up as a file is closed) or names the source of a copy: the author
    needs to know which file was being written, and so where the disk is full."""
    try:
        yield
    except OSError as problem:
        if problem.errno is None or not (problem.filename is None or problem.filename2):
            raise
        raise OSError(problem.errno, problem.strerror, str(path)) from problem


def decode_utf8(data: bytes, path: Path) -> str:
    """The text of a course file; raise BuildErrors at the line of the first byte that is
    not UTF-8 (a file saved as Latin-1, say). A byte-order mark that some editors put first
    (UTF-8 with BOM) is not part of the text."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line = data[: problem.start].count(b"\n") + 1
        raise BuildErrors(
            [
                BuildError(
                    f"not UTF-8 text ({problem.reason})", path, line, hint="save the file as UTF-8"
                )
            ]
        ) from None


def course_text(data: bytes, path: Path) -> str:
    """decode_utf8, refusing a file git left a merge conflict in (at its first marker): a
    lesson, a notebook or the manifest would otherwise fail with errors far from the cause
    (invalid YAML at the `=======` line, two versions of a step)."""
    text = decode_utf8(data, path)
    if line := merge_conflict_line(text):
        raise BuildErrors(
            [
                BuildError(
                    "the file holds an unresolved git merge conflict (the lines <<<<<<<, "
                    "======= and >>>>>>> around two versions of its text)",
                    path,
                    line,
                    hint="keep one version, and delete the other and the three marker lines "
                    "(`git checkout --ours` or `--theirs` takes one side whole)",
                )
            ]
        )
    return text


def merge_conflict_line(text: str) -> int:
    """The line of the first `<<<<<<<` of a merge conflict in `text` (followed by its
    `=======` and `>>>>>>>`; in a notebook's JSON, inside a string too), or 0. Markers inside
    a fence of shown text (```text, ```diff: a lesson about git) are the lesson's, not git's."""
    if "<<<<<<<" not in text:  # every file of every build: most have no marker at all
        return 0
    lines = [line.strip('", \r').removesuffix("\\n") for line in text.splitlines()]
    for at in _lines_outside_shown_fences(lines):
        line = lines[at]
        if line == "<<<<<<<" or line.startswith("<<<<<<< "):
            rest = lines[at + 1 :]
            middle = next((i for i, later in enumerate(rest) if later == "======="), None)
            if middle is not None and any(later.startswith(">>>>>>>") for later in rest[middle:]):
                return at + 1
    return 0


_CODE_FENCE_WORDS = {"python", "py", "python3", "ipython", "ipython3", "{code-cell}"}


def _lines_outside_shown_fences(lines: list[str]) -> Iterator[int]:
    """The indexes of `lines` not inside a fenced block of shown text; a conflict inside
    Python code is git's (the code would not run), so those fences are read through."""
    fence = ""
    for at, line in enumerate(lines):
        if fence:
            if line.startswith(fence) and not line.lstrip(fence[0]).strip():
                fence = ""
            continue
        opening = re.match(r"(`{3,}|~{3,})\s*(\S*)", line)
        if opening and opening[2].lower() not in _CODE_FENCE_WORDS:
            fence = opening[1]
            continue
        yield at


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """A ' (did you mean 'x'?)' suffix when a close choice exists, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
