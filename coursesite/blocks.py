"""The lesson blocks (`:::{step}`, `:::{experiment}`, ...): what each allows, and how its
raw parts (prose, Python fences, nested blocks) become a typed model item.

The parse stage reads a block's opening line, options and parts into a RawBlock; the
builder registered for its kind in BUILDERS checks it and returns the model item.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import did_you_mean
from .markdown import parse_nodes
from .model import (Check, Choice, Code, Exercise, ExerciseKind, Experiment, Figure, Note,
                    Pause, Prose, Step)

if TYPE_CHECKING:
    from .parse import LessonParser

_STEP_RE = re.compile(r"^(\d+)\.\s+(\S.*)$")
_CHOICE_RE = re.compile(r"^\[( |x|X)\]\s+(.+)$", re.S)


@dataclass(frozen=True)
class BlockSpec:
    stages: tuple[str, ...]  # empty: any stage
    options: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    titled: bool = True


BLOCKS = {
    "step": BlockSpec(("build-run",), ("raises",)),
    "experiment": BlockSpec(("experiment",), ("predict", "expected", "raises"),
                            ("predict", "expected")),
    "figure": BlockSpec((), ("alt", "predict", "caption"), ("alt",)),
    "exercise": BlockSpec(("exercise-check",), ("kind", "raises"), ("kind",)),
    "check": BlockSpec(("exercise-check",)),
    "pause": BlockSpec(()),
    "diagnose": BlockSpec(("exercise-check",), titled=False),
    "carry-forward": BlockSpec(("evidence",), titled=False),
    "evidence": BlockSpec(("evidence",), titled=False),
}
SUB_BLOCKS = {"read": "figure", "connect": "figure", "hint": "exercise"}
EXERCISE_KINDS = typing.get_args(ExerciseKind)
_NOTE_ANCHORS = {"diagnose": "diagnose-the-result", "carry-forward": "carry-forward",
                 "evidence": "keep-your-evidence"}


@dataclass
class Part:
    """A piece of a block body: prose, a Python fence, or a nested block."""

    kind: str  # "prose" | "code" | "block"
    line: int
    prose: Prose | None = None
    code: Code | None = None
    info: str = ""
    block: "RawBlock | None" = None


@dataclass
class RawBlock:
    kind: str
    title: str
    line: int
    options: dict[str, str]
    parts: list[Part]


def merge_prose(proses: list[Prose | None]) -> Prose | None:
    proses = [p for p in proses if p is not None]
    if not proses:
        return None
    return Prose("\n\n".join(p.markdown for p in proses), proses[0].line)


def _code_anchor(raw: RawBlock, info: str = "python") -> Part | None:
    return next((p for p in raw.parts if p.kind == "code" and p.info == info), None)


def build_step(parser: LessonParser, raw: RawBlock) -> Step | None:
    match = _STEP_RE.match(raw.title)
    if not match:
        parser.error(f"step title '{raw.title}' must start with its number, like '1. Title'",
                     raw.line, "number the steps 1, 2, 3, ... in order")
        return None
    code = parser.code_part(raw)
    intro, explanation = parser.prose_around(raw, _code_anchor(raw))
    if code is None:
        return None
    return Step(int(match.group(1)), match.group(2), parser.anchor(f"step {match.group(1)}"),
                intro, code, explanation, raw.line)


def build_experiment(parser: LessonParser, raw: RawBlock) -> Experiment | None:
    code = parser.code_part(raw)
    intro, takeaway = parser.prose_around(raw, _code_anchor(raw))
    if code is not None and takeaway is None:
        parser.error("{experiment} needs a takeaway paragraph after its code", raw.line,
                     "say in a sentence or two what the experiment shows")
    if code is None or takeaway is None:
        return None
    return Experiment(raw.title, parser.anchor(raw.title), raw.options.get("predict", ""),
                      raw.options.get("expected", ""), intro, code, takeaway)


def build_figure(parser: LessonParser, raw: RawBlock) -> Figure | None:
    code = parser.code_part(raw)
    intro, _ = parser.prose_around(raw, _code_anchor(raw))
    read = parser.sub_block(raw, "read", required=True)
    connect = parser.sub_block(raw, "connect", required=True)
    if code is None or read is None or connect is None:
        return None
    return Figure(raw.title, parser.anchor(raw.title), raw.options.get("alt", ""),
                  raw.options.get("caption") or raw.title, raw.options.get("predict"),
                  intro, code, read, connect)


def build_exercise(parser: LessonParser, raw: RawBlock) -> Exercise | None:
    kind = raw.options.get("kind", "")
    if kind and kind not in EXERCISE_KINDS:
        parser.error(f"unknown exercise kind '{kind}'{did_you_mean(kind, EXERCISE_KINDS)}",
                     raw.line, "kinds are: " + ", ".join(EXERCISE_KINDS))
    for part in raw.parts:
        if part.kind == "code" and part.info not in ("python scaffold", "python solution"):
            parser.error("in an exercise, mark code as ```python scaffold or ```python solution",
                         part.line, "the scaffold is what readers start from; the solution "
                         "runs and is checked")
    scaffold = parser.code_part(raw, "python scaffold")
    solution = parser.code_part(raw, "python solution")
    task, _ = parser.prose_around(raw, _code_anchor(raw, "python scaffold"))
    _, reasoning = parser.prose_around(raw, _code_anchor(raw, "python solution"))
    hint = parser.sub_block(raw, "hint", required=False)
    if scaffold is not None and task is None:
        parser.error("{exercise} needs the task described before its scaffold", raw.line,
                     "write what the reader should do above the ```python scaffold block")
    if scaffold is None or solution is None or task is None or kind not in EXERCISE_KINDS:
        return None
    return Exercise(raw.title, parser.anchor(raw.title), kind, task,
                    Code(scaffold.source, scaffold.line), hint, solution, reasoning)


def build_check(parser: LessonParser, raw: RawBlock) -> Check | None:
    choices: list[Choice] = []
    explanation: list[Prose | None] = []
    for part in raw.parts:
        if part.kind == "prose" and not choices and part.prose.markdown.lstrip().startswith("-"):
            choices = _choices(part.prose, explanation)
        elif part.kind == "prose":
            explanation.append(part.prose)
    if len(choices) < 2 or sum(choice.correct for choice in choices) != 1:
        parser.error("{check} needs a list of at least two answers, exactly one marked [x]",
                     raw.line, "write answers as '- [ ] wrong' and '- [x] right'")
        return None
    merged = merge_prose(explanation)
    if merged is None:
        parser.error("{check} needs an explanation after its answers", raw.line,
                     "explain after the list why the right answer is right")
        return None
    return Check(raw.title, parser.anchor("check your understanding"), choices, merged)


def _choices(prose: Prose, rest: list[Prose | None]) -> list[Choice]:
    """Split a prose part into '- [x] answer' choices and whatever prose follows them."""
    choices: list[Choice] = []
    for node in parse_nodes(prose.markdown):
        if node.type == "bullet_list" and not choices:
            for item in node.children:
                text = "\n".join(prose.markdown.splitlines()[item.map[0]:item.map[1]])
                match = _CHOICE_RE.match(text.strip().lstrip("-*+").strip())
                if not match:
                    return []
                choices.append(Choice(match.group(2).strip(), match.group(1) != " "))
        else:
            lines = prose.markdown.splitlines()[node.map[0]:node.map[1]]
            rest.append(Prose("\n".join(lines), prose.line + node.map[0]))
    return choices


def build_pause(parser: LessonParser, raw: RawBlock) -> Pause | None:
    answer = merge_prose([p.prose for p in raw.parts if p.kind == "prose"])
    if answer is None:
        parser.error("{pause} needs the answer to compare with in its body", raw.line,
                     "write the reasoning to compare with between the ':::' lines")
        return None
    return Pause(raw.title, parser.anchor(raw.title), answer)


def build_note(parser: LessonParser, raw: RawBlock) -> Note | None:
    body = merge_prose([p.prose for p in raw.parts if p.kind == "prose"])
    if body is None:
        parser.error(f"{{{raw.kind}}} is empty", raw.line, "write its text between the ':::' lines")
        return None
    return Note(raw.kind, parser.anchor(_NOTE_ANCHORS[raw.kind]), body)


BUILDERS = {
    "step": build_step, "experiment": build_experiment, "figure": build_figure,
    "exercise": build_exercise, "check": build_check, "pause": build_pause,
    "diagnose": build_note, "carry-forward": build_note, "evidence": build_note,
}
