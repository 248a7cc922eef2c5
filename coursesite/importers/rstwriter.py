"""A docutils document tree written as MyST Markdown blocks (rstmyst reads the text).

Each block-level node becomes lines of Markdown, each inline node a run of text.
Sections become headings of their depth, admonitions and Sphinx's directives MyST fences,
roles MyST roles; text is escaped where Markdown would read it as markup.
"""

from __future__ import annotations

import ast
import re

from docutils import nodes

_ADMONITIONS = "attention caution danger error hint important note tip warning seealso".split()
_ESCAPED = re.compile(r"([\\`*_\[\]<>{}$|])")
_LINE_START = re.compile(r"^(#|>|[-+*] |\d+[.)] |=+\s*$|-+\s*$)")


class ForeignRole(nodes.Inline, nodes.TextElement):
    """A role docutils lacks (Sphinx's `:func:`), kept for MyST: `role` and `content`."""


class ForeignDirective(nodes.Element):
    """A directive docutils lacks (`.. seealso::`), kept for MyST: its name, argument,
    options and body (parsed as children where the body is prose)."""


def myst_blocks(node: nodes.Node, depth: int = 0) -> list[str]:
    """The Markdown blocks of `node`'s children, in order."""
    return [block for block in _section_body(node.children, depth) if block.strip()]


def _block(node: nodes.Node, depth: int) -> list[str]:
    if isinstance(node, nodes.section):
        title, *rest = node.children
        return [f"{'#' * min(depth + 1, 6)} {inline(title)}", *_section_body(rest, depth + 1)]
    if isinstance(node, nodes.paragraph):
        return [_paragraph(node)]
    if isinstance(node, nodes.target):
        return _target(node)
    if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        return [_list(node, depth)]
    if isinstance(node, nodes.definition_list):
        return ["\n\n".join(_definition(item, depth) for item in node.children)]
    if isinstance(node, nodes.field_list):
        return ["\n\n".join(_field(field, depth) for field in node.children)]
    if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
        return [_code_fence(node)]
    if isinstance(node, nodes.math_block):  # its :name: a target before it
        labels = [f"({name})=" for name in node.get("names", [])]
        return [*labels, "$$\n" + node.astext().strip() + "\n$$"]
    if isinstance(node, nodes.block_quote):
        return [_prefixed(myst_blocks(node, depth), "> ")]
    if isinstance(node, nodes.Admonition):
        return [_admonition(node, depth)]
    if isinstance(node, (nodes.topic, nodes.sidebar)):
        return [_titled(node, depth)]
    if isinstance(node, nodes.rubric):
        return [f"**{inline(node)}**"]
    if isinstance(node, (nodes.image, nodes.figure)):
        return [_image(node, depth)]
    if isinstance(node, nodes.table):
        return [_table(node)]
    if isinstance(node, nodes.line_block):
        return [" \\\n".join(inline(line) for line in node.findall(nodes.line))]
    if isinstance(node, nodes.transition):
        return ["***"]
    if isinstance(node, ForeignDirective):
        return [_foreign_directive(node, depth)]
    if isinstance(node, (nodes.footnote, nodes.citation)):
        return [_footnote(node, depth)]
    if isinstance(node, (nodes.comment, nodes.substitution_definition, nodes.system_message)):
        return []  # invisible in Sphinx's page too
    if isinstance(node, nodes.TextElement):
        return [_paragraph(node)]
    return myst_blocks(node, depth)  # containers, compounds: their children


def _section_body(children: list[nodes.Node], depth: int) -> list[str]:
    blocks: list[str] = []
    for child in children:
        blocks += _block(child, depth)
    return blocks


def _paragraph(node: nodes.Node) -> str:
    text = inline(node).strip()
    return "\\" + text if _LINE_START.match(text) else text


def inline(node: nodes.Node) -> str:
    """The Markdown of `node`'s inline content."""
    return "".join(_inline(child) for child in node.children)


