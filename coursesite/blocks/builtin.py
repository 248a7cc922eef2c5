"""The built-in block kinds: for each, a builder (RawBlock -> model item), its notebook
layout if its code becomes a notebook cell, and its one registration. Their templates are
`templates/blocks/<kind>.html` and `templates/blocks/<kind>.md`.
"""

from __future__ import annotations

import re
import textwrap
import typing
from typing import TYPE_CHECKING

from coursesite.blocks.registry import (
    BlockContext,
    BlockKind,
    RawBlock,
    Runs,
    merge_prose,
    placeholder_label,
    register,
)
from coursesite.errors import did_you_mean
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.lesson.model import (
    Admonition,
    AdmonitionKind,
    Check,
    Choice,
    Code,
    Exercise,
    ExerciseKind,
    Experiment,
    Figure,
    Note,
    Pause,
    Picture,
    Prose,
    Step,
)
from coursesite.markup.markdown import MARKDOWN, parse_nodes

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

    from coursesite.outputs.downloads import NotebookBuilder

_STEP_RE = re.compile(r"^(\d+)\.\s+(\S.*)$")
_CHOICE_RE = re.compile(r"^\[( |x|X)\]\s+(.+)$", re.S)
EXERCISE_KINDS = typing.get_args(ExerciseKind)
ADMONITION_KINDS = typing.get_args(AdmonitionKind)
_IMAGE_PATH = re.compile(r"^\S+\.(png|jpe?g|gif|svg|webp|avif)$", re.I)
_NOTE_ANCHORS = {
    "diagnose": "diagnose-the-result",
    "carry-forward": "carry-forward",
    "evidence": "keep-your-evidence",
}


def build_step(context: BlockContext, raw: RawBlock) -> Step | None:
    match = _STEP_RE.match(raw.title)
    if not match:
        context.error(
            f"step title '{raw.title}' must start with its number, like '1. Title'",
            raw.line,
            "number the steps 1, 2, 3, ... in order",
        )
        return None
    code = context.code_part(raw)
    intro, explanation = context.prose_around(raw, context.code_anchor(raw))
    if code is None:
        return None
    number = int(match.group(1))  # "01." is step 1: its anchor is the id its output has
    return Step(
        number, match.group(2), context.anchor(f"step {number}"), intro, code, explanation, raw.line
    )


def step_cells(cells: NotebookBuilder, step: Step) -> None:
    cells.markdown(cells.md.step_heading(step))
    cells.optional(step.intro)
    cells.run(step)
    cells.optional(step.explanation)


def build_experiment(context: BlockContext, raw: RawBlock) -> Experiment | None:
    code = context.code_part(raw)
    intro, takeaway = context.prose_around(raw, context.code_anchor(raw))
    if code is not None and takeaway is None:
        context.error(
            "{experiment} needs a takeaway paragraph after its code",
            raw.line,
            "say in a sentence or two what the experiment shows",
        )
    if code is None or takeaway is None:
        return None
    return Experiment(
        raw.title,
        context.anchor(raw.title),
        raw.options.get("predict", ""),
        raw.options.get("expected", ""),
        intro,
        code,
        takeaway,
        prediction_choices(context, raw),
    )


def prediction_choices(context: BlockContext, raw: RawBlock) -> tuple[str, ...]:
    """`:choices: a | b | c`: the predictions a reader may pick from (or write their own)."""
    if "choices" not in raw.options:
        return ()
    choices = tuple(choice.strip() for choice in raw.options["choices"].split("|"))
    problem = None
    if "predict" not in raw.options:
        problem = "':choices:' needs the ':predict:' question they answer"
    elif len(choices) < 2 or not all(choices):
        problem = "':choices:' needs two or more answers separated by '|', none empty"
    elif len(set(choices)) < len(choices):
        problem = "':choices:' lists an answer twice"
    if problem:
        # Options are the lines right under the block's opening line, in the file's order.
        line = raw.line + 1 + list(raw.options).index("choices")
        context.error(problem, line, "write e.g. ':choices: above | below | on it'")
        return ()
    return choices


def experiment_cells(cells: NotebookBuilder, experiment: Experiment) -> None:
    cells.markdown(cells.md.experiment_head(experiment))
    cells.optional(experiment.intro)
    cells.run(experiment)
    cells.markdown(cells.md.experiment_tail(experiment))


