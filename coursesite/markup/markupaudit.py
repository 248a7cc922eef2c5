"""What a generated page may contain: an allowlist of elements and attributes.

Every page is made from our templates plus escaped or filtered author content, so a page
that holds anything else (a script that is not one of the site's own files, an event
handler, a `javascript:` or `data:` URL, an element outside the list) means an injection
got through. `build.py check` and the tests audit pages with `audit_markup`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from coursesite.markup.mathml import MATHML_ATTRIBUTES, MATHML_ELEMENTS
from coursesite.markup.svgclean import DRAWING_ELEMENTS, SVG_ATTRIBUTES

# Figures are inline SVG, limited to what svgclean lets through; the parser lowercases names.
SVG_TAGS = frozenset(name.lower() for name in DRAWING_ELEMENTS)
SVG_TAG_ATTRIBUTES = frozenset(name.lower() for name in SVG_ATTRIBUTES)

HTML_ELEMENTS = frozenset(
    """
    html head body title meta link script noscript template
    header footer main nav section article aside div span p br hr wbr
    h1 h2 h3 h4 h5 h6 a abbr b strong i em u s small mark code kbd samp var pre
    blockquote q cite dfn sub sup del ins time data
    ul ol li dl dt dd figure figcaption img picture source
    table caption thead tbody tfoot tr th td col colgroup
    details summary form label input button select option textarea fieldset legend output
""".split()
)
ALLOWED_ELEMENTS = HTML_ELEMENTS | MATHML_ELEMENTS | SVG_TAGS

URL_ATTRIBUTES = frozenset("href src action formaction poster srcset cite data xlink:href".split())
# Browsers ignore ASCII whitespace and control characters inside a scheme ("java\tscript:").
_IGNORED_IN_SCHEME = re.compile(r"[\x00-\x20]")
_FORBIDDEN_SCHEMES = ("javascript:", "data:", "vbscript:")
# The one URL a page's figure may hold besides its own parts: the PNG or JPEG of an
# `imshow`, inline in an SVG <image> (svgclean checked its bytes).
_INLINE_RASTER = re.compile(r"data:image/(?:png|jpeg);base64,[A-Za-z0-9+/=]*\Z")
SCRIPT_FOLDERS = ("static/", "pagefind/")  # where the site's own scripts live
ALLOWED_HTTP_EQUIV = {"content-security-policy"}


@dataclass(frozen=True)
class MarkupFinding:
    line: int
    message: str


class _MarkupAudit(HTMLParser):
    def __init__(self, root: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = root  # the page's relative path to the site root, e.g. "../../"
        self.findings: list[MarkupFinding] = []
        self.in_script = False

    def flag(self, message: str) -> None:
        self.findings.append(MarkupFinding(self.getpos()[0], message))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_ELEMENTS:
            self.flag(f"element <{tag}> is not one a page may contain")
        for name, value in attrs:
            self.audit_attribute(tag, name, value or "")
        values = dict(attrs)
        href = values.get("href")
        if tag in SVG_TAGS and href is not None and href[:1] != "#" and not _raster(tag, href):
            self.flag(f'<{tag} href="{href}">: a figure links only to its own parts')
        if tag == "script":
            self.in_script = True
            self.audit_script(values.get("src") or "")
        if (
            tag == "meta"
            and (equiv := values.get("http-equiv"))
            and equiv.lower() not in ALLOWED_HTTP_EQUIV
        ):
            self.flag(f'<meta http-equiv="{values["http-equiv"]}"> is not allowed')

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.in_script = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.flag("inline script: pages load scripts only from the site's own files")

    def audit_attribute(self, tag: str, name: str, value: str) -> None:
        if name.startswith("on"):
            self.flag(f"event-handler attribute '{name}' on <{tag}>")
        elif tag in MATHML_ELEMENTS and name not in MATHML_ATTRIBUTES:
            self.flag(f"attribute '{name}' on <{tag}> is not allowed in math")
        elif tag in SVG_TAGS and name not in SVG_TAG_ATTRIBUTES:
            self.flag(f"attribute '{name}' on <{tag}> is not allowed in a figure")
        elif name in URL_ATTRIBUTES and not _raster(tag, value):
            scheme = _IGNORED_IN_SCHEME.sub("", value).lower()
            if scheme.startswith(_FORBIDDEN_SCHEMES):
                self.flag(f"<{tag} {name}> holds a {scheme.split(':')[0]}: URL")

    def audit_script(self, src: str) -> None:
        inside = src[len(self.root) :] if src.startswith(self.root) else ""
        if not (
            inside.startswith(SCRIPT_FOLDERS)
            and inside.endswith(".js")
            and ".." not in inside
            and "?" not in inside
        ):
            self.flag(
                f'<script src="{src}">: pages load only the site\'s own scripts '
                f"from {' and '.join(SCRIPT_FOLDERS)}"
            )


def _raster(tag: str, url: str) -> bool:
    return tag == "image" and bool(_INLINE_RASTER.match(url))


def audit_markup(page: str, root: str = "") -> list[MarkupFinding]:
    """Everything in `page` outside the allowlist; `root` is the page's relative path to
    the site root (a page two folders down has "../../")."""
    audit = _MarkupAudit(root)
    audit.feed(page)
    audit.close()
    return audit.findings