def _inline(node: nodes.Node) -> str:
    if isinstance(node, nodes.Text):
        return _ESCAPED.sub(r"\\\1", str(node).replace("\n", " "))
    if isinstance(node, nodes.emphasis):
        return f"*{inline(node)}*"
    if isinstance(node, nodes.strong):
        return f"**{inline(node)}**"
    if isinstance(node, nodes.literal):
        return _code(node.astext())
    if isinstance(node, nodes.title_reference):
        return _code(_shown_target(node.astext()))
    if isinstance(node, nodes.math):
        return "{math}" + _code(node.astext())
    if isinstance(node, ForeignRole):
        return "{" + node["role"] + "}" + _code(node["content"])
    if isinstance(node, (nodes.subscript, nodes.superscript)):
        role = "sub" if isinstance(node, nodes.subscript) else "sup"
        return "{" + role + "}" + _code(node.astext())
    if isinstance(node, nodes.reference):
        return _reference(node)
    if isinstance(node, (nodes.footnote_reference, nodes.citation_reference)):
        return f"[^{_note_label(node)}]"
    if isinstance(node, (nodes.target, nodes.system_message)):
        return ""  # an inline target's address is in its reference
    if isinstance(node, nodes.image):
        return f"![{node.get('alt', '')}]({node['uri']})"
    return inline(node) if isinstance(node, nodes.Element) else node.astext()


def _shown_target(text: str) -> str:
    """A cross-reference in Sphinx's default role as Sphinx shows it: `~a.b.c` as `c`, a
    leading `.` or `!` dropped."""
    if text.startswith("~"):
        return text[1:].rsplit(".", 1)[-1]
    return text.lstrip(".!")


def _code(text: str) -> str:
    """`text` as inline code, fenced with more backticks than it holds, on one line."""
    text = " ".join(text.split("\n"))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def _reference(node: nodes.Element) -> str:
    text = inline(node)
    if "refuri" in node:
        return f"[{text}]({node['refuri'].replace(' ', '%20')})"
    if "refid" in node:
        return f"[{text}](#{node['refid']})"
    return text  # a named reference to nothing: docutils said so in a note


def _target(node: nodes.Element) -> list[str]:
    """A label (`.. _name:`) as MyST's `(name)=`; a target with an address is its link's.
    docutils moves a label's name to the element it stands before, and leaves the target
    that element's id."""
    if "refuri" in node:
        return []
    names = list(node.get("names", []))
    if not names and "refid" in node:
        labelled = node.document.ids.get(node["refid"]) if node.document else None
        found = [n for n in (labelled or {}).get("names", []) if nodes.make_id(n) == node["refid"]]
        names = found[:1] or [node["refid"]]
    return [f"({name})=" for name in names]


def _list(node: nodes.Element, depth: int) -> str:
    start = node.get("start", 1)
    items = []
    for number, item in enumerate(node.children, start=start):
        marker = f"{number}. " if isinstance(node, nodes.enumerated_list) else "- "
        body = "\n\n".join(myst_blocks(item, depth))
        items.append(marker + _indented(body, len(marker)))
    tight = all(len(item.children) <= 1 for item in node.children)
    return ("\n" if tight else "\n\n").join(items)


def _indented(text: str, width: int) -> str:
    """`text` with every line but its first indented by `width` spaces."""
    pad = " " * width
    return "\n".join(
        line if i == 0 or not line else pad + line for i, line in enumerate(text.split("\n"))
    )


def _prefixed(blocks: list[str], prefix: str) -> str:
    text = "\n\n".join(blocks)
    return "\n".join((prefix + line).rstrip() for line in text.split("\n"))


def _definition(item: nodes.Element, depth: int) -> str:
    """`term` and `: definition`; a definition holding a directive is its term in bold and
    its body under it, as MyST's blocks go in no definition list."""
    term = next((inline(child) for child in item.children if isinstance(child, nodes.term)), "")
    definition = next(child for child in item.children if isinstance(child, nodes.definition))
    body = "\n\n".join(myst_blocks(definition, depth))
    if re.search(r"^(`{3,}|:{3,})\{", body, re.MULTILINE):
        return f"**{term}**\n\n{body}"
    return f"{term}\n: " + _indented(body, 2)