def build_figure(context: BlockContext, raw: RawBlock) -> Figure | Picture | None:
    if _IMAGE_PATH.match(raw.title) and not any(p.kind == "code" for p in raw.parts):
        return build_picture(context, raw)
    code = context.code_part(raw)
    intro, _ = context.prose_around(raw, context.code_anchor(raw))
    read = context.sub_block(raw, "read", required=True)
    connect = context.sub_block(raw, "connect", required=True)
    if code is None or read is None or connect is None:
        return None
    alt = raw.options.get("alt", "")
    return Figure(
        raw.title,
        context.anchor(raw.title),
        placeholder_label(raw) if alt.lstrip().startswith(PLACEHOLDER) else alt,
        raw.options.get("caption") or raw.title,
        raw.options.get("predict"),
        intro,
        code,
        read,
        connect,
        prediction_choices(context, raw),
    )


def build_picture(context: BlockContext, raw: RawBlock) -> Picture | None:
    """`{image} path` and `{figure} path`: an image file; a figure's body is its caption."""
    if not _IMAGE_PATH.match(raw.title):
        context.error(
            f"'{raw.title}' is not the path of an image file",
            raw.line,
            "write the image's path after the kind, e.g. ':::{image} images/batches.png' "
            "(.png, .jpg, .gif, .svg, .webp or .avif)",
        )
        return None
    if raw.kind == "image" and raw.parts:
        context.error(
            "{image} takes no body",
            raw.parts[0].line,
            "use ':::{figure} path' to give an image a caption",
        )
    for name in ("predict", "caption", "choices"):
        if name in raw.options:
            context.error(
                f"an image figure takes no ':{name}:'",
                raw.line,
                "write the caption as the body of the block",
            )
    for part in raw.parts:
        if part.kind != "prose":
            context.error(
                "an image figure's body is its caption: prose only",
                part.line,
                "move code and blocks out of it; a figure drawn by code has a title, "
                "not an image path, after ':::{figure}'",
            )
    src = MARKDOWN.normalizeLink(raw.title)
    context.image(src, raw.options.get("alt", ""), raw.line)
    caption = merge_prose([p.prose for p in raw.parts if p.kind == "prose"])
    anchor = context.anchor(raw.title.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return Picture(src, raw.options.get("alt", ""), anchor, caption, raw.line)


def figure_cells(cells: NotebookBuilder, figure: Figure) -> None:
    cells.markdown(cells.md.figure_text(figure))
    cells.run(figure)


EXERCISE_FENCES = ("python scaffold", "python solution", "python check")


def build_exercise(context: BlockContext, raw: RawBlock) -> Exercise | None:
    kind = raw.options.get("kind", "")
    if kind and kind not in EXERCISE_KINDS:
        context.error(
            f"unknown exercise kind '{kind}'{did_you_mean(kind, EXERCISE_KINDS)}",
            raw.line,
            "kinds are: " + ", ".join(EXERCISE_KINDS),
        )
    for part in raw.parts:
        if part.kind == "code" and part.info not in EXERCISE_FENCES:
            context.error(
                "in an exercise, mark code as ```python scaffold, ```python solution "
                "or ```python check",
                part.line,
                "the scaffold is what readers start from; the solution runs and is checked; "
                "a check asserts what a finished attempt achieves",
            )
    scaffold = context.code_part(raw, "python scaffold")
    solution = context.code_part(raw, "python solution")
    check = None
    if context.code_anchor(raw, "python check") is not None:
        check = context.code_part(raw, "python check")
    task, _ = context.prose_around(raw, context.code_anchor(raw, "python scaffold"))
    _, reasoning = context.prose_around(raw, context.code_anchor(raw, "python solution"))
    hint = context.sub_block(raw, "hint", required=False)
    if scaffold is not None and task is None:
        context.error(
            "{exercise} needs the task described before its scaffold",
            raw.line,
            "write what the reader should do above the ```python scaffold block",
        )
    if scaffold is None or solution is None or task is None or kind not in EXERCISE_KINDS:
        return None
    return Exercise(
        raw.title,
        context.anchor(raw.title),
        typing.cast(ExerciseKind, kind),
        task,
        Code(scaffold.source, scaffold.line),
        hint,
        solution,
        reasoning,
        check,
    )


def exercise_cells(cells: NotebookBuilder, exercise: Exercise) -> None:
    """The task, the scaffold as a code cell to fill in, then (not in the student edition,
    where the solution is gone) the reference solution under a rule and a heading."""
    cells.markdown(cells.md.exercise_task(exercise, in_notebook=True))
    cells.scaffold(exercise.scaffold)
    if exercise.check is not None:
        cells.attempt_check(exercise.check)
    if exercise.solution is not None:  # None in the student edition
        cells.markdown(cells.md.notebook_solution_heading())
        cells.run(exercise)
        cells.optional(exercise.reasoning)


def build_check(context: BlockContext, raw: RawBlock) -> Check | None:
    choices: list[Choice] = []
    explanation: list[Prose | None] = []
    for part in raw.parts:
        if part.prose is not None and not choices and part.prose.markdown.lstrip().startswith("-"):
            choices = _choices(part.prose, explanation)
        elif part.kind == "prose":
            explanation.append(part.prose)
    if len(choices) < 2 or sum(choice.correct for choice in choices) != 1:
        context.error(
            "{check} needs a list of at least two answers, exactly one marked [x]",
            raw.line,
            "write answers as '- [ ] wrong' and '- [x] right'",
        )
        return None
    merged = merge_prose(explanation)
    if merged is None:
        context.error(
            "{check} needs an explanation after its answers",
            raw.line,
            "explain after the list why the right answer is right",
        )
        return None
    return Check(raw.title, context.anchor("check your understanding"), choices, merged, raw.line)


def _choice(lines: list[str], item: SyntaxTreeNode) -> Choice | None:
    """One '- [x] answer' item; paragraphs after its first are the feedback a learner who
    picks it reads."""
    assert item.map is not None and item.children  # block-level nodes carry their lines
    first = item.children[0]
    end = first.map[1] if first.map else item.map[1]
    match = _CHOICE_RE.match("\n".join(lines[item.map[0] : end]).strip().lstrip("-*+").strip())
    if not match:
        return None
    feedback = textwrap.dedent("\n".join(lines[end : item.map[1]])).strip()
    return Choice(match.group(2).strip(), match.group(1) != " ", feedback)


def _choices(prose: Prose, rest: list[Prose | None]) -> list[Choice]:
    """Split a prose part into '- [x] answer' choices and whatever prose follows them."""
    choices: list[Choice] = []
    for node in parse_nodes(prose.markdown):
        if node.type == "bullet_list" and not choices:
            for item in node.children:
                choice = _choice(prose.markdown.splitlines(), item)
                if choice is None:
                    return []
                choices.append(choice)
        else:
            assert node.map is not None  # block-level nodes carry their lines
            lines = prose.markdown.splitlines()[node.map[0] : node.map[1]]
            rest.append(Prose("\n".join(lines), prose.line + node.map[0]))
    return choices


def build_pause(context: BlockContext, raw: RawBlock) -> Pause | None:
    answer = merge_prose([p.prose for p in raw.parts if p.kind == "prose"])
    if answer is None:
        context.error(
            "{pause} needs the answer to compare with in its body",
            raw.line,
            "write the reasoning to compare with between the ':::' lines",
        )
        return None
    return Pause(raw.title, context.anchor(raw.title), answer)


def build_note(context: BlockContext, raw: RawBlock) -> Note | None:
    body = merge_prose([p.prose for p in raw.parts if p.kind == "prose"])
    if body is None:
        context.error(
            f"{{{raw.kind}}} is empty", raw.line, "write its text between the ':::' lines"
        )
        return None
    # build_note is registered only for the kinds of _NOTE_ANCHORS, Note's literal kinds.
    return Note(raw.kind, context.anchor(_NOTE_ANCHORS[raw.kind]), body)  # type: ignore[arg-type]


# `toggle` is sphinx-togglebutton's class, which MyST authors use alike.
CLOSED_CLASSES = ("dropdown", "toggle")


def build_admonition(context: BlockContext, raw: RawBlock) -> Admonition | None:
    kind, closed = _admonition_classes(context, raw)
    parts: list[Prose | None] = []
    for part in raw.parts:
        if part.code is not None and "norun" in part.info.split():
            parts.append(Prose(f"```{part.info}\n{part.code.source}```", part.line))
        elif part.code is not None:
            context.error(
                f"this ```python block in {{{raw.kind}}} would be shown but never run",
                part.line,
                "to show code that must not run, write ```python norun; "
                "runnable code goes in a {step}, {experiment} or other block",
            )
        else:
            parts.append(part.prose)
    body = merge_prose(parts)
    if body is None:
        context.error(
            f"{{{raw.kind}}} is empty", raw.line, "write its text between the ':::' lines"
        )
        return None
    anchor = context.anchor(raw.title or raw.kind)
    return Admonition(kind, raw.title, anchor, body, closed, raw.kind != "admonition")


def _admonition_classes(context: BlockContext, raw: RawBlock) -> tuple[AdmonitionKind, bool]:
    """The kind an admonition looks like, and whether it is shown closed, from its kind
    and `:class:`: `dropdown` or `toggle`, and for `{admonition}` one of the kinds."""
    classes = raw.options.get("class", "").split()
    styles = ADMONITION_KINDS if raw.kind == "admonition" else ()
    for unknown in [css for css in classes if css not in (*CLOSED_CLASSES, *styles)]:
        context.error(
            f"unknown class '{unknown}' for {{{raw.kind}}}",
            raw.line,
            "the classes are 'dropdown' or 'toggle', which show the block closed"
            + (f", and a kind it looks like: {', '.join(styles)}" if styles else ""),
        )
    style = next((css for css in classes if css in styles), "note")
    kind = style if raw.kind == "admonition" else raw.kind
    return typing.cast(AdmonitionKind, kind), any(css in CLOSED_CLASSES for css in classes)


register(
    BlockKind(
        "step",
        Step,
        build_step,
        stages=("build-run",),
        options=("raises", "alt", "tags"),
        runs=Runs(id="step-{item.number}", label="step {item.number}", program=True),
        notebook=step_cells,
    )
)
register(
    BlockKind(
        "experiment",
        Experiment,
        build_experiment,
        stages=("experiment",),
        options=("predict", "choices", "expected", "raises", "alt", "tags"),
        required=("predict", "expected"),
        markdown_options=("predict", "choices", "expected"),
        runs=Runs(label="experiment '{item.title}'"),
        notebook=experiment_cells,
    )
)
register(
    BlockKind(
        "figure",
        Figure,
        build_figure,
        options=("alt", "predict", "choices", "caption", "tags"),
        required=("alt",),
        markdown_options=("predict", "choices", "caption"),
        sub_blocks=("read", "connect"),
        runs=Runs(label="figure '{item.title}'", figure=True),
        notebook=figure_cells,
    )
)
register(
    BlockKind(
        "exercise",
        Exercise,
        build_exercise,
        stages=("exercise-check",),
        options=("kind", "raises", "alt"),
        required=("kind",),
        sub_blocks=("hint",),
        runs=Runs(
            code="solution",
            label="solution of '{item.title}'",
            solution=True,
            with_solution=("reasoning",),
            check="check",
            starter="scaffold",
        ),
        notebook=exercise_cells,
    )
)
register(BlockKind("check", Check, build_check, stages=("exercise-check",)))
register(BlockKind("pause", Pause, build_pause))
for _name, _stage in (
    ("diagnose", "exercise-check"),
    ("carry-forward", "evidence"),
    ("evidence", "evidence"),
):
    register(
        BlockKind(
            _name,
            Note,
            build_note,
            stages=(_stage,),
            titled=False,
            html="blocks/note.html",
            markdown="blocks/note.md",
        )
    )
register(
    BlockKind(
        "image",
        Picture,
        build_picture,
        options=("alt",),
        required=("alt",),
        html="blocks/picture.html",
        markdown="blocks/picture.md",
    )
)
for _name in (*ADMONITION_KINDS, "admonition"):
    register(
        BlockKind(
            _name,
            Admonition,
            build_admonition,
            options=("class",),
            title_optional=_name != "admonition",  # MyST's {admonition} is its title
            html="blocks/admonition.html",
            markdown="blocks/admonition.md",
        )
    )
