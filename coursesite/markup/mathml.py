"""LaTeX to MathML that is safe to put in a page.

latex2mathml builds an element tree and then serialises it with its own character
references un-escaped, so `\\text{<script>}` came out as a real tag and `\\href{javascript:…}`
as a link. Here only its tree is used: every element must be MathML presentation markup,
every attribute a presentational one whose value holds no URL, and the standard library's
serialiser escapes all text.
"""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import Element, tostring

ALLOWLIST_REVISION = 2  # raise when the lists below change: cached MathML is then redone

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"

# MathML Core's presentation elements, plus the few older ones latex2mathml writes.
# Left out on purpose: annotation-xml (may hold HTML) and maction (behaviour).
MATHML_ELEMENTS = frozenset(
    """
    math menclose merror mfenced mfrac mi mlabeledtr mmultiscripts mn mo mover mpadded
    mphantom mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable mtd
    mtext mtr munder munderover none semantics annotation
""".split()
)

# Presentational attributes only: no href, src, style, class, id or event handler.
MATHML_ATTRIBUTES = frozenset(
    """
    accent accentunder align close columnalign columnlines columnspacing columnspan
    columnwidth depth display displaystyle equalcolumns equalrows fence form frame height
    largeop linebreak linethickness lspace mathbackground mathcolor mathsize mathvariant maxsize
    minsize movablelimits notation open rowalign rowlines rowspacing rowspan rspace
    scriptlevel separator separators stretchy symmetric voffset width xmlns
""".split()
)

# Lengths, keywords and colours ("0.5em", "true", "#ff0000", "red"): nothing that could
# name a scheme, a function such as url(), or close the attribute.
_SAFE_VALUE = re.compile(r"[\w\s.#%+\-,]*")


class UnsafeMath(ValueError):
    """The formula asks for markup that pages never carry (a link, a style, raw HTML)."""


def latex_to_mathml(latex: str, display: bool) -> str:
    """MathML for a formula; raises on LaTeX that latex2mathml cannot read or that asks
    for something outside the allowlist."""
    import latex2mathml.converter

    latex = _AS_TABLE.sub(_as_table, latex)
    if display and _breaks_at_top(latex):
        latex = rf"\begin{{array}}{{c}}{latex}\end{{array}}"
    tree = latex2mathml.converter.convert_to_element(
        latex, display="block" if display else "inline"
    )
    return tostring(_allowed(tree), encoding="unicode", short_empty_elements=False)


# Environments MathJax shows as tables of rows and latex2mathml knows under another name:
# without it, their rows run on in one line (a MathML line break no browser draws).
# Each: the environment latex2mathml knows, and what its \begin takes.
_TABLES = {
    "eqnarray": ("array", "{rcl}"),  # right-centre-left
    "aligned": ("align*", ""),
    "alignedat": ("align*", ""),
    "gather": ("array", "{c}"),
    "gathered": ("array", "{c}"),
}
_AS_TABLE = re.compile(
    r"\\(begin|end)\{(eqnarray|aligned|alignedat|gather|gathered)\*?\}(\{\d+\})?"
)


def _as_table(match: re.Match[str]) -> str:
    environment, arguments = _TABLES[match.group(2)]
    if match.group(1) == "end":
        return rf"\end{{{environment}}}"
    return rf"\begin{{{environment}}}{arguments}"


def _breaks_at_top(latex: str) -> bool:
    """Whether the formula breaks its line (a double backslash) outside any environment or
    group: MathJax shows its lines one under the other."""
    depth = 0
    for token in re.finditer(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\\\|\\.|[{}]", latex):
        text = token.group(0)
        if text == "{" or text.startswith("\\begin{"):
            depth += 1
        elif text == "}" or text.startswith("\\end{"):
            depth -= 1
        elif text == "\\\\" and depth == 0:
            return True
    return False


def _allowed(element: Element) -> Element:
    if element.tag not in MATHML_ELEMENTS:
        raise UnsafeMath(f"<{element.tag}> is not MathML a page may contain")
    clean = Element(element.tag)
    for name, value in element.attrib.items():
        if name == "xmlns":
            clean.set(name, MATHML_NAMESPACE)
        elif name not in MATHML_ATTRIBUTES:
            raise UnsafeMath(f"'{name}' ({_command_hint(name)}) is not allowed in page math")
        elif not _SAFE_VALUE.fullmatch(value):
            raise UnsafeMath(f"the value {value!r} of '{name}' is not allowed in page math")
        else:
            clean.set(name, value)
    # latex2mathml writes symbols as character references inside its text; decoding them
    # here lets the serialiser escape every character that reaches the page.
    clean.text = html.unescape(element.text) if element.text else None
    clean.tail = html.unescape(element.tail) if element.tail else None
    clean.extend([_allowed(child) for child in element])
    return clean


def _command_hint(attribute: str) -> str:
    return {
        "href": "from \\href",
        "style": "from \\style",
        "class": "from \\class",
        "id": "from \\cssId",
    }.get(attribute, "an attribute")