def _field(field: nodes.Element, depth: int) -> str:
    name, body = field.children
    return f"{inline(name)}\n: " + _indented("\n\n".join(myst_blocks(body, depth)), 2)


def _code_fence(node: nodes.Element) -> str:
    text = node.astext().rstrip("\n")
    classes = [name for name in node.get("classes", []) if name != "code"]
    if isinstance(node, nodes.doctest_block):
        language = "pycon"
    elif classes:
        language = classes[0]
    else:  # a `::` block: Sphinx shows it as Python when it parses as Python
        language = "python" if _parses(text) else "text"
    return _fenced(language, text)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _fenced(info: str, body: str) -> str:
    """A backtick fence longer than any fence inside `body`."""
    longest = max((len(run) for run in re.findall(r"^\s*(`{3,}|:{3,})", body, re.M)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}" if body else f"{fence}{info}\n{fence}"


def _admonition(node: nodes.Element, depth: int) -> str:
    name = node.tagname
    if name == "admonition":
        return _titled(node, depth)
    name = name if name in _ADMONITIONS else "note"
    return _fenced("{" + name + "}", "\n\n".join(myst_blocks(node, depth)))


def _titled(node: nodes.Element, depth: int) -> str:
    """An admonition with its title, as an `.. admonition::`, a topic or a sidebar is."""
    title = next((inline(c) for c in node.children if isinstance(c, nodes.title)), "")
    body = [c for c in node.children if not isinstance(c, nodes.title)]
    return _fenced("{admonition} " + title, "\n\n".join(_section_body(body, depth)))


def _image(node: nodes.Element, depth: int) -> str:
    image = node if isinstance(node, nodes.image) else next(node.findall(nodes.image))
    kind = "figure" if isinstance(node, nodes.figure) else "image"
    options = [f":{key}: {image[key]}" for key in ("alt", "width", "height") if key in image]
    options += [f":name: {name}" for name in node.get("names", [])[:1]]
    caption = [
        inline(child)
        if isinstance(child, nodes.caption)
        else "\n\n".join(myst_blocks(child, depth))
        for child in node.children
        if isinstance(child, (nodes.caption, nodes.legend))
    ]
    body = "\n".join(options) + ("\n\n" + "\n\n".join(caption) if caption else "")
    return _fenced("{" + kind + "} " + image["uri"], body)


def _table(node: nodes.Element) -> str:
    """A pipe table, its first row the header; its title a bold line above it."""
    title = next((f"**{inline(c)}**\n\n" for c in node.children if isinstance(c, nodes.title)), "")
    rows = [
        [
            " ".join(inline(p) for p in entry.findall(nodes.paragraph)) or inline(entry)
            for entry in row.children
        ]
        for row in node.findall(nodes.row)
    ]
    if not rows:
        return title
    width = max(len(row) for row in rows)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * width)
    return title + "\n".join(lines)


def _foreign_directive(node: ForeignDirective, depth: int) -> str:
    options = [f":{key}: {value or ''}".rstrip() for key, value in node["options"].items()]
    body = "\n\n".join(myst_blocks(node, depth)) if node.get("parsed") else node["body"]
    info = "{" + node["directive"] + "} " + node["argument"]
    return _fenced(info.rstrip(), "\n".join(options) + ("\n\n" if options and body else "") + body)


def _note_label(node: nodes.Element) -> str:
    """The label a footnote is shown with (`[#name]_` is numbered): its reference's text."""
    return node.astext()


def _footnote(node: nodes.Element, depth: int) -> str:
    label = next((child.astext() for child in node.findall(nodes.label)), "")
    body = [child for child in node.children if not isinstance(child, nodes.label)]
    return f"[^{label}]: " + _indented("\n\n".join(_section_body(body, depth)), 4)
