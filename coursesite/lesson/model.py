"""The typed model of a parsed lesson: what the parser produces and later stages read.

Prose stays Markdown here (with the file line it starts on); turning it into HTML is the
render stage's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from coursesite.config.manifest import LessonRef, Positive
from coursesite.config.yamlmodel import StrictModel
from coursesite.errors import BuildError
from coursesite.lesson.displaydefinition import DISPLAY_DEFINITION, needs_display
from coursesite.lesson.raisingblocks import guarded, names_bound

Hardware = Literal["cpu", "gpu", "tpu"]
ExerciseKind = Literal["make-it-yours", "transfer", "challenge"]

STAGES = {
    "understand": "Understand",
    "build-run": "Build & Run",
    "experiment": "Experiment",
    "exercise-check": "Exercise & Check",
    "evidence": "Evidence",
}


class Reference(StrictModel, frozen=True, kw_only=True):
    title: str
    url: str


class FrontMatter(StrictModel, frozen=True, kw_only=True):
    title: str
    summary: str
    minutes: int
    hardware: Hardware
    outcomes: list[str]
    expected_result: str
    revision: str
    prerequisite: str | None = None
    references: list[Reference] = []
    files: list[str] = []
    """Data files (relative to the lesson file) copied beside the code when it runs."""
    writes: list[str] = []
    """Images the lesson's code writes (relative to the lesson file) that its prose shows:
    the build publishes them from the run, not from beside the lesson."""
    volatile: list[str] = []
    """Regular expressions for output lines that differ from run to run (timings)."""
    timeout_seconds: Positive | None = None
    """This lesson's own limit on its run, over the course's settings.timeout_seconds."""
    expected_outputs: str | None = None
    """A file of outputs the lesson should reproduce (`build.py import` writes it)."""

    def declared_files(self) -> list[str]:
        """Every file the front matter names, relative to the lesson file."""
        return self.files + ([self.expected_outputs] if self.expected_outputs else [])


# nbval's tag for a block whose output differs on every run (a table of timings): the
# build's comparisons of one run with another leave that block's output out.
OUTPUT_VARIES = "nbval-ignore-output"


@dataclass(frozen=True)
class Prose:
    markdown: str
    line: int


@dataclass(frozen=True)
class Code:
    """A Python block: `line` is the file line of its first code line."""

    source: str
    line: int
    raises: str | None = None  # the exception it is declared to raise
    alt: str = ""  # the text alternative of the figures it draws with matplotlib
    # What its page folds (hide-input, hide-output), and nbval-ignore-output: its output
    # differs on every run (registry.BLOCK_TAGS).
    tags: tuple[str, ...] = ()
    # The block's :alt: is a `TODO:` placeholder the import wrote: check lists it, and
    # readers get `alt`, a label made of the block's title, instead.
    alt_todo: bool = False


@dataclass(frozen=True)
class Section:
    title: str
    anchor: str
    line: int


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    anchor: str
    intro: Prose | None
    code: Code
    explanation: Prose | None
    line: int  # the file line of its opening ':::{step}'


@dataclass(frozen=True)
class Experiment:
    title: str
    anchor: str
    predict: str
    expected: str
    intro: Prose | None
    code: Code
    takeaway: Prose
    choices: tuple[str, ...] = ()  # answers the reader may pick as a prediction


@dataclass(frozen=True)
class Figure:
    title: str
    anchor: str
    alt: str
    caption: str
    predict: str | None
    intro: Prose | None
    code: Code
    read: Prose
    connect: Prose
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exercise:
    title: str
    anchor: str
    kind: ExerciseKind
    task: Prose
    scaffold: Code
    hint: Prose | None
    solution: Code | None  # None in the student edition (lesson/edition.py)
    reasoning: Prose | None
    check: Code | None = None  # assertions a learner's attempt must pass (```python check)


@dataclass(frozen=True)
class Choice:
    markdown: str
    correct: bool
    feedback: str = ""  # Markdown: why this answer is right or not, for whoever picks it


@dataclass(frozen=True)
class Check:
    question: str
    anchor: str
    choices: list[Choice]
    explanation: Prose
    line: int = 0  # of its opening line


@dataclass(frozen=True)
class Pause:
    question: str
    anchor: str
    answer: Prose


@dataclass(frozen=True)
class Note:
    """Diagnose, carry-forward and evidence: prose with a fixed role on the page."""

    kind: Literal["diagnose", "carry-forward", "evidence"]
    anchor: str
    body: Prose


AdmonitionKind = Literal["note", "tip", "warning", "important", "caution", "seealso"]


@dataclass(frozen=True)
class Admonition:
    """A MyST admonition (`:::{tip} Optional title`): prose set apart, labelled by kind.
    MyST's generic `:::{admonition} Title` shows its title alone, looking like a note or
    like the kind its `:class:` names."""

    kind: AdmonitionKind
    title: str  # lesson Markdown; "" shows the kind's label alone
    anchor: str
    body: Prose
    collapsible: bool  # `:class: dropdown` (or `toggle`): shown closed, opened by the reader
    labelled: bool = True  # the page names its kind before the title; not {admonition}


@dataclass(frozen=True)
class Picture:
    """A MyST `{image}`, or a `{figure}` whose title is an image path: a file of the
    lesson shown with its alt text and, for a figure, a caption."""

    src: str  # as written, percent-encoded like Markdown image sources
    alt: str
    anchor: str
    caption: Prose | None
    line: int


Item = (
    Prose
    | Section
    | Step
    | Experiment
    | Figure
    | Exercise
    | Check
    | Pause
    | Note
    | Admonition
    | Picture
)


@dataclass(frozen=True)
class Stage:
    key: str
    title: str
    line: int
    items: list[Item] = field(default_factory=list)


@dataclass(frozen=True)
class Target:
    """A MyST `(label)=` target: `{ref}` links to it from any lesson of the course."""

    label: str
    title: str  # the heading or block title right after it; "" if none
    line: int


@dataclass(frozen=True)
class LabelRef:
    """A `{ref}` role, checked once every lesson is parsed."""

    label: str
    line: int
    has_text: bool  # `{ref}`text <label>``: it needs no title from its target


@dataclass(frozen=True)
class LessonImage:
    """An image file of the lesson, copied into the site beside its page."""

    src: str  # as the parser reads it from the Markdown (percent-encoded)
    path: str  # the file, relative to the folder of the lesson file
    line: int
    written: bool = False  # the lesson's code writes it (front matter `writes:`)


@dataclass(frozen=True)
class LessonLink:
    """A `lesson:slug#anchor` link found in prose, checked once every lesson is parsed."""

    slug: str
    anchor: str | None
    line: int


@dataclass(frozen=True)
class LiveValue:
    """`{value}`expression`` in prose: evaluated in the lesson's namespace after it ran."""

    expression: str
    line: int


