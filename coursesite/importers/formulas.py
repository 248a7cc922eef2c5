"""An imported notebook's math, kept where a page can show it and shown as source where not.

A notebook renders its formulas with MathJax in the reader's browser; a lesson turns them
into MathML when it is built (markup/mathml.py), which takes most but not all of what
MathJax does. A formula the build could not show becomes its LaTeX source, as code (a
`latex` block for display math), each with a line of the import report, so that the first
build does not stop on it.
"""

from __future__ import annotations

from collections.abc import Callable

from coursesite.markup.markdown import math_to_mathml, parse_nodes

_DISPLAY = {"math_inline": False, "math_inline_double": True, "math_block": True}


def settle_math(text: str, where: str, notes: list[str]) -> str:
    """`text` (a Markdown cell) with each formula MathML cannot carry shown as source."""
    lines = text.split("\n")
    inline: list[str] = []
    for top in reversed(parse_nodes(text)):  # from the end: earlier line numbers hold
        for node in top.walk():
            if node.type not in _DISPLAY or _shows(node.content, _DISPLAY[node.type]):
                continue
            formula = " ".join(node.content.split())
            notes.append(
                f"{where}: the formula {formula[:60]!r} cannot be shown as MathML: it is "
                "shown as its LaTeX source; rewrite it, or keep it as source"
            )
            if node.type == "math_block" and node.map:
                first, end = node.map
                lines[first:end] = ["```latex", *node.content.strip("\n").split("\n"), "```"]
            else:
                inline.append(node.markup + node.content + node.markup)
    text = "\n".join(lines)
    for source in inline:
        ticks = "``" if "`" in source else "`"
        text = text.replace(source, f"{ticks}{source}{ticks}", 1)
    return text


def close_math_blocks(text: str, locate: Callable[[str], str], notes: list[str]) -> str:
    """`text` (a Markdown cell) with each `$$` block it opens but never closes at a line's
    end (QuantEcon's `... \\Bigr]$$)`) closed at its `$$`, or its `$$` made text where the
    cell has no other. Alone, a cell reads such a block as a paragraph; in a lesson the next
    `$$` of a later cell would close it, and every step between would become its formula."""
    if "$$" not in text:  # most cells: nothing to parse for
        return text
    lines = text.split("\n")
    for node in reversed(parse_nodes(text)):  # from the end: earlier line numbers hold
        if node.type != "paragraph" or not node.map:
            continue
        first, end = node.map
        opening = lines[first].lstrip()
        if not opening.startswith("$$") or "$$" in opening[2:]:
            continue  # `$$a$$ and b` is inline math in any text: it opens no block
        closed, said = _closed(lines[first:end])
        notes.append(f"{locate(lines[first])}: a $$ formula {said}")
        lines[first:end] = closed
    return "\n".join(lines)


def _closed(block: list[str]) -> tuple[list[str], str]:
    """The paragraph `block` that opens with `$$`, as a formula closed at the next `$$`
    (what follows it on that line goes on the next), or with its `$$` as text."""
    for at, line in enumerate(block[1:], start=1):
        close = line.find("$$")
        if close < 0:
            continue
        after = line[close + 2 :].strip()
        closed = [*block[:at], line[: close + 2], *([after] if after else []), *block[at + 1 :]]
        return closed, (
            f"closes with {line[close:].strip()!r}, where Markdown closes none: it ends at "
            "its $$ now, and what followed it is the next line"
        )
    escaped = block[0].replace("$$", "\\$\\$", 1)
    return [escaped, *block[1:]], (
        "never closes: its $$ is shown as text, as the notebook showed it (else a later "
        "cell's $$ would close it)"
    )


def _shows(latex: str, display: bool) -> bool:
    try:
        math_to_mathml(latex, display)
    except Exception:  # latex2mathml raises many kinds; UnsafeMath too
        return False
    return True
