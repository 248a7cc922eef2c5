"""Inline HTML in a notebook's Markdown, as a lesson takes it (lessons take no raw HTML):
a line break `<br>` becomes Markdown's, a link around plain text a Markdown link, a tag
that only dresses its text goes and the text stays, and any other tag is shown as code;
each change is a line of the import report. Each tag is edited where it stands, once:
never inside a code span or block, which shows it as written, nor inside an edit already
made (the second `</a>` of a line once landed in the backticks of the first)."""

from __future__ import annotations

import re
from html import unescape

from markdown_it.token import Token

from coursesite.importers.fences import code_lines


def inline_html_as_markdown(text: str, tokens: list[Token], where: str, notes: list[str]) -> str:
    """`text` (a cell's Markdown, which CommonMark parsed into `tokens`) with its inline
    HTML settled; a line of `notes` for each tag, at the cell `where`."""
    cursor = 0  # where the next inline token's text may start: no edit is edited again
    for token in tokens:
        children = token.children or []
        linked: set[int] = set()  # the `</a>` tokens of links already made Markdown
        for index, child in enumerate(children):
            if child.type == "html_inline" and id(child) in linked:
                continue
            if child.type == "html_inline" and not only_comments(child.content):
                at = _outside_code(text, child.content, cursor)
                if at < 0:
                    continue
                link = _markdown_link(text, at, children[index:])
                if link is not None:
                    end, replacement, closing = link
                    linked.add(id(closing))
                    said = "and its text became a Markdown link"
                else:
                    end, replacement, said = _inline_html(text, at, at + len(child.content))
                text = text[:at] + replacement + text[end:]
                cursor = at + len(replacement)
                notes.append(f"{where}: inline HTML {child.content} {said}")
    return text


def _markdown_link(text: str, at: int, children: list[Token]) -> tuple[int, str, Token] | None:
    """For an `<a href>` at `text[at:]` (`children[0]`, its inline token's children after
    it), closed in the same paragraph around text alone: (the end of the `</a>`, the
    Markdown link, the `</a>` token); else None."""
    opening = _LINK_OPEN.match(children[0].content)
    if opening is None:
        return None
    for child in children[1:]:
        if child.type == "html_inline":
            if not _LINK_CLOSE.match(child.content):
                return None  # another tag inside: the link's text is no plain text
            shut = _outside_code(text, child.content, at)
            inner = text[at + len(children[0].content) : shut]
            if shut < 0 or not inner.strip() or "\n\n" in inner:
                return None
            href = unescape(next(filter(None, opening.group("double", "single", "bare")), ""))
            if re.match(r"^[\w+.-]*:", href) and not re.match(r"^(?:https?|mailto):", href, re.I):
                return None  # javascript: and the like stay HTML, shown as code
            target = f"<{href.strip()}>" if re.search(r"[\s()<>]", href) else href
            return shut + len(child.content), f"[{inner.strip()}]({target})", child
    return None


# `<a href="...">`, to an address, a mailto or a place in the notebook: a Markdown link
# says the same (`javascript:` and other schemes stay HTML shown as code).
_LINK_OPEN = re.compile(
    r"""^<a\s(?:[^>]*?\s)?href\s*=\s*(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)'|(?P<bare>[^\s"'>]+))[^>]*>$""",
    re.I,
)
_LINK_CLOSE = re.compile(r"^</a\s*>$", re.I)


def _outside_code(text: str, tag: str, start: int) -> int:
    """Where `tag` first stands in `text` from `start` on, outside code (a span or a
    block, which shows it as it is), or -1."""
    spans = [match.span() for match in _CODE_SPAN.finditer(text)]
    code = code_lines(text)
    at = text.find(tag, start)
    while at >= 0 and (
        text.count("\n", 0, at) in code or any(first <= at < end for first, end in spans)
    ):
        at = text.find(tag, at + 1)
    return at


def _inline_html(text: str, at: int, end: int) -> tuple[int, str, str]:
    """What the inline HTML tag at `text[at:end]` becomes: (the end of what it replaces,
    its replacement, what the report says of it)."""
    tag = text[at:end]
    if _PRESENTATIONAL.match(tag):
        return end, "", "was left out, its text kept: the page sets its own colours and sizes"
    if not _LINE_BREAK.match(tag):  # a space apart from code just before or after
        before = " " if text[at - 1 : at] == "`" else ""
        after = " " if text[end : end + 1] == "`" else ""
        return end, f"{before}`{tag}`{after}", "is shown as code"
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].lstrip().startswith("|"):  # a table's row holds one line
        return end, " ", "became a space (a table's cell holds one line)"
    rest = re.match(r"[ \t]*(?:\n|$)", text[end:])
    if rest is None:  # the line goes on after it
        return end, "\\\n", "became a line break"
    after = text[end + rest.end() :]
    if not after.strip() or _BLOCK_START.match(after):  # the paragraph ends there
        return (
            end + rest.end() - rest.group(0).count("\n"),
            "",
            "was left out (the paragraph ends there)",
        )
    return end + len(rest.group(0).rstrip("\n")), "\\", "became a line break"


# A line that ends a paragraph before it (a blank line, a list item, a heading, a quote, a
# fence), where a hard line break would show as a backslash.
_BLOCK_START = re.compile(r"[ \t]*(?:\n|(?:[*+-]|\d{1,9}[.)])[ \t]|#{1,6}[ \t]|>|```|~~~)")
# A CommonMark code span: a run of backticks up to the next run of as many, in its paragraph.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))*?(?<!`)\1(?!`)")
# `<br>`, `<br/>`, `<br />`: Markdown's hard line break says the same.
_LINE_BREAK = re.compile(r"^<br\s*/?>$", re.I)
# Inline HTML that only dresses its text (`<font color='red'>`, `<span style=...>`): a page
# of the course's theme keeps the text and drops the dress.
_PRESENTATIONAL = re.compile(r"^</?(?:font|span|u|small|big|center)\b[^<>]*>$", re.I)


def only_comments(html: str) -> bool:
    """Whether `html` holds HTML comments alone, which CommonMark shows nothing of."""
    return not re.sub(r"<!--.*?-->", "", html, flags=re.S).strip()