@dataclass(frozen=True)
class RunnableBlock:
    """One unit of execution: the executor runs these in order in one namespace."""

    id: str
    label: str
    code: Code
    is_figure: bool
    solution: bool = False  # left out of the student edition
    program: bool = False  # a step of main.py


@dataclass(frozen=True)
class Attempt:
    """A task whose answer a learner can check: the starter code they edit (the zip's
    `file`), and the check it must pass. The build proves the check on every run: it passes
    after the block `solution_id` (the reference solution) and fails after the starter."""

    solution_id: str
    title: str  # lesson Markdown
    label: str  # how build messages name the check
    file: str  # the learner's copy of the starter in the zip: "exercises/1-<anchor>.py"
    starter: Code
    check: Code

    @property
    def check_id(self) -> str:
        """How the run and its messages name the check (its key in the execution key)."""
        return f"{self.solution_id}/check"

    @property
    def check_file(self) -> str:
        """The check's file in the zip, where the lesson's check.py looks for it."""
        return "checks/" + self.file.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Lesson:
    ref: LessonRef
    path: Path
    text: str
    front: FrontMatter
    stages: list[Stage]
    anchors: frozenset[str]
    links: list[LessonLink]
    runs: list[RunnableBlock]
    """What runs, in execution order; the parse stage derives it from the block registry."""
    values: list[LiveValue] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    label_refs: list[LabelRef] = field(default_factory=list)
    images: list[LessonImage] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    """The checkable tasks, in page order; they stay in the student edition."""
    edition: str = "full"  # "student": its solutions are taken out (lesson/edition.py)
    prose_problems: list[BuildError] = field(default_factory=list)
    """Mistakes of the prose that a build reports after running the code (parse_lesson's
    defer_prose); empty for any other parse."""

    def items(self, kind: type) -> list:
        return [item for stage in self.stages for item in stage.items if isinstance(item, kind)]

    @property
    def steps(self) -> list[Step]:
        return self.items(Step)

    def program_ids(self) -> list[str]:
        """The ids of the blocks that make up main.py (its steps), in order: the record's
        output of these is what `python main.py` prints."""
        return [block.id for block in self.runs if block.program]

    def output_varies(self) -> frozenset[str]:
        """The ids of the blocks tagged nbval-ignore-output, whose output differs on every
        run: no comparison of two runs looks at it."""
        return frozenset(block.id for block in self.runs if OUTPUT_VARIES in block.code.tags)

    def main_py(self) -> str:
        """The lesson's program: every build step, in order, two blank lines apart (PEP 8's
        spacing between top-level definitions, which steps often end or begin with). Steps
        that call notebook's builtin display() get its definition first."""
        program = [block for block in self.runs if block.program]
        bound = names_bound([block.code.source for block in program])
        futures, steps = _hoisted_futures([_as_program(block, bound) for block in program])
        steps = _with_display(steps)
        return "".join(f"{line}\n" for line in futures) + "\n\n\n".join(steps) + "\n"

    def full_script(self, include_solutions: bool = True) -> str:
        """Every runnable block in execution order: the whole recorded run as one script.

        A block declared to raise is wrapped so that the script prints the exception and
        goes on, as the build does.
        """
        parts = []
        bound = names_bound([block.code.source for block in self.runs])
        for block in self.runs:
            if block.solution and not include_solutions:
                continue
            source = block.code.source.rstrip()
            if block.code.raises:
                handler = f'print(f"{block.code.raises}: {{error}}")'
                source = guarded(source, block.code.raises, bound, handler, named=True)
            parts.append(f"# --- {block.label} ---\n{source}")
        futures, parts = _hoisted_futures(parts)
        parts = _with_display(parts)
        return "".join(f"{line}\n" for line in futures) + "\n\n".join(parts) + "\n"

    def attempt_files(self) -> dict[str, str]:
        """The zip's file of each checkable task, by the id of its solution block."""
        return {attempt.solution_id: attempt.file for attempt in self.attempts}

    def runnable_blocks(self) -> list[RunnableBlock]:
        """Steps first (exactly main.py), then figures, experiments and solutions in order."""
        return list(self.runs)


