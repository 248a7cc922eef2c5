"""Images a notebook's Markdown shows with an HTML `<img>` tag, as Markdown images.

Lessons take no raw HTML (it is shown as code), so `<img src="fractal.png" alt="...">`
alone on its lines, or in a paragraph of text, would leave the page showing the tag where
the notebook showed the picture. An `<img>` becomes `![alt](src)` instead, and is then
settled as any image of the notebook (copied, linked, reported). What the tag said of size
and style is dropped: the page lays images out itself. A block that holds anything but
images and the wrappers that centre them stays HTML, shown as code.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

from markdown_it import MarkdownIt

# Tags a notebook wraps an image in to place it, which say nothing a lesson needs.
_WRAPPERS = {"p", "center", "div", "br", "figure", "span", "a"}


class _ImageTags(HTMLParser):
    """The `<img>` tags of some HTML, and whether it holds anything else."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.images: list[dict[str, str]] = []
        self.other = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append({name: value or "" for name, value in attrs})
        elif tag not in _WRAPPERS:
            self.other = True

    def handle_endtag(self, tag: str) -> None:
        self.other |= tag not in _WRAPPERS

    def handle_data(self, data: str) -> None:
        self.other |= bool(data.strip())


def images_in(html: str) -> list[dict[str, str]] | None:
    """The attributes of each `<img>` of `html`, if images (in wrappers) are all it holds."""
    parser = _ImageTags()
    parser.feed(html)
    parser.close()
    return parser.images if parser.images and not parser.other else None


def markdown_image(attributes: dict[str, str]) -> str:
    """`![alt](src)` for an `<img>`'s attributes; a path with spaces in angle brackets."""
    alt = re.sub(r"([\[\]\\])", r"\\\1", attributes.get("alt", "").strip())
    src = attributes.get("src", "").strip()
    return f"![{alt}](<{src}>)" if " " in src else f"![{alt}]({src})"


def html_images_as_markdown(source: str) -> tuple[str, int]:
    """`source` (a cell's Markdown) with each HTML block of images, and each `<img>` within
    a line of prose, as Markdown images; and how many tags were rewritten. Code blocks and
    code spans are left as they are."""
    lines = source.splitlines()
    count = 0
    for token in reversed(MarkdownIt("commonmark").parse(source)):
        if not token.map:
            continue
        first, end = token.map
        if token.type == "html_block" and (found := images_in(token.content)):
            lines[first:end] = "\n\n".join(markdown_image(image) for image in found).split("\n")
            count += len(found)
        for child in token.children or []:
            if child.type == "html_inline" and (found := images_in(child.content)):
                for at in range(first, end):
                    if child.content in lines[at]:
                        lines[at] = lines[at].replace(child.content, markdown_image(found[0]), 1)
                        count += 1
                        break
    return "\n".join(lines) + ("\n" if source.endswith("\n") else ""), count


def shown_text(html: str) -> str:
    """The text a browser would show of `html`: what is left without its tags, its
    comments, and the scripts, styles and templates it never shows as text."""
    unseen = r"<(script|style|template)\b.*?</\1\s*>|<!--.*?-->|<[^<>]*>"
    return unescape(re.sub(unseen, "", html, flags=re.S | re.I)).strip()
