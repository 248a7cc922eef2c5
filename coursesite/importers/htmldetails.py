"""HTML's `<details>` with its `<summary>`, as notebooks fold a solution or a list of
examples, made MyST's dropdown: an admonition titled with the summary, `:class: dropdown`.

Lessons refuse raw HTML, so the block was shown as code, its images and Markdown with it.
The body between the tags is Markdown, and stays so; a `<details>` inside another is made a
dropdown first, then the one around it; one without a `<summary>` is left to the HTML rules
(portableprose.py).
"""

from __future__ import annotations

import re
import textwrap

_DETAILS = re.compile(
    r"^[ \t]*<details(?:\s[^>]*)?>\s*<summary(?:\s[^>]*)?>"
    r"(?P<summary>(?:(?!</summary>|<details\b).)*)</summary>"
    r"(?P<body>(?:(?!<details\b).)*?)^[ \t]*</details>[ \t]*$",
    re.S | re.M | re.I,
)


def details_as_dropdowns(source: str) -> tuple[str, int]:
    """`source` with each `<details>` block a dropdown admonition, and how many there were.
    Each pass converts those that hold no other; the next, those around them."""
    total = 0
    while True:
        source, converted = _DETAILS.subn(_dropdown, source)
        if not converted:
            return source, total
        total += converted


def _dropdown(found: re.Match[str]) -> str:
    summary = " ".join(found["summary"].split()) or "Details"
    # Dedented: `<details>` bodies are often indented as HTML, which Markdown reads as code.
    body = textwrap.dedent(found["body"]).strip("\n")
    fence = ":" * max([3, *(len(run) + 1 for run in re.findall(r"^\s*(:{3,})", body, re.M))])
    return f"{fence}{{admonition}} {summary}\n:class: dropdown\n\n{body}\n{fence}"
