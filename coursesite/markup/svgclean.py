"""Figure SVGs reduced to an allowlist before they reach a page or the site.

A figure's SVG comes from matplotlib, but a captured one is made in the lesson's process,
where lesson code could have written anything. Pages show figures inline (their text is
text in the page's font, and scales with the page), so an SVG is rebuilt from what this
module allows: drawing elements, geometry, and paint given as presentation attributes.
The page's Content-Security-Policy forbids `style` attributes and elements, so matplotlib's
`style="fill: ..."` becomes `fill="..."`. Ids get a per-figure prefix, since one page holds
several figures and matplotlib names its parts alike in each.
"""

from __future__ import annotations

import base64
import binascii
import re
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"

# Filters whose primitives only recombine what is drawn (matplotlib's Gouraud shading
# composes its triangles with them); never feImage, which loads a picture.
FILTER_ELEMENTS = frozenset(
    "filter feColorMatrix feComposite feBlend feFlood feGaussianBlur feOffset feMerge "
    "feMergeNode".split()
)
DRAWING_ELEMENTS = (
    frozenset(
        "svg g defs path text tspan use rect circle ellipse line polyline polygon "
        "clipPath pattern linearGradient radialGradient stop marker symbol image".split()
    )
    | FILTER_ELEMENTS
)
# An <image> may only carry its raster inline, as matplotlib's imshow() writes it: PNG or
# JPEG bytes in a data: URL, which can hold no script and loads nothing.
RASTER_SIGNATURES = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
_DATA_URL = re.compile(r"data:(image/(?:png|jpeg));base64,([A-Za-z0-9+/=\s]*)\Z")
# Drawing editors keep their own state in these namespaces; it never changes what is drawn
# and is left out with everything inside it. Any other foreign element is refused.
EDITOR_NAMESPACES = frozenset(
    {
        "http://www.inkscape.org/namespaces/inkscape",
        "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
        "http://www.bohemiancoding.com/sketch/ns",
        "http://ns.adobe.com/AdobeIllustrator/10.0/",
        "http://www.w3.org/XML/1998/namespace",  # xml:space, on text
    }
)
# matplotlib's own additions, left out without changing what is drawn: creator metadata,
# and the one stylesheet rule whose declarations the root element carries instead.
DROPPED_ELEMENTS = frozenset({"metadata", "style", "title", "desc"})
# Names for a stylesheet's rules (Graphviz's class="node"): with the SVG's own <style> left
# out, they could only pick up the page's rules, so they go too.
DROPPED_ATTRIBUTES = frozenset({"class"})
PAINT_PROPERTIES = frozenset(
    """
    fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-dasharray
    stroke-dashoffset stroke-linejoin stroke-linecap stroke-miterlimit opacity clip-path
    clip-rule font-size font-family font-weight font-style font-stretch text-anchor
    dominant-baseline alignment-baseline letter-spacing stop-color stop-opacity
    marker-start marker-mid marker-end visibility display font-variant text-decoration
    image-rendering shape-rendering filter flood-color flood-opacity color-interpolation-filters
    """.split()
)
GEOMETRY_ATTRIBUTES = frozenset(
    """
    d x y dx dy width height viewBox transform points x1 y1 x2 y2 cx cy r rx ry
    patternUnits patternContentUnits clipPathUnits preserveAspectRatio version
    offset gradientUnits gradientTransform spreadMethod fx fy fr markerWidth markerHeight
    refX refY orient markerUnits
    filterUnits primitiveUnits in in2 result operator k1 k2 k3 k4 type values mode
    stdDeviation
    """.split()
)
SVG_ATTRIBUTES = GEOMETRY_ATTRIBUTES | PAINT_PROPERTIES | {"id", "href", "xmlns"}
# What matplotlib's `*{...}` rule sets for every element; inherited from the root instead.
ROOT_DEFAULTS = {"stroke-linejoin": "round", "stroke-linecap": "butt"}

_ID = re.compile(r"[A-Za-z_][\w.-]*\Z")
_URL = re.compile(r"url\(\s*#([A-Za-z_][\w.-]*)\s*\)")


class UnsafeSvg(ValueError):
    """The SVG holds something a page must not show; the message says what."""


def clean_svg(svg: str, prefix: str) -> str:
    """`svg` rebuilt from allowed parts, its ids prefixed with `prefix`: the <svg> element,
    for inline use and as a file; UnsafeSvg if it holds anything else (a script, an
    an image from elsewhere, an outside link, ...)."""
    if "<!ENTITY" in svg:
        raise UnsafeSvg("the SVG declares XML entities")
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as error:
        raise UnsafeSvg(f"the SVG is not well-formed XML ({error})") from None
    if _local(root.tag) != "svg":
        raise UnsafeSvg(f"the drawing is a <{_local(root.tag)}>, not an <svg>")
    referenced = {m for value in _all_values(root) for m in _references(value)}
    writer = _Writer(prefix, referenced)
    writer.element(root, is_root=True)
    return "".join(writer.parts) + "\n"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _namespace(tag: str) -> str:
    return tag[1:].partition("}")[0] if tag.startswith("{") else ""


