"""How deep a lesson may nest: blocks in blocks, and Markdown in Markdown.

The parse stage reads a block's body by parsing it again, and a page renders nested blocks
by nesting templates: both go one level deeper per block, so without a bound a lesson of
2,000 nested admonitions ended in a RecursionError. No lesson needs more than a few levels;
past the limits the parse stops at the line that goes too deep.
"""

from __future__ import annotations

from markdown_it.tree import SyntaxTreeNode

from coursesite.blocks.registry import BlockContext
from coursesite.markup.markdown import MARKUP_DEPTH_LIMIT, MarkupTooDeep, parse_nodes

BLOCK_DEPTH_LIMIT = 50
"""How many blocks may hold one another, the outermost counting as the first."""


def block_too_deep(context: BlockContext, line: int) -> None:
    context.error(
        f"this block is nested more than {BLOCK_DEPTH_LIMIT} blocks deep",
        line,
        f"blocks nest at most {BLOCK_DEPTH_LIMIT} deep: close the blocks around it "
        "before opening it",
    )


def checked_nodes(context: BlockContext, markdown: str, offset: int) -> list[SyntaxTreeNode]:
    """parse_nodes(markdown), or none when its Markdown nests too deep, reported at the
    file line (`offset` turns the text's 0-based lines into file lines)."""
    try:
        return parse_nodes(markdown)
    except MarkupTooDeep as problem:
        context.error(
            f"Markdown nested more than {MARKUP_DEPTH_LIMIT} deep (emphasis in emphasis, "
            "lists in lists or quotes in quotes)",
            offset + problem.line + 1,
            "write it with fewer levels: a page shows a few of them at most",
        )
        return []
