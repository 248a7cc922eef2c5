"""Inline HTML in a notebook's Markdown, as a lesson takes it (lessons take no raw HTML):
a line break `<br>` becomes Markdown's, a link around plain text a Markdown link, bold,
italic, code, superscript, subscript and keys around plain text Markdown's or MyST's own
markup, a tag that only dresses its text goes and the text stays, and any other tag is
shown as code;
each change is a line of the import report. Each tag is edited where it stands, once:
never inside a code span or block, which shows it as written, nor inside an edit already
made (the second `</a>` of a line once landed in the backticks of the first)."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape

from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.importers.fences import code_lines


def inline_html_as_markdown(
    text: str,
    tokens: list[Token],
    where: str,
    notes: list[str],
    locate: Callable[[str], str] | None = None,
) -> str:
    """`text` (a cell's Markdown, which CommonMark parsed into `tokens`) with its inline
    HTML settled; a line of `notes` for each tag, at the cell `where`, or where `locate`
    finds the tag (a text notebook's own line)."""
    cursor = 0  # where the next inline token's text may start: no edit is edited again
    for token in tokens:
        children = token.children or []
        settled: set[int] = set()  # tags already made Markdown with the one opening them
        for index, child in enumerate(children):
            if child.type == "html_inline" and id(child) in settled:
                continue
            if child.type == "html_inline" and not only_comments(child.content):
                at = _outside_code(text, child.content, cursor)
                if at < 0:
                    continue
                paired = _markdown_link(text, at, children[index:]) or _markdown_markup(
                    text, at, children[index:]
                )
                if paired is not None:
                    end, replacement, handled, said = paired
                    settled |= {id(token) for token in handled}
                else:
                    at, end, replacement, said = _inline_html(text, at, at + len(child.content))
                text = text[:at] + replacement + text[end:]
                cursor = at + len(replacement)
                at_tag = locate(child.content) if locate else where
                notes.append(f"{at_tag}: inline HTML {child.content} {said}")
    return text


# What a pair of tags around plain text became: (the end of the closing tag, the Markdown
# that says the same, the tags' tokens after the first, what the report says of it).
Paired = tuple[int, str, list[Token], str]


def _closed_around_text(
    text: str, at: int, children: list[Token], closing: re.Pattern[str]
) -> tuple[int, str, Token] | None:
    """For the opening tag at `text[at:]` (`children[0]`, its inline token's children after
    it), closed by a tag `closing` matches in the same paragraph around text alone: (where
    the closing tag starts, the text inside, its token); else None."""
    for child in children[1:]:
        if child.type == "html_inline":
            if not closing.match(child.content):
                return None  # another tag inside: what it holds is no plain text
            shut = _outside_code(text, child.content, at)
            inner = text[at + len(children[0].content) : shut]
            if shut < 0 or not inner.strip() or "\n\n" in inner:
                return None
            return shut, inner, child
    return None


def _markdown_link(text: str, at: int, children: list[Token]) -> Paired | None:
    """An `<a href>` around plain text, as a Markdown link."""
    opening = _LINK_OPEN.match(children[0].content)
    found = opening and _closed_around_text(text, at, children, _LINK_CLOSE)
    if not opening or not found:
        return None
    shut, inner, closing = found
    href = unescape(next(filter(None, opening.group("double", "single", "bare")), ""))
    if re.match(r"^[\w+.-]*:", href) and not re.match(r"^(?:https?|mailto):", href, re.I):
        return None  # javascript: and the like stay HTML, shown as code
    target = f"<{href.strip()}>" if re.search(r"[\s()<>]", href) else href
    link = f"[{inner.strip()}]({target})"
    return shut + len(closing.content), link, [closing], "and its text became a Markdown link"


def _markdown_markup(text: str, at: int, children: list[Token]) -> Paired | None:
    """`<b>`, `<i>`, `<code>`, `<sup>`, `<sub>` or `<kbd>` around plain text, as the
    Markdown (or MyST role) that says the same: `**bold**`, `{sup}`2``; bold and italic
    together (`<b><i>text</b></i>`, closed in either order) as `***text***`."""
    openings = _emphasis_pair(text, at, children) or children[:1]
    names = [match.group(1).lower() for t in openings if (match := _MARKUP_OPEN.match(t.content))]
    if len(names) != len(openings):
        return None
    inner_at = at + sum(len(t.content) for t in openings[:-1])
    closing = re.compile(rf"^</(?:{'|'.join(names)})\s*>$", re.I)
    found = _closed_around_text(text, inner_at, children[len(openings) - 1 :], closing)
    if found is None:
        return None
    shut, inner, closing_token = found
    closings = [closing_token]
    if len(names) == 2:
        second = _second_closing(text, shut, children, closing_token, closing)
        if second is None:
            return None
        closings.append(second)
    words = inner.strip()
    end = shut + sum(len(t.content) for t in closings)
    if names[0] in _EMPHASIS:
        marks = "***" if len(names) == 2 else _EMPHASIS[names[0]]
        paragraph = text[:at].rsplit("\n\n", 1)[-1]
        markup = _emphasis(words, marks, paragraph, text[end : end + 1])
        if markup is None:
            return None
    else:
        literal = unescape(words)
        ticks = "`" * (1 + max((len(run) for run in re.findall(r"`+", literal)), default=0))
        pad = " " if literal.startswith("`") or literal.endswith("`") else ""
        role = "" if names[0] == "code" else f"{{{names[0]}}}"
        markup = f"{role}{ticks}{pad}{literal}{pad}{ticks}"
    spaced = inner[: len(inner) - len(inner.lstrip())] + markup + inner[len(inner.rstrip()) :]
    return end, spaced, [*openings[1:], *closings], f"became {markup}"


def _emphasis(words: str, marks: str, before: str, after: str) -> str | None:
    """`words` between `marks` (`**`), or between underscores where the asterisks would run
    into a neighbour's (`<b>x</b><b>y</b>` is no `**x****y**`): the first that renders
    after its paragraph's Markdown `before` and before the character `after` as it renders
    alone; None if neither does."""
    for mark in (marks, marks.replace("*", "_")):
        markup = f"{mark}{words}{mark}"
        alone = _INLINE.renderInline(before) + _INLINE.renderInline(markup)
        if _INLINE.renderInline(before + markup + after) == alone + _INLINE.renderInline(after):
            return markup
    return None


_INLINE = MarkdownIt("commonmark")


def _second_closing(
    text: str, shut: int, children: list[Token], first: Token, closing: re.Pattern[str]
) -> Token | None:
    """The tag closing the second of a pair right after the first closing (at `shut`)."""
    after = children[children.index(first) + 1 :][:1]
    end = shut + len(first.content)
    if after and closing.match(after[0].content) and text.startswith(after[0].content, end):
        return after[0]
    return None


def _emphasis_pair(text: str, at: int, children: list[Token]) -> list[Token]:
    """The two opening tags at `text[at:]` when bold and italic open together (`<b><i>`)."""
    pair = children[:2]
    if len(pair) < 2 or any(t.type != "html_inline" for t in pair):
        return []
    names = [m.group(1).lower() for t in pair if (m := _MARKUP_OPEN.match(t.content))]
    adjacent = text.startswith(pair[1].content, at + len(pair[0].content))
    paired = len(names) == 2 and {_EMPHASIS.get(name) for name in names} == {"**", "*"}
    return pair if adjacent and paired else []


_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}
# An opening tag whose text Markdown or a MyST role marks up alike (attributes dropped).
_MARKUP_OPEN = re.compile(r"^<(b|strong|i|em|code|sup|sub|kbd)(?:\s[^<>]*)?>$", re.I)


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


def _inline_html(text: str, at: int, end: int) -> tuple[int, int, str, str]:
    """What the inline HTML tag at `text[at:end]` becomes: (the start and end of what it
    replaces, its replacement, what the report says of it)."""
    tag = text[at:end]
    if _PRESENTATIONAL.match(tag):
        return at, end, "", "was left out, its text kept: the page sets its own colours and sizes"
    if not _LINE_BREAK.match(tag):  # a space apart from code just before or after
        before = " " if text[at - 1 : at] == "`" else ""
        after = " " if text[end : end + 1] == "`" else ""
        return at, end, f"{before}`{tag}`{after}", "is shown as code"
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].lstrip().startswith("|"):  # a table's row holds one line
        return at, end, " ", "became a space (a table's cell holds one line)"
    rest = re.match(r"[ \t]*(?:\n|$)", text[end:])
    if rest is None:  # the line goes on after it
        return at, end, "\\\n", "became a line break"
    after = text[end + rest.end() :]
    if not after.strip() or _BLOCK_START.match(after):  # the paragraph ends there
        # and so do the breaks just before it (`<br><br>`), which would show a backslash
        start = len(re.sub(r"(?:\\\n)+$", "", text[:at]))
        return (
            start,
            end + rest.end() - rest.group(0).count("\n"),
            "",
            "was left out (the paragraph ends there)"
            + (", and so were the line breaks just before it" if start < at else ""),
        )
    return at, end + len(rest.group(0).rstrip("\n")), "\\", "became a line break"


# A line that ends a paragraph before it (a blank line, a list item, a heading, a quote, a
# fence), where a hard line break would show as a backslash.
_BLOCK_START = re.compile(r"[ \t]*(?:\n|(?:[*+-]|\d{1,9}[.)])[ \t]|#{1,6}[ \t]|>|```|~~~)")
# A CommonMark code span: a run of backticks up to the next run of as many, in its paragraph.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))*?(?<!`)\1(?!`)")
# `<br>`, `<br/>`, `<br />`: Markdown's hard line break says the same; so for `</br>`,
# which HTML parses as `<br>` (nx-guides' PageRank writes `<br></br>`).
_LINE_BREAK = re.compile(r"^(?:<br\s*/?>|</br\s*>)$", re.I)
# Inline HTML that only dresses its text (`<font color='red'>`, `<span style=...>`): a page
# of the course's theme keeps the text and drops the dress.
_PRESENTATIONAL = re.compile(r"^</?(?:font|span|u|small|big|center)\b[^<>]*>$", re.I)


def only_comments(html: str) -> bool:
    """Whether `html` holds HTML comments alone, which CommonMark shows nothing of."""
    return not re.sub(r"<!--.*?-->", "", html, flags=re.S).strip()