def _all_values(root: ET.Element) -> list[str]:
    return [value for element in root.iter() for value in element.attrib.values()]


def _references(value: str) -> list[str]:
    if value.startswith("#"):
        return [value[1:]]
    return _URL.findall(value)


class _Writer:
    def __init__(self, prefix: str, referenced: set[str]):
        self.prefix, self.referenced = prefix, referenced
        self.parts: list[str] = []

    def element(self, element: ET.Element, is_root: bool = False) -> None:
        if _namespace(element.tag) in EDITOR_NAMESPACES:
            return
        if not element.tag.startswith(SVG_NS) and element.tag != "svg":
            raise UnsafeSvg(f"element <{element.tag}> is outside SVG")
        name = _local(element.tag)
        if name in DROPPED_ELEMENTS:
            return
        if name not in DRAWING_ELEMENTS:
            raise UnsafeSvg(f"element <{name}> is not one a figure may contain")
        attributes = self.attributes(element, name)
        if is_root:
            attributes = {"xmlns": "http://www.w3.org/2000/svg", **ROOT_DEFAULTS, **attributes}
        rendered = "".join(f' {key}="{_escape(value)}"' for key, value in attributes.items())
        self.parts.append(f"<{name}{rendered}>")
        if element.text:
            self.text(element.text, name)
        for child in element:
            self.element(child)
            if child.tail:
                self.text(child.tail, name)
        self.parts.append(f"</{name}>")

    def text(self, text: str, parent: str) -> None:
        if parent in ("text", "tspan"):
            self.parts.append(_escape(text))
        elif text.strip():
            raise UnsafeSvg(f"<{parent}> holds text outside a <text> element")
        # whitespace between drawing elements is layout of the XML only: left out

    def attributes(self, element: ET.Element, name: str) -> dict[str, str]:
        kept: dict[str, str] = {}
        for key, value in element.attrib.items():
            if _namespace(key) in EDITOR_NAMESPACES or key in DROPPED_ATTRIBUTES:
                continue
            if key == "style":
                for prop, declared in _declarations(value):
                    kept[prop] = self.value(prop, declared, name)
            elif key in (XLINK_HREF, "href"):
                kept["href"] = self.link(value, name)
            elif key == "id":
                if value in self.referenced:
                    kept["id"] = self.identifier(value)
            elif key in GEOMETRY_ATTRIBUTES or key in PAINT_PROPERTIES:
                kept[key] = self.value(key, value, name)
            else:
                raise UnsafeSvg(f"attribute '{_local(key)}' on <{name}> is not allowed")
        return kept

    def identifier(self, value: str) -> str:
        if not _ID.match(value):
            raise UnsafeSvg(f"id {value!r} is not a plain name")
        return f"{self.prefix}-{value}"

    def link(self, value: str, name: str) -> str:
        if name == "image":
            return _inline_raster(value)
        if not value.startswith("#"):
            raise UnsafeSvg(f"<{name}> links to {value!r}: a figure may link only to its parts")
        return "#" + self.identifier(value[1:])

    def value(self, key: str, value: str, name: str) -> str:
        """`value` with its url(#id) references prefixed; other URLs are not allowed."""
        rewritten = _URL.sub(lambda m: f"url(#{self.identifier(m.group(1))})", value)
        if "url(" in _URL.sub("", value).replace(" ", "").lower() or "\\" in value:
            raise UnsafeSvg(f"'{key}' on <{name}> refers outside the figure: {value!r}")
        return rewritten


def _inline_raster(value: str) -> str:
    """An <image>'s data: URL, when the bytes it holds are the PNG or JPEG it says."""
    match = _DATA_URL.match(value.strip())
    if not match:
        raise UnsafeSvg(
            f"an <image> may only hold a PNG or JPEG inline (a data: URL), not {value[:40]!r}"
        )
    mime, payload = match.group(1), "".join(match.group(2).split())
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise UnsafeSvg(f"the {mime} of an <image> is not valid base64") from None
    if not data.startswith(RASTER_SIGNATURES[mime]):
        raise UnsafeSvg(f"the data of an <image> is not the {mime} it says it is")
    return f"data:{mime};base64,{payload}"


def _declarations(style: str) -> list[tuple[str, str]]:
    """The `property: value` pairs of a style attribute, each checked against the allowlist."""
    pairs = []
    for declaration in style.split(";"):
        if not declaration.strip():
            continue
        prop, colon, value = declaration.partition(":")
        prop = prop.strip().lower()
        if not colon or prop not in PAINT_PROPERTIES:
            raise UnsafeSvg(f"style property {prop!r} is not allowed in a figure")
        pairs.append((prop, value.strip()))
    return pairs


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
