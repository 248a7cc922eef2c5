"""A notebook's Markdown cell as a lesson takes it: what a page of the course cannot show as
the notebook did (raw HTML, images from other sites, pasted attachments, badges) is made
portable, each change a line of the import report."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.files import short_digest
from coursesite.importers.fences import closed_fences, directive_name, directives
from coursesite.importers.htmldetails import details_as_dropdowns
from coursesite.importers.htmlimages import html_images_as_markdown, shown_text
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.inlinehtml import inline_html_as_markdown, only_comments
from coursesite.importers.mkdocsadmonitions import myst_admonitions
from coursesite.importers.notebookcells import Cell, where_in
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.outputs.assets import RefusedAsset, published_image

# A badge: a linked image from another site (`[![Open in Colab](…/badge.svg)](…)`).
_BADGE = re.compile(r"\[!\[([^\]\n]*)\]\((?:https?:)?//[^)\s]*\)\]\(([^)\s]+)\)")
_PYTHON_NAMES = {"python", "python3", "py", "ipython", "ipython3"}


def portable_prose(cell: Cell, lesson: ImportedLesson) -> str:
    """The cell's Markdown as a lesson takes it. Lessons refuse raw HTML and images from
    other sites (pages load nothing from elsewhere), so a block of HTML is shown as code
    (one with no text is left out; inline HTML: inlinehtml.py), a remote image becomes a link to
    it, pasted images are saved beside the lesson, and MkDocs' admonitions become MyST's;
    each change is reported. Python shown in Markdown is marked `norun`: in a lesson, a plain
    ```python fence would look as if it ran."""
    source, closed = closed_fences(cell.source)
    if closed:
        lesson.notes.append(
            f"{cell.where}: a code fence the cell leaves open was closed where the cell ends, "
            "as the notebook shows it; close it yourself if it should end sooner"
        )
    source, badges = _BADGE.subn(r"[\1](\2)", source)
    source, admonitions = myst_admonitions(source)
    lesson.notes += [f"{cell.where}: {said}" for said in admonitions]
    if badges:
        lesson.notes.append(f"{cell.where}: {badges} badge(s) from another site became plain links")
    source, dropdowns = details_as_dropdowns(source)
    if dropdowns:
        lesson.notes.append(
            f"{cell.where}: {dropdowns} HTML <details> block(s) became a dropdown "
            "{admonition} titled with its <summary>"
        )
    source, tags = html_images_as_markdown(source)
    if tags:
        lesson.notes.append(
            f"{cell.where}: {tags} HTML <img> tag(s) became Markdown images (their size and "
            "style are the page's to set)"
        )
    return _portable_markdown(source, cell, lesson)


# Directives whose body is code, math, data or HTML, never Markdown: taken as written.
_LITERAL_BODIES = frozenset(
    {"code", "code-block", "sourcecode", "code-cell", "literalinclude", "include", "math",
     "raw", "eval-rst", "csv-table", "mermaid", "graphviz", "ipython", "jupyter-execute",
     "parsed-literal", "toctree", "bibliography", "doctest", "testcode", "testoutput"}
)  # fmt: skip


def _markdown_body(token: Token, lines: list[str]) -> tuple[int, int, str] | None:
    """For a ```` ```{note} ```` fence, whose body MyST reads as Markdown and CommonMark as
    code: (its body's first line, the line after it, the fence's indent) where the body
    holds HTML or an image to settle; else None."""
    name = directive_name(token.info) if token.type == "fence" else None
    if name is None or name in _LITERAL_BODIES or not token.map:
        return None
    if not re.search(r"<|!\[", token.content):
        return None
    opening = lines[token.map[0]]
    first = token.map[0] + 1
    return (
        first,
        first + len(token.content.rstrip("\n").split("\n")),
        opening[: len(opening) - len(opening.lstrip())],
    )


def _lengthen_fence(
    lines: list[str], opening: int, closing: int, markup: str, body: list[str]
) -> None:
    """Make the fence around `body` longer than any fence it now holds (HTML shown as a
    ```` ```html ```` block would otherwise close a ```` ```{note} ```` that holds it)."""
    runs = [len(m.group()) for line in body if (m := re.match(rf"{markup[0]}+", line.lstrip()))]
    longest = max(runs, default=0)
    if longest < len(markup):
        return
    longer = markup[0] * (longest + 1)
    lines[opening] = lines[opening].replace(markup, longer, 1)
    if closing < len(lines) and lines[closing].strip() == markup:
        lines[closing] = lines[closing].replace(markup, longer, 1)


def _portable_markdown(source: str, cell: Cell, lesson: ImportedLesson) -> str:
    """`source`'s HTML and images settled, in the bodies of its directives too (the
    directives' settling later unwraps a body where it is Markdown)."""
    lines = source.splitlines()
    tokens = MarkdownIt("commonmark").parse(source)
    # CommonMark reads a `:::{raw} html` body as HTML of the prose: the directive's own
    # conversion (mystdirectives.py) settles it, as it does a ```` ```{raw} ```` one.
    raw = [range(d.first, d.end) for d in directives(source) if d.name == "raw"]
    for token in reversed(tokens):  # from the end, so earlier line numbers stay valid
        if body := _markdown_body(token, lines):
            first, end, indent = body
            inner = _portable_markdown(token.content.rstrip("\n"), cell, lesson).split("\n")
            _lengthen_fence(lines, first - 1, end, token.markup, inner)
            lines[first:end] = [indent + line if line else "" for line in inner]
            continue
        language = (token.info.split() or [""])[0] if token.type == "fence" else ""
        if language in _PYTHON_NAMES and token.map and "norun" not in token.info:
            opening = lines[token.map[0]]
            lines[token.map[0]] = opening[: opening.index(language)] + "python norun"
        if (
            token.type == "html_block"
            and token.map
            and not only_comments(token.content)
            and not any(token.map[0] in lines_of for lines_of in raw)
        ):
            first, end = token.map
            if not shown_text(token.content):  # layout, a spacer, a rule: nothing to read
                lines[first:end] = []
                where = where_in(cell, token.content.split("\n")[0])
                lesson.notes.append(f"{where}: {_textless(token)} was left out")
                continue
            if (kept := _unwrapped(token.content)) is not None:
                # A paragraph of its own, as the block was, even where it cut one short.
                lines[first:end] = ([""] if first and lines[first - 1].strip() else []) + kept
                where = where_in(cell, token.content.split("\n")[0])
                lesson.notes.append(
                    f"{where}: HTML that only dresses its text ({_opening(token.content)}) "
                    "was left out, its text kept: the page sets its own layout"
                )
                continue
            lines[first:end] = ["```html", *token.content.rstrip("\n").splitlines(), "```"]
            lesson.notes.append(f"{cell.where}: HTML is shown as code; rewrite it in Markdown")
    text = "\n".join(lines)
    text = inline_html_as_markdown(text, tokens, cell.where, lesson.notes, partial(where_in, cell))
    for token in tokens:
        for child in token.children or []:
            if child.type == "image":
                text = _portable_image(text, child, cell, lesson)
    return text


# Tags that only lay out or dress the text they hold (`<center>`, `<div align="center">`).
_WRAPPER = re.compile(r"</?(?:center|font|span|u|small|big|div|p)\b[^<>]*>", re.I)


def _unwrapped(html: str) -> list[str] | None:
    """The lines of Markdown a block of HTML holds inside tags that only lay it out
    (nx-guides' `<center>$\\hat{P} = ...$</center>`); None if it holds any other HTML."""
    text = _WRAPPER.sub("", html)
    if re.search(r"<[A-Za-z!/?]", text):
        return None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _opening(html: str) -> str:
    return html.strip().split(">")[0].strip() + ">"


def _textless(token: Token) -> str:
    """What a block of HTML with no text to read is, for the report."""
    if re.search(r"<script\b", token.content, re.I):  # treescope's, a widget's rendering
        return (
            "HTML that runs a script (an output the notebook stored as its rendering; pages "
            "run no scripts, and the step's fresh output shows what the code displays)"
        )
    return f"HTML with no text ({_opening(token.content)})"


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
