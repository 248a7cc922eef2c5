"""Fence mistakes found in a lesson's lines before it is parsed, so that they are reported
at their cause instead of as the errors they cause further down.

- A colon block holding a block opened with as many colons: Markdown ends the outer block
  at the inner block's closing line, and everything after it lands outside (a missing
  solution, code "shown but never run", an unclosed block at the last line).
- A code fence indented by four spaces or more outside a list: Markdown reads it as
  indented code, and its closing fence then opens a new code block that never closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.markup.myst import LIST_MARKER

_CODE_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_COLON_OPEN = re.compile(r"^ {0,3}(:{3,})(\{[^}]*\}.*)$")
_COLON_CLOSE = re.compile(r"^ {0,3}(:{3,})\s*$")
_INDENTED_FENCE = re.compile(r"^( {4,}|\t)(`{3,}|~{3,})\s*\S")
_LIST_ITEM = re.compile(r"^\s*" + LIST_MARKER + r"\s")


@dataclass
class _Open:
    colons: int
    line: int  # 1-based, in the file
    text: str  # the opening line
    nested: int = 0  # the most colons of a block opened inside it


def fence_mistakes(lines: list[str], first_line: int, path: Path) -> list[BuildError]:
    """Errors for the fence mistakes in `lines`, whose first is line `first_line` of the
    file at `path`."""
    errors: list[BuildError] = []
    stack: list[_Open] = []
    in_code: str | None = None  # the fence that opened the code block we are in
    previous = ""  # the last non-blank line, outside code
    for number, text in enumerate(lines, start=first_line):
        code = _CODE_FENCE.match(text)
        if in_code is not None:
            if code and _closes(code.group(1), in_code, text):
                in_code = None
            continue
        if code:
            in_code = code.group(1)
        elif _INDENTED_FENCE.match(text) and not _in_list(previous):
            errors.append(_indented_fence(text, number, path))
        elif opening := _COLON_OPEN.match(text):
            block = _Open(len(opening.group(1)), number, text.strip())
            outer = next((o for o in reversed(stack) if o.colons <= block.colons), None)
            if outer is not None and outer.nested == 0:
                errors.append(_too_few_colons(outer, block, path))
            for enclosing in stack:
                enclosing.nested = max(enclosing.nested, block.colons)
            stack.append(block)
        elif (
            (closing := _COLON_CLOSE.match(text))
            and stack
            # Fewer colons than the innermost block's do not close it (the parser reports
            # what they do instead).
            and stack[-1].colons <= len(closing.group(1))
        ):
            stack.pop()
        if text.strip():
            previous = text
    return errors


def _closes(fence: str, opened: str, text: str) -> bool:
    """Whether the fence line `text` closes a code block opened with `opened`."""
    return fence[0] == opened[0] and len(fence) >= len(opened) and not text.strip().strip(fence[0])


def _in_list(line: str) -> bool:
    return bool(_LIST_ITEM.match(line)) or line.startswith(("  ", "\t"))


def _too_few_colons(outer: _Open, inner: _Open, path: Path) -> BuildError:
    kind = re.match(r":+\{([^}]*)\}", outer.text)
    inner_kind = re.match(r":+\{([^}]*)\}", inner.text)
    colons = ":" * (inner.colons + 1)
    corrected = colons + outer.text.lstrip(":")
    return BuildError(
        f"{{{kind.group(1) if kind else '?'}}} holds a "
        f"{{{inner_kind.group(1) if inner_kind else '?'}}} block (line {inner.line}) opened "
        f"with as many colons ('{':' * inner.colons}'), so that block's closing line ends "
        "this one early",
        path,
        outer.line,
        hint=f"an outer block needs more colons than the blocks inside it: open it with "
        f"'{corrected}' and close it with a line of '{colons}'",
    )


def _indented_fence(text: str, number: int, path: Path) -> BuildError:
    indent = len(text) - len(text.lstrip(" \t"))
    return BuildError(
        f"this code fence is indented by {indent} spaces, so Markdown reads it as indented "
        "text, not as a code block, and its closing fence opens a block that never closes",
        path,
        number,
        hint="start the fence at the beginning of the line (indent it only inside a list item)",
    )
