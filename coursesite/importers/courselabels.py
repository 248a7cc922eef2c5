"""An imported lesson's target labels, kept apart from those the course has already.

A label names one place in the whole course (`{ref}` reaches across lessons), but a
notebook's labels were only its own book's: two tutorials imported from sister books may
both say `(bellman)=`, and the build refuses the second. A label the course has already is
renamed in the new lesson, its slug before it (`cake-eating-bellman`), and so are the
lesson's references to it; each with a line in the report.
"""

from __future__ import annotations

import re
from pathlib import Path

TARGET = re.compile(r"^ {0,3}\(([^()\n]+)\)=[ \t]*$", re.M)


def course_labels(sources: list[Path]) -> set[str]:
    """The target labels the course's lesson files set."""
    labels: set[str] = set()
    for source in sources:
        try:
            labels.update(TARGET.findall(source.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):  # the build names an unreadable lesson
            continue
    return labels


def heading_anchors(text: str) -> set[str]:
    """The labels of `text` that a heading above them has taken as its anchor already
    (markdown.slugify): Sphinx keeps labels and section ids apart; a page has one set of
    anchors, and the build refuses such a label ('## Top shares', then `:label: top-shares`)."""
    from coursesite.markup.markdown import plain_text, slugify

    # One pass in the text's order: each heading's anchor, then the labels it precedes.
    marks = [(m.start(), "heading", m.group(1)) for m in _HEADING.finditer(text)]
    marks += [(m.start(), "target", m.group(1)) for m in TARGET.finditer(text)]
    anchors: set[str] = set()
    taken: set[str] = set()
    for _, kind, value in sorted(marks):
        if kind == "heading":
            anchors.add(slugify(plain_text(value)))
        elif value in anchors:
            taken.add(value)
    return taken


_HEADING = re.compile(r"^#{2,6} +(.+?) *#*$", re.M)


def distinct_labels(
    text: str, taken: set[str], slug: str, held: str = "a place in another lesson of the course"
) -> tuple[str, list[str]]:
    """`text` with each of its labels that is `taken` already (by the course, or by what
    `held` says) renamed, references within it too; the report's lines."""
    notes = []
    for label in dict.fromkeys(TARGET.findall(text)):
        if label not in taken:
            continue
        new, number = f"{slug}-{label}", 2
        while new in taken:
            new, number = f"{slug}-{label}-{number}", number + 1
        escaped = re.escape(label)
        text = re.sub(rf"^( {{0,3}})\({escaped}\)=", rf"\g<1>({new})=", text, flags=re.M)
        text = re.sub(rf"(\{{ref\}}`[^`\n]*<){escaped}(>`)", rf"\g<1>{new}\g<2>", text)
        text = re.sub(rf"\{{ref\}}`{escaped}`", f"{{ref}}`{new}`", text)
        text = text.replace(f"](#{label})", f"](#{new})")
        taken.add(new)
        notes.append(
            f"the label {label} names {held} already: here it is {new}, and so are this "
            "lesson's references to it"
        )
    return text, notes
