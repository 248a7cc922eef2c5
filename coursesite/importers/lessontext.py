"""The lesson file an import writes: its front matter (the placeholders the author fills
in, what the notebook says of itself) and its five stages, Understand and Build & Run
filled from the notebook's cells."""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml

from coursesite.config.yamlmodel import dump_yaml
from coursesite.lesson.completeness import PLACEHOLDER


def front_matter(
    title: str, summary: str, understand: list[str], steps: int, expected_name: str | None
) -> dict:
    words = sum(len(text.split()) for text in understand)
    front = {
        "title": title,
        "summary": summary,
        "minutes": max(10, 5 * round((words / 200 + 3 * steps) / 5)),
        "hardware": "cpu",
        "outcomes": [f"{PLACEHOLDER} what a learner can do after this lesson"],
        "expected_result": f"{PLACEHOLDER} the output that shows the lesson worked",
        "revision": "v0.1.0",
    }
    if expected_name:
        front["expected_outputs"] = expected_name
    return front


def title_summary(title: str) -> str:
    """A summary made of the title, for a notebook with no sentence of its own."""
    summary = title[:1].upper() + title[1:]
    return summary if summary.endswith((".", "!", "?")) else f"{summary}."


def lesson_text(front: dict, understand: list[str], build_run: list[str]) -> str:
    header = dump_yaml(front)
    stages = [
        ("Understand", understand),
        ("Build & Run", build_run),
        ("Experiment", []),
        ("Exercise & Check", []),
        ("Evidence", []),
    ]
    body = "\n\n".join(
        f"# {name}" + "".join(f"\n\n{_trimmed(part)}" for part in parts if part.strip())
        for name, parts in stages
    )
    return f"---\n{header}---\n\n{body}\n"


def _trimmed(part: str) -> str:
    """`part` without the blank lines around it; its first line keeps its indent, which may
    open an indented code block (nbconvert's Markdown keeps a cell's output so)."""
    return re.sub(r"\A(?:[ \t]*\n)+", "", part).rstrip()


def with_listed(text: str, files: list[str], writes: list[str]) -> str:
    """The lesson `text` with `files` in its front matter's files: and `writes` in its
    writes:, after those it lists already."""
    if not files and not writes:
        return text

    def listed(front: dict) -> None:
        for key, added in (("files", files), ("writes", writes)):
            if added:
                front[key] = list(dict.fromkeys([*front.get(key, []), *added]))

    return _with_front(text, listed)


def with_time_limit(text: str, seconds: int | None) -> str:
    """The lesson `text` with its own limit on its run, `timeout_seconds:`, in its front
    matter; as it was where `seconds` is None (the course's limit holds)."""
    if seconds is None:
        return text
    return _with_front(text, lambda front: front.update(timeout_seconds=seconds))


def _with_front(text: str, change: Callable[[dict], None]) -> str:
    """The lesson `text` with its front matter as `change` leaves it."""
    _, header, body = text.split("---\n", 2)
    front = yaml.safe_load(header)
    change(front)
    return f"---\n{dump_yaml(front)}---\n{body}"
