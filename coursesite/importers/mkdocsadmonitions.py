"""MkDocs' admonitions (Python-Markdown's `!!! note "Title"`, pymdownx.details' `??? tip`),
which the notebooks of MkDocs-documented libraries (Equinox, Diffrax, Optimistix) use.

CommonMark reads `!!! note` as a paragraph and the body indented under it as a code block,
so the page would show the reader the markup and the body as code. Each becomes the MyST
admonition of the closest kind (`{note}`, `{tip}`, `{warning}`, ...), titled as MkDocs
titles it, a `???` one shown closed, which the import then settles as any other.
"""

from __future__ import annotations

import re

from coursesite.importers.fences import regions

# `!!! type "Title"`, `??? type`, `???+ type "Title"` (open), with extra classes after type.
_OPENING = re.compile(
    r"^(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+[\w-]+)*"
    r'(?:[ \t]+"(?P<title>[^"\n]*)")?[ \t]*$'
)
# Python-Markdown's types, as the kinds lessons have (the rest are notes).
_KINDS = {
    "tip": "tip",
    "hint": "tip",
    "success": "tip",
    "check": "tip",
    "done": "tip",
    "important": "important",
    "warning": "warning",
    "caution": "caution",
    "attention": "warning",
    "danger": "warning",
    "error": "warning",
    "failure": "warning",
    "fail": "warning",
    "missing": "warning",
    "bug": "warning",
    "seealso": "seealso",
}


def myst_admonitions(text: str) -> tuple[str, list[str]]:
    """`text` with each MkDocs admonition outside code as a MyST one, and a line for each
    saying what it became."""
    lines = text.split("\n")
    code, _ = regions(text)
    said: list[str] = []
    out: list[str] = []
    at = 0
    while at < len(lines):
        opening = _OPENING.match(lines[at]) if at not in code else None
        if opening is None:
            out.append(lines[at])
            at += 1
            continue
        written = lines[at].strip()
        body, at = _indented_body(lines, at + 1)
        kind = _KINDS.get(opening["kind"].lower(), "note")
        title = opening["title"]
        if title is None:  # MkDocs titles it with its type
            title = opening["kind"].capitalize()
        closed = opening["marker"] == "???"
        inner = re.findall(r"^\s*(:{3,})", "\n".join(body), re.M)
        fence = ":" * max(3, 1 + max((len(colons) for colons in inner), default=0))
        options = [":class: dropdown"] if closed else []
        out += [f"{fence}{{{kind}}} {title}".rstrip(), *options, *body, fence]
        said.append(
            f"the MkDocs admonition {written} became {{{kind}}} {title}"
            + (", shown closed" if closed else "")
        )
    return "\n".join(out), said


def _indented_body(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines indented under an opening (4 spaces or a tab), dedented, without the blank
    lines that end it; and where the text goes on."""
    body: list[str] = []
    at = start
    while at < len(lines) and (not lines[at].strip() or re.match(r"^(?: {4}|\t)", lines[at])):
        body.append(lines[at][4:] if lines[at].startswith("    ") else lines[at][1:])
        at += 1
    while body and not body[-1].strip():
        body.pop()
        at -= 1
    while body and not body[0].strip():
        body.pop(0)
    return body, at
