"""Where an imported notebook's Markdown holds code, which the import leaves as written.

A fence closes on a line of its own character, at least as long as its opening, with no
info string (CommonMark): markdown-it's parse says where each one ends, so a ```` ````md ````
example holding ```` ```{note} ```` is code to its last line, and a directive's closing
```` ``` ```` closes the directive only. A MyST directive's body (```` ```{note} ````) is
Markdown, searched in turn for code; the bodies of directives that hold code or source
(```` ```{code-cell} ````, ```` ```{math} ````) are code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin

from coursesite.markup.myst import LIST_MARKER

DIRECTIVE = re.compile(r"^\{([\w:.+-]+)\}(.*)$")
"""A fence's info string that names a MyST directive: `{name} arguments`."""

# Directives whose body is code, or source in a language other than Markdown.
CODE_DIRECTIVES = frozenset(
    {
        "code-cell",
        "code-block",
        "code",
        "sourcecode",
        "literalinclude",
        "math",
        "raw",
        "eval-rst",
        "mermaid",
        "graphviz",
        "csv-table",
        "glue:md",
    }
)


def directive_name(info: str) -> str | None:
    """The directive a fence's info string names (`{note} Title` -> `note`), or None."""
    match = DIRECTIVE.match(info.strip())
    return match.group(1) if match else None


def code_lines(text: str) -> set[int]:
    """The (0-based) lines of `text` inside code: indented code blocks and fences, the
    fence lines too, but not directives whose body is Markdown (only the code in them)."""
    return regions(text)[0]


def regions(text: str) -> tuple[set[int], set[int]]:
    """(the lines of `text` inside code, the opening and closing lines of directives whose
    body is Markdown), 0-based."""
    lines = text.split("\n")
    code: set[int] = set()
    fences: set[int] = set()
    for token in MarkdownIt("commonmark").parse(text):
        if token.type not in ("fence", "code_block") or not token.map:
            continue
        first, end = token.map
        name = directive_name(token.info) if token.type == "fence" else None
        if name is None or name in CODE_DIRECTIVES:
            code.update(range(first, end))
            continue
        closed = end - first > 1 and closes(lines[end - 1], token.markup)
        fences.update((first, end - 1) if closed else (first,))
        inner_code, inner_fences = regions("\n".join(lines[first + 1 : end - closed]))
        code.update(first + 1 + number for number in inner_code)
        fences.update(first + 1 + number for number in inner_fences)
    return code, fences


def closes(line: str, markup: str, column: int = 0) -> bool:
    """Whether `line` closes a fence opened with `markup` (```` ``` ````, `~~~`, `:::`) at
    `column` (in a list item, its text's: `  - ```{hint}` opens at 4, and `    ```` closes)."""
    stripped = line.strip()
    return (
        0 <= len(line) - len(line.lstrip(" ")) - column < 4
        and len(stripped) >= len(markup)
        and set(stripped) == {markup[0]}
    )


def closed_fences(text: str) -> tuple[str, int]:
    """`text` (one notebook cell's Markdown) with a code fence it leaves open closed where
    the cell ends, before the HTML closing tags it ends with (`</details>`), and how many
    it closed. A notebook renders each cell on its own, so a fence ends with its cell; in a
    lesson the cells run together, and an open fence would swallow the cells after it."""
    lines = text.split("\n")
    tokens = MarkdownIt("commonmark").parse(text)
    last = next((t for t in reversed(tokens) if t.type == "fence" and t.map), None)
    if last is None or last.map is None:
        return text, 0
    first, end = last.map
    column = max(lines[first].find(last.markup), 0)
    if end - 1 > first and closes(lines[end - 1], last.markup, column):
        return text, 0
    at = len(lines)
    while at > first + 1 and (not lines[at - 1].strip() or _CLOSING_TAG.match(lines[at - 1])):
        at -= 1
    # Where it opened: a list item's marker (`- `) is spaces on the line that closes it.
    indent = re.sub(r"[^\s>]", " ", lines[first][:column])
    return "\n".join([*lines[:at], indent + last.markup, *lines[at:]]), 1


_CLOSING_TAG = re.compile(r"^\s*</\w+>\s*$")