@dataclass(frozen=True)
class LessonOutline:
    """What the stages that look across the whole course need of a lesson: its front
    matter, link targets and images, and the parts of its execution key that come from its
    code. Kept apart from the Lesson (parsecache.ParseCache), so that a build of 1,000 lessons
    loads in full only the lessons it runs or renders."""

    front: FrontMatter
    text_digest: str  # of the lesson file's text: pages are keyed on it
    anchors: frozenset[str]
    links: list[LessonLink]
    targets: list[Target]
    label_refs: list[LabelRef]
    images: list[LessonImage]
    code: dict[str, str]  # executionkey.code_parts
    modules: frozenset[str]  # dependencies.imported_modules


def _as_program(block: RunnableBlock, bound: frozenset[str]) -> str:
    """A step's code as main.py holds it. A step declared to raise (a notebook cell that
    shows an error) is wrapped so that main.py goes on past it, as the build does; what
    it defined before raising stays defined for the steps after it."""
    source = block.code.source.rstrip()
    if not block.code.raises:
        return source
    handler = f"pass  # {block.label} raises {block.code.raises} on purpose: the lesson shows it"
    return guarded(source, block.code.raises, bound, handler, named=False)


def _with_display(parts: list[str]) -> list[str]:
    """`parts` (the blocks of one script), after the definition of display() when they
    call it without binding it (displaydefinition.py). Python places tracebacks by the
    line's text, and locations are compared masked (sourcelocations.py), so the lines it
    adds at the top move nothing a check relies on."""
    return ["\n".join(DISPLAY_DEFINITION), *parts] if needs_display(parts) else parts


_FUTURE = re.compile(r"from __future__ import [\w ,()]+")


def _hoisted_futures(parts: list[str]) -> tuple[list[str], list[str]]:
    """The `from __future__` imports of `parts` (blocks of one script), and the parts
    without them: Python takes them only at a script's top, a kernel in any cell."""
    futures = [line for part in parts for line in part.splitlines() if _FUTURE.fullmatch(line)]
    if not futures:
        return [], parts
    kept = [
        "\n".join(line for line in part.splitlines() if not _FUTURE.fullmatch(line)).strip("\n")
        for part in parts
    ]
    return list(dict.fromkeys(futures)), [part for part in kept if part]
