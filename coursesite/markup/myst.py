"""MyST roles, targets and images in lesson prose: what they point at and how they show.

`(label)=` targets, `{ref}`, `{doc}` and the API roles (`{func}`, `{class}`, ...) are
parsed by mdit-py-plugins; the parse stage checks them (parse.py), and this module turns
them into the ordinary tokens of a link or inline code, so that the Markdown renderer's own
rules write the markup and `lesson:` hrefs resolve like any lesson link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

API_ROLES = ("func", "class", "mod", "meth", "attr", "obj", "data", "exc", "const")
REFERENCE_ROLES = ("ref", "doc")
# Roles that change how their text shows: MyST's own, and Sphinx's {term} (shown as its
# text: a course has no glossary to link it to).
TEXT_ROLES = ("math", "abbr", "sub", "sup", "kbd", "term")
KNOWN_ROLES = ("value", *REFERENCE_ROLES, *API_ROLES, *TEXT_ROLES)
"""Every role lesson prose may use (`{value}` is the live value, see markdown.py); the API
roles also with Sphinx's Python-domain prefix, `{py:class}`."""
_ELEMENT_OF = {"sub": "sub", "sup": "sup", "kbd": "kbd"}
_ABBREVIATION = re.compile(r"^(.*?)\s*\(([^()]+)\)\s*\Z", re.S)

LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*\Z")
"""A target label: it becomes a page anchor, so it stays a plain id."""

_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>\Z", re.S)
# A line break inside a paragraph: not before a blank line, nor before a line that starts
# another block (a list item, a heading, a quotation, a fence), which ends the paragraph.
# A list item's marker, as CommonMark (and so MyST) reads it: `-`, `*`, `+`, `1.`, `2)`.
LIST_MARKER = r"(?:[-*+]|\d{1,9}[.)])"
IN_PARAGRAPH_BREAK = r"\n(?![ \t]*(?:\n|" + LIST_MARKER + r"[ \t]|#{1,6}[ \t]|>|`{3}|~{3}))"
# A role in Markdown source: `{name}`content``, with a single backtick pair.
# Its text may run over a line break, as a code span does, but not past its paragraph.
ROLE_SOURCE = re.compile(r"\{([A-Za-z0-9_+:-]+)\}`((?:[^`\n]|" + IN_PARAGRAPH_BREAK + r")+)`")
TARGET_LINE = re.compile(r"^ {0,3}\(([^()\n]+)\)=[ \t]*\n?", re.M)
# A role's opening: its name in braces and the backticks after it.
_ROLE_OPENING = re.compile(r"\{([a-zA-Z0-9_+:-]+)\}(`+)")


def role_rule(state: StateInline, silent: bool) -> bool:
    """`{name}`content``, parsed as mdit-py-plugins' myst_role parses it, but matched in
    place: the plugin's rule copies the rest of the paragraph at every position markdown-it
    tries it, which made a 1 MB line of `[` or `{` take minutes (quadratic)."""
    opening = _ROLE_OPENING.match(state.src, state.pos)
    if opening is None:
        return False
    ticks = opening.group(2)
    # As the plugin does, the content holds at least one character, even a backtick.
    closing = state.src.find(ticks, opening.end() + 1)
    if closing < 0:
        return False
    if not silent:
        token = state.push("myst_role", "", 0)
        token.meta = {"name": opening.group(1)}
        token.content = state.src[opening.end() : closing].replace("\n", " ")
    state.pos = closing + len(ticks)
    return True


@dataclass(frozen=True)
class References:
    """What roles point at across the course, for rendering (checked at parse time)."""

    labels: dict[str, tuple[str, str]] = field(default_factory=dict)
    """label -> (the slug of the lesson it is in, its title: the heading after it)."""
    lessons: dict[str, str] = field(default_factory=dict)
    """lesson slug -> lesson title."""
    api_docs: dict[str, str] = field(default_factory=dict)
    """package -> URL pattern with `{name}` (settings.api_docs)."""

    def api_url(self, name: str) -> str | None:
        pattern = self.api_docs.get(name.split(".")[0])
        return pattern.replace("{name}", name) if pattern else None