_OPTION = re.compile(r"^\s*:([\w-]+):(.*)$")


@dataclass
class Directive:
    """A MyST directive of a Markdown text (```` ```{name} argument ```` or `:::{name}`), by
    the (0-based) lines it spans."""

    name: str
    argument: str
    first: int  # its opening line
    end: int  # the line after its closing fence (after its body, when it is not closed)
    closed: bool
    markup: str  # its fence: ```` ``` ````, `::::`, ...
    indent: str  # what its lines start with: the spaces of a list item, `> ` in a quote
    contained: bool  # in a list item or a quote
    options: dict[str, str] = field(default_factory=dict)  # `:name: value` lines
    body: list[str] = field(default_factory=list)  # the lines after its options
    # What its opening line starts with, where that differs from `indent`: the item's
    # marker of a directive that opens a list item (`- ```{hint}`).
    opening: str = ""

    def placed(self, lines: list[str]) -> list[str]:
        """`lines` where the directive was: each with its indent, the first after the
        list marker it opened with (kept even with nothing after it, so the item stays)."""
        placed = [self.indent + line if line else self.indent.rstrip() for line in lines]
        if self.opening:
            first = lines[0] if lines else ""
            placed[:1] = [(self.opening + first) if first else self.opening.rstrip()]
        return placed

    def label(self) -> str | None:
        """The label its `:name:` (or a formula's `:label:`) gives it, unquoted."""
        value = self.options.get("name") or self.options.get("label")
        return value.strip().strip("\"'").strip() or None if value else None


def directives(text: str) -> list[Directive]:
    """The directives of `text` that are in no code block and no other directive."""
    lines = text.split("\n")
    parser = MarkdownIt("commonmark").use(colon_fence_plugin)
    found = []
    for token in parser.parse(text):
        if token.type not in ("fence", "colon_fence") or not token.map:
            continue
        match = DIRECTIVE.match(token.info.strip())
        opening = lines[token.map[0]]
        # What its lines start with: the spaces of a list item, the `> ` of a quote.
        indent = _PREFIX.match(opening).group(0)  # type: ignore[union-attr]
        marker = _LIST_MARKER.match(opening, len(indent)) if token.level else None
        start = indent + (marker.group(0) if marker else "")
        if match is None or not opening[len(start) :].startswith(token.markup):
            continue
        if marker:  # the item's other lines are indented to its text
            indent += " " * len(marker.group(0))
        first, end = token.map
        inner = [_unprefixed(line, indent) for line in lines[first + 1 : end]]
        closed = bool(inner) and closes(inner[-1], token.markup)
        body = inner[: len(inner) - closed]
        options: dict[str, str] = {}
        while body and (option := _OPTION.match(body[0])):
            options[option.group(1)] = option.group(2).strip()
            body = body[1:]
        directive = Directive(
            match.group(1).lower(),  # docutils reads names so: {prf:Theorem} is {prf:theorem}
            match.group(2).strip(),
            first,
            end,
            closed,
            token.markup,
            indent,
            token.level > 0,
        )
        directive.options, directive.body = options, body
        directive.opening = start if marker else ""
        found.append(directive)
    return found


_PREFIX = re.compile(r"^(?: {0,3}>[ ]?)*[ ]*")
# A list item's marker, with the spaces after it: `- `, `1. `, `2) `.
_LIST_MARKER = re.compile(LIST_MARKER + r"[ ]{1,4}")


def _unprefixed(line: str, prefix: str) -> str:
    """`line` without a directive's `prefix`: a quote's `>` may stand alone on an empty
    line, and a lazy line of a quote may lack it."""
    if line.startswith(prefix):
        return line[len(prefix) :]
    if line.startswith(prefix.rstrip()):
        return line[len(prefix.rstrip()) :]
    return line.lstrip(" ") if not prefix.strip() else line


def labels_of(text: str) -> list[tuple[str, Directive]]:
    """The labels that directives' `:name:` and `:label:` options give, nested ones too,
    each with its directive."""
    found = []
    for directive in directives(text):
        if (label := directive.label()) is not None:
            found.append((label, directive))
        if directive.name not in CODE_DIRECTIVES:
            found += labels_of("\n".join(directive.body))
    return found
