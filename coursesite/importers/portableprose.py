"""A notebook's Markdown cell as a lesson takes it: what a page of the course cannot show as
the notebook did (raw HTML, images from other sites, pasted attachments, badges) is made
portable, each change a line of the import report."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.files import short_digest
from coursesite.importers.fences import code_lines, directives
from coursesite.importers.htmlimages import html_images_as_markdown, shown_text
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.mkdocsadmonitions import myst_admonitions
from coursesite.importers.notebooks import Cell, where_in
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.outputs.assets import RefusedAsset, published_image

# A badge: a linked image from another site (`[![Open in Colab](…/badge.svg)](…)`).
_BADGE = re.compile(r"\[!\[([^\]\n]*)\]\((?:https?:)?//[^)\s]*\)\]\(([^)\s]+)\)")
_PYTHON_NAMES = {"python", "python3", "py", "ipython", "ipython3"}


def portable_prose(cell: Cell, lesson: ImportedLesson) -> str:
    """The cell's Markdown as a lesson takes it. Lessons refuse raw HTML and images from
    other sites (pages load nothing from elsewhere), so HTML is shown as code (HTML with no
    text, and tags that only dress text, are left out), a remote image becomes a link to
    it, pasted images are saved beside the lesson, and MkDocs' admonitions become MyST's;
    each change is reported. Python shown in Markdown is marked `norun`: in a lesson, a plain
    ```python fence would look as if it ran."""
    source, badges = _BADGE.subn(r"[\1](\2)", cell.source)
    source, admonitions = myst_admonitions(source)
    lesson.notes += [f"{cell.where}: {said}" for said in admonitions]
    if badges:
        lesson.notes.append(f"{cell.where}: {badges} badge(s) from another site became plain links")
    source, tags = html_images_as_markdown(source)
    if tags:
        lesson.notes.append(
            f"{cell.where}: {tags} HTML <img> tag(s) became Markdown images (their size and "
            "style are the page's to set)"
        )
    lines = source.splitlines()
    tokens = MarkdownIt("commonmark").parse(source)
    # CommonMark reads a `:::{raw} html` body as HTML of the prose: the directive's own
    # conversion (mystdirectives.py) settles it, as it does a ```` ```{raw} ```` one.
    raw = [range(d.first, d.end) for d in directives(source) if d.name == "raw"]
    for token in reversed(tokens):  # from the end, so earlier line numbers stay valid
        language = token.info.split()[0] if token.type == "fence" and token.info else ""
        if language in _PYTHON_NAMES and token.map and "norun" not in token.info:
            opening = lines[token.map[0]]
            lines[token.map[0]] = opening[: opening.index(language)] + "python norun"
        if (
            token.type == "html_block"
            and token.map
            and not _only_comments(token.content)
            and not any(token.map[0] in lines_of for lines_of in raw)
        ):
            first, end = token.map
            if not shown_text(token.content):  # layout, a spacer, a rule: nothing to read
                lines[first:end] = []
                where = where_in(cell, token.content.split("\n")[0])
                lesson.notes.append(f"{where}: {_textless(token)} was left out")
                continue
            lines[first:end] = ["```html", *token.content.rstrip("\n").splitlines(), "```"]
            lesson.notes.append(f"{cell.where}: HTML is shown as code; rewrite it in Markdown")
    text = "\n".join(lines)
    cursor = 0  # where the next inline token's text may start: no edit is edited again
    for token in tokens:
        children = token.children or []
        linked: set[int] = set()  # the `</a>` tokens of links already made Markdown
        for index, child in enumerate(children):
            if child.type == "html_inline" and id(child) in linked:
                continue
            if child.type == "html_inline" and not _only_comments(child.content):
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
                lesson.notes.append(f"{cell.where}: inline HTML {child.content} {said}")
            elif child.type == "image":
                text = _portable_image(text, child, cell, lesson)
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


def _textless(token: Token) -> str:
    """What a block of HTML with no text to read is, for the report."""
    if re.search(r"<script\b", token.content, re.I):  # treescope's, a widget's rendering
        return (
            "HTML that runs a script (an output the notebook stored as its rendering; pages "
            "run no scripts, and the step's fresh output shows what the code displays)"
        )
    return f"HTML with no text ({token.content.strip().split('>')[0].strip()}>)"


def _only_comments(html: str) -> bool:
    return not re.sub(r"<!--.*?-->", "", html, flags=re.S).strip()


def _portable_image(text: str, image: Token, cell: Cell, lesson: ImportedLesson) -> str:
    src = str(image.attrs.get("src", ""))
    alt = image.content
    if src.startswith("attachment:") and src[len("attachment:") :] in cell.attachments:
        name = src[len("attachment:") :]
        content = cell.attachments[name]
        # Notebooks name every pasted image "image.png": the content tells them apart.
        pasted = Path(name)
        saved = f"images/{pasted.stem}-{short_digest(content)[:8]}{pasted.suffix}"
        try:
            published_image(content, pasted.suffix, name, "import")
        except RefusedAsset as refused:
            lesson.refusals.append((f"{cell.where}: attachment {refused.message}", refused.hint))
            return text
        lesson.images[saved] = content
        if not alt:
            alt = f"{PLACEHOLDER} describe {Path(name).name}"
            lesson.notes.append(f"{cell.where}: image {name} has no alt text: describe it")
        return text.replace(f"]({src}", f"]({saved}", 1).replace(
            f"![]({saved}", f"![{alt}]({saved}", 1
        )
    if re.match(r"^(https?:)?//", src):
        lesson.notes.append(
            f"{cell.where}: the image {src} is on another site and became a link to it; "
            "save the file beside the lesson to show it"
        )
        return text.replace(f"![{alt}]({src}", f"[{alt or src}]({src}", 1)
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src):
        where = where_in(cell, src)
        lesson.linked_images.append((unquote(src), where))
        if not alt.strip():  # the build refuses an image without one: the author writes it
            lesson.notes.append(f"{where}: image {src} has no alt text: describe it")
            return text.replace(
                f"![]({src}", f"![{PLACEHOLDER} describe {Path(src).name}]({src}", 1
            )
    return text