def role_kind(name: str) -> str:
    """The role a name stands for: Sphinx's `py:class` is `class`."""
    return name[3:] if name.startswith("py:") and name[3:] in API_ROLES else name


def split_role_text(content: str) -> tuple[str | None, str]:
    """`text <target>` -> (text, target); a bare `target`, or `<target>` with no text
    (QuantEcon's {doc}`<kalman>`, the page's title to show), -> (None, target)."""
    match = _EXPLICIT.match(content.strip())
    if match and match.group(1):
        return match.group(1), match.group(2).strip()
    if match:
        return None, match.group(2).strip()
    return None, content.strip()


def api_name(content: str) -> tuple[str, str]:
    """(the name shown, the full dotted name): Sphinx's `~a.b.c` shows only `c`."""
    name = content.strip()
    if name.startswith("~"):
        name = name[1:]
        return name.rsplit(".", 1)[-1], name
    return name, name


def role_link(name: str, content: str, refs: References) -> tuple[str | None, str, bool]:
    """(href or None, the text shown, whether the text is code) for a role."""
    name = role_kind(name)
    if name in TEXT_ROLES:
        return None, _role_words(name, content), False
    if name in API_ROLES:
        shown, full = api_name(content)
        return refs.api_url(full), shown, True
    text, target = split_role_text(content)
    if name == "ref" and target in refs.labels:
        slug, title = refs.labels[target]
        return f"lesson:{slug}#{target}", text or title or target, False
    if name == "doc" and target in refs.lessons:
        return f"lesson:{target}", text or refs.lessons[target], False
    return None, f"{{{name}}}`{content}`", False  # the parse stage refused it already


def resolve_roles(state: StateCore) -> None:
    """Core rule: each role token becomes a link and/or inline code, or its own text."""
    refs = state.env.get("course_references") or References()
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for token in block.children:
            if token.type == "myst_role" and token.meta.get("name") != "value":
                children.extend(_role_tokens(token.meta["name"], token.content, refs))
            else:
                children.append(token)
        block.children = children


def _role_words(name: str, content: str) -> str:
    """A text role as plain words: `LLM (large language model)`, a term's text."""
    if name == "term":
        text, target = split_role_text(content)
        return text or target
    return content.strip()


def _role_tokens(name: str, content: str, refs: References) -> list[Token]:
    name = role_kind(name)
    if name == "math":
        formula = Token("math_inline", "math", 0)
        formula.content = content
        return [formula]
    if name in _ELEMENT_OF or name == "abbr":
        return _element_tokens(name, content)
    href, text, is_code = role_link(name, content, refs)
    shown = Token("code_inline" if is_code else "text", "code" if is_code else "", 0)
    shown.content = text
    if href is None:
        return [shown]
    opening = Token("link_open", "a", 1)
    opening.attrSet("href", href)
    return [opening, shown, Token("link_close", "a", -1)]


def _element_tokens(name: str, content: str) -> list[Token]:
    """{sub}, {sup} and {kbd} as their element around the text; {abbr}`LLM (large
    language model)` as <abbr title="large language model">LLM</abbr>."""
    text, tag = content.strip(), _ELEMENT_OF.get(name, "abbr")
    opening = Token(f"{tag}_open", tag, 1)
    if name == "abbr" and (match := _ABBREVIATION.match(text)):
        text = match.group(1)
        opening.attrSet("title", match.group(2).strip())
    shown = Token("text", "", 0)
    shown.content = text
    return [opening, shown, Token(f"{tag}_close", tag, -1)]


def plain_roles(markdown: str, refs: References) -> str:
    """Roles as reader's Markdown (links and code spans); targets' lines removed."""

    def replace(match: re.Match[str]) -> str:
        name, content = match.group(1), match.group(2)
        if name == "value":
            return match.group(0)
        if role_kind(name) == "math":
            return f"${content}$"
        href, text, is_code = role_link(name, content, refs)
        shown = f"`{text}`" if is_code else text
        return f"[{shown}]({href})" if href else shown

    return TARGET_LINE.sub("", ROLE_SOURCE.sub(replace, markdown))
