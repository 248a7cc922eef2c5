"""One notebook cell after another, into the stages and steps of a lesson (lessonimport.py
starts the conversion and finishes the lesson's text from it).

A Markdown cell is prose: in Understand until the first step, in Build & Run after it; a
heading right above a code cell titles its step. A code cell becomes a step (or, shown
only, a `norun` block) in program order, declaring what its stored run raised, with its
stored output kept to compare; a notebook that opens with its imports keeps its
introduction in Understand.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from functools import partial

from coursesite.execution.expectedoutputs import (
    KEPT_DISPLAY,
    KEPT_HEAD,
    KEPT_TAIL,
    StoredOutput,
    capped,
)
from coursesite.importers.celltags import step_tags
from coursesite.importers.devicecount import with_device_setup
from coursesite.importers.directives import settle_admonitions
from coursesite.importers.formulas import close_math_blocks, settle_math
from coursesite.importers.frontends import frontend_notes, portable_code
from coursesite.importers.glue import Glued
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.magics import CellCode, cell_code, compiles
from coursesite.importers.mystdirectives import directive_images, settle_directives
from coursesite.importers.notebookcells import Cell, where_in, where_line
from coursesite.importers.portableprose import portable_prose
from coursesite.importers.python2 import PYTHON2_NOTE, as_python3
from coursesite.importers.references import NotebookLabels, OtherSites, settle_references
from coursesite.importers.seeding import seeded
from coursesite.importers.stepalt import alt_notes, drawing_functions, step_alt, stored_anything
from coursesite.importers.titles import heading_title, headings, licence_notice, step_title
from coursesite.markup.myst import LIST_MARKER, TARGET_LINE


@dataclass
class CellConversion:
    """The lesson's stages as its cells are added in order; `lesson` collects the steps'
    code, the notes for the report and what the import must settle."""

    lesson: ImportedLesson
    labels: NotebookLabels
    glued: Glued
    sites: OtherSites | None
    shift: int  # heading levels down, so that none is level 1 (those are our stages)
    expected_name: str
    understand: list[str] = field(default_factory=list)
    build_run: list[str] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)  # every Markdown cell's text, for the summary
    stored: dict[str, StoredOutput] = field(default_factory=dict)
    number: int = 0  # of the last step
    # The next block's title: the Markdown above it (the heading, the prose since it).
    heading: str = ""
    prose_before: str = ""
    closing_line: str = ""
    # A notebook that opens with its imports, then introduces itself: the introduction is
    # still what Understand says (prelude_at: where it is in build_run, moved once it ends).
    prelude: bool = False
    prelude_at: int = 0
    steps: dict[int, StepDraft] = field(default_factory=dict)  # by number, as written
    # The cell the notebook's title heading stood in; code cells above it are its setup
    # (nx-guides' PageRank opens with a drawing helper), not the first part of the story.
    title_cell: str = ""
    titled: bool = False  # the title's cell has been added

    def add(self, cell: Cell) -> None:
        self.lesson.refusals += [
            (
                f"{cell.where}: attachment {name} holds no readable image data",
                "paste the image into the notebook again, or save it as a file beside it",
            )
            for name in cell.unreadable
        ]
        self.lesson.notes += [f"{cell.where}: {dropped}" for dropped in cell.dropped]
        self.titled = self.titled or cell.where == self.title_cell
        if cell.kind == "markdown" and not cell.source.strip():
            return
        if cell.kind == "markdown":
            self._add_prose(cell)
        else:
            self._add_code(cell)

    def finish(self) -> None:
        if self.prelude:
            _end_prelude(self.understand, self.build_run, self.prelude_at)
            self.prelude = False

    @property
    def _section(self) -> list[str]:
        """Where text goes now: Understand until the first step, Build & Run after."""
        return self.build_run if self.number else self.understand

    def _add_prose(self, cell: Cell) -> None:
        if "remove-cell" in cell.tags:
            self.lesson.notes.append(f"{cell.where}: tagged remove-cell, so it was left out")
            return
        lesson, notes = self.lesson, self.lesson.notes
        portable = portable_prose(cell, lesson)
        lesson.linked_images += [
            (path, where_in(cell, path)) for path in directive_images(portable)
        ]
        locate = partial(where_in, cell)
        portable = settle_directives(
            portable, cell.where, notes, self.glued, partial(where_line, cell)
        )
        portable = settle_references(
            portable, self.labels, cell.where, notes, self.sites, self.glued, locate
        )
        portable = close_math_blocks(portable, locate, notes)
        portable = settle_math(portable, cell.where, notes)
        portable = settle_admonitions(portable, cell.where, notes)
        text, found = _demoted(portable, self.shift)
        if licence_notice(cell):  # kept where it is; no summary, title or heading of steps
            self._section.append(text)
            return
        if self.closing_line:  # the last cell's closing heading heads this prose, no code
            self._section.append(self.closing_line)
            self.prose_before = f"{self.prose_before}\n\n{self.closing_line}"
        # A heading right above the code is the block's title, not a section of its own.
        last_line = text.rpartition("\n")[2]
        text, closing = _closing_heading(text)
        self.closing_line = last_line if closing else ""
        self.heading = closing or found or self.heading
        self.prose_before = f"{self.prose_before}\n\n{text}"
        self.prose.append(text)
        self._section.append(text)

    def _add_code(self, cell: Cell) -> None:
        # A code cell tagged remove-cell still runs in the notebook's own build (its imports,
        # its setup): it stays a step, folded (celltags.step_tags).
        converted = None if "skip-execution" in cell.tags else _lesson_code(cell, self.lesson)
        removed = [tag for tag in ("remove-cell", "remove-input") if tag in cell.tags]
        if converted is not None and converted.shown_only and removed:
            self.lesson.notes.remove(converted.notes[-1])  # it is not shown after all
            self.lesson.notes.append(
                f"{cell.where}: tagged {removed[0]}, and holds nothing a lesson runs: it was "
                "left out"
            )
        elif converted is None or converted.shown_only:
            self._add_shown(cell, converted)
        elif cell.raises in _UNCOMPILABLE and not compiles(converted.code):
            # Code the notebook ran to show that Python refuses it (PDSH: a slice in a tuple).
            self._add_shown(cell, None)
        elif _has_statements(converted.code):  # else empty, or only comments: reported
            self._add_step(cell, converted.code)

    def _add_shown(self, cell: Cell, converted: CellCode | None) -> None:
        """Shown, never run: a heading right above it heads it, and titles no later step."""
        fence = _fenced(converted.shown if converted else cell.source, "python norun")
        fence += _stored_text(cell, self.lesson.notes)
        fence = _figure_target(cell, self.labels, self.lesson) + fence
        self._section.append(f"{self.closing_line}\n\n{fence}".strip())
        self.heading = self.prose_before = self.closing_line = ""
        if converted is None and cell.raises in _UNCOMPILABLE:
            self.lesson.notes.append(
                f"{cell.where}: its stored run raised {cell.raises}, as it shows Python "
                "refusing the code: it is shown as code with that error, never run (a step "
                "must be valid Python)"
            )
        elif converted is None:
            self.lesson.notes.append(
                f"{cell.where}: tagged skip-execution, so it is shown as code and never run"
            )

    def _add_step(self, cell: Cell, code: str) -> None:
        lesson = self.lesson
        title = heading_title(self.heading) if self.heading else ""
        title = title or step_title(self.prose_before, cell.source)
        lead_in = self.heading if self.heading and not self.closing_line else ""
        self.heading = self.prose_before = self.closing_line = ""
        # A cell whose stored run failed, or that a MyST notebook tags as failing, stays in
        # its place: what it defined before failing is there for the cells after it.
        raises = cell.raises or ("Exception" if "raises-exception" in cell.tags else "")
        if raises in _RETIRED_ERRORS:
            raises = _declared_for_retired(cell, raises, lesson)
        self._place_introduction(code, lead_in)
        self.number += 1
        number = self.number
        drawers = drawing_functions(lesson.code)
        target = _figure_target(cell, self.labels, lesson)
        tags = step_tags(cell, lesson.notes)
        draft = StepDraft(target, number, title, code, cell, raises, tuple(tags), drawers)
        self.steps[number] = draft
        self.build_run.append(draft.text())
        lesson.steps.append((number, cell.where, code))
        if raises:
            lesson.notes.append(
                f"{cell.where}: it raises {raises}; step {number} declares it (:raises:), "
                "and main.py goes on past it"
                + ("; name the exception it raises in :raises:" if not cell.raises else "")
            )
        if stored_anything(cell) and cell.shell:
            lesson.notes.append(
                f"{cell.where}: its stored output is partly a shell command's, which the step "
                "no longer runs: it is not compared"
            )
        elif stored_anything(cell):
            self.stored[f"step-{number}"] = _stored(cell, self.expected_name, lesson)
        lesson.notes += alt_notes(cell, code, drawers)

    def add_step_tag(self, number: int, tag: str) -> None:
        """Tags step `number` after the fact: what only all the steps together tell (a
        clock-made value printed steps later: clockreads.py) is known once they are written."""
        draft = self.steps[number]
        if tag in draft.tags:
            return
        tagged = replace(draft, tags=(*draft.tags, tag))
        self.build_run[self.build_run.index(draft.text())] = tagged.text()
        self.steps[number] = tagged

    def _place_introduction(self, code: str, lead_in: str) -> None:
        """Before a step: the introduction that followed opening imports (or the setup
        above the title) ends here, or the section a first step's heading opens leads into
        it from Build & Run."""
        setup = bool(self.title_cell) and not self.titled
        if self.prelude and setup:  # more setup: the introduction starts after it
            self.prelude_at = len(self.build_run) + 1
        elif self.prelude:  # all of it, when what comes is imports, which nothing leads into
            _end_prelude(self.understand, self.build_run, self.prelude_at, _imports_only(code))
            self.prelude = False
        elif (
            not self.number
            and (setup or _imports_only(code))
            and not "".join(self.understand).strip()
        ):
            self.prelude, self.prelude_at = True, len(self.build_run) + 1
        elif not self.number and lead_in:
            _lead_into_first_step(self.understand, self.build_run, lead_in)


# What opens a heading's line inside a quote or a list item (`> `, `- `, `1. `, indent): a
# heading rewritten as one line stays in its quote or item.
_CONTAINER_MARKS = re.compile(r"(?:[ \t]*(?:>|" + LIST_MARKER + r"(?=[ \t]|$)))*[ \t]*")


def _demoted(source: str, shift: int) -> tuple[str, str]:
    """`source` with every heading `shift` levels down (at least 2, at most 6), written
    ATX-style, and the text of its last heading."""
    lines = source.splitlines()
    last = ""
    for at, level, text in reversed(headings(source)):
        container = _CONTAINER_MARKS.match(lines[at.start])
        replacement = (
            (container.group() if container else "")
            + "#" * min(6, max(2, level + shift))
            + " "
            + text
        )
        lines[at.start : at.stop] = [replacement]
        last = last or text
    return "\n".join(lines).rstrip(), last


def _closing_heading(text: str) -> tuple[str, str]:
    """`text` without its last line when that line is a heading, and the heading's text."""
    body, _, last = text.rpartition("\n")
    match = re.fullmatch(r"#{2,6} (.+)", last)
    return (body.rstrip(), match.group(1)) if match else (text, "")


def _end_prelude(
    understand: list[str], build_run: list[str], start: int, whole: bool = False
) -> None:
    """Move the introduction that followed the opening imports (build_run[start:]) to
    Understand, but its last part when there are several (unless `whole`): that leads
    into the next step, and stays above it."""
    several = len(build_run) - start > 1 and not whole
    moved = build_run[start:-1] if several else build_run[start:]
    understand.extend(moved)
    del build_run[start : start + len(moved)]


def _lead_into_first_step(understand: list[str], build_run: list[str], heading: str) -> None:
    """Move the introduction's last section, the one whose heading titles the first step
    ("## Arithmetic", then "To begin with, they support arithmetic:"), above that step in
    Build & Run, when the introduction says something before it: the section leads into
    the code, and Understand keeps what the lesson is about."""
    lines = "\n\n".join(part for part in understand if part.strip()).split("\n")
    titled = re.compile(rf"#{{2,6}} {re.escape(heading)}")
    at = next((i for i in reversed(range(len(lines))) if titled.fullmatch(lines[i])), None)
    if at is None:
        return
    while at and TARGET_LINE.fullmatch(lines[at - 1] + "\n"):  # its labels go with it
        at -= 1
    before = "\n".join(lines[:at]).strip()
    if not re.search(r"\w", TARGET_LINE.sub("", before)):
        return  # the section is all the introduction says: it stays in Understand
    understand[:] = [before]
    build_run.insert(0, "\n".join(lines[at:]).strip())


def _imports_only(code: str) -> bool:
    try:
        return all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.parse(code).body)
    except SyntaxError:
        return False


def _has_statements(code: str) -> bool:
    try:
        return bool(ast.parse(code).body)
    except SyntaxError:  # the build names the line
        return True


def _stored(cell: Cell, expected_name: str, lesson: ImportedLesson) -> StoredOutput:
    """What the cell's stored run showed, as the step shows it: a last display(value),
    which the step ends with as its bare value, is the step's value, not printed text.
    An output too long to keep whole is capped, and the report says so; so is a rich
    display too large to keep, which is left out (the page could not show it)."""
    shown = cell.last_display.rstrip("\n") + "\n"
    if cell.shows_last and cell.last_display and cell.stdout.endswith(shown):
        stdout, display = cell.stdout[: -len(shown)], cell.last_display.rstrip("\n")
    elif cell.shows_last and cell.last_image:  # display(image): its text is the value's
        stdout, display = cell.stdout, cell.last_image.rstrip("\n")
    else:
        stdout, display = cell.stdout, cell.display
    lesson.printed[cell.where] = max(len(stdout), len(display))
    for text in (stdout, display):
        if capped(text) != text:
            lesson.notes.append(
                f"{cell.where}: its stored output is {len(text):,} characters; {expected_name} "
                f"keeps its first {KEPT_HEAD:,} and last {KEPT_TAIL:,} or so, and the build "
                "compares those parts of the fresh output with them"
            )
    displays = [bundle for bundle in cell.rich if sum(map(len, bundle.values())) <= KEPT_DISPLAY]
    if len(displays) < len(cell.rich):
        lesson.notes.append(
            f"{cell.where}: {len(cell.rich) - len(displays)} of its stored displays are over "
            f"{KEPT_DISPLAY:,} characters: {expected_name} leaves them out"
        )
    return StoredOutput(capped(stdout), capped(display), cell.where, capped(cell.stderr), displays)


def _lesson_code(cell: Cell, lesson: ImportedLesson) -> CellCode:
    earlier = "\n".join(lesson.code)
    converted = cell_code(cell.source, cell.where, earlier)
    if lesson.python2 and not converted.shown_only:
        written = as_python3(converted.code)
        if written != converted.code:
            converted.code = written
            lesson.notes.append(f"{cell.where}: {PYTHON2_NOTE}")
    if not converted.shown_only:
        converted.code, seeds = seeded(converted.code, earlier, cell.where)
        converted.code, replaced = portable_code(converted.code)
        seeds += frontend_notes(cell.where, replaced)
        if not lesson.code:  # the first step: before anything imports jax
            converted.code = with_device_setup(converted.code, lesson.devices)
        lesson.notes += seeds
    cell.shows_last, cell.shell = converted.shows_last, converted.shell
    lesson.installs += converted.installs
    lesson.notes += converted.notes
    lesson.timed = lesson.timed or converted.timed
    if not converted.shown_only:
        lesson.code.append(converted.code)
    return converted


# Exception classes a notebook's stored run names that the installed versions raise under
# other names: each declared by the builtin class they all derive from, and why.
_RETIRED_ERRORS = {
    "XlaRuntimeError": (
        "RuntimeError",
        "jaxlib's name until JAX named it JaxRuntimeError; code built on JAX (Equinox's "
        "error_if, Lineax, Optimistix) now raises its own RuntimeError for the same failure",
    ),
}


def _declared_for_retired(cell: Cell, stored: str, lesson: ImportedLesson) -> str:
    declared, why = _RETIRED_ERRORS[stored]
    lesson.notes.append(
        f"{cell.where}: its stored run raised {stored} ({why}): the step declares "
        f"{declared}, which each of them is"
    )
    return declared


def _figure_target(cell: Cell, labels: NotebookLabels, lesson: ImportedLesson) -> str:
    """The target line of the figure the cell draws, named in its MyST-NB options: what
    {numref} and {ref} to that name reach (references.py). A name an earlier cell gave
    its figure too (a book only warns) stays that one's: the build refuses a duplicate."""
    label = cell.figure_label
    if not label:
        return ""
    if label in lesson.figure_labels:
        lesson.notes.append(
            f"{cell.where}: its figure's name {label} is an earlier cell's too: references "
            "to it reach that one; name this figure otherwise in the notebook if they should not"
        )
        return ""
    lesson.figure_labels.add(label)
    return f"({labels.anchors[label]})=\n"


@dataclass(frozen=True)
class StepDraft:
    """A step as the lesson's Markdown will say it (`target`: the figure label line above)."""

    target: str
    number: int
    title: str
    code: str
    cell: Cell
    raises: str
    tags: tuple[str, ...]
    drawers: frozenset[str]

    def text(self) -> str:
        # A figure the code leaves open is captured, and needs its text alternative; so
        # does an image it displays.
        alt = step_alt(self.cell, self.code, self.drawers)
        options = f":alt: {alt}\n" if alt else ""
        options += f":raises: {self.raises}\n" if self.raises else ""
        options += f":tags: [{', '.join(self.tags)}]\n" if self.tags else ""
        heading = f":::{{step}} {self.number}. {self.title}\n"
        return f"{self.target}{heading}{options}{_fenced(self.code)}\n:::"


def _stored_text(cell: Cell, notes: list[str]) -> str:
    """What a cell that is shown, never run, printed in the notebook's own run, as text
    under its code, labelled as the notebook's: nothing a notebook shows is lost. A shell's
    output (`!pip install`'s log) is no lesson's; images and HTML are left out, said so."""
    if cell.shell or not (stored_anything(cell) or cell.error):
        return ""
    text = "\n".join(filter(None, [cell.stdout + cell.display, cell.error])).strip("\n")
    if not text:
        notes.append(f"{cell.where}: its stored output is not shown (not run, and not text)")
        return ""
    notes.append(f"{cell.where}: its stored output is shown under it as the notebook's")
    return (
        f"\n\nThe notebook's stored output of this cell (not run here):\n\n{_fenced(text, 'text')}"
    )


_UNCOMPILABLE = frozenset({"SyntaxError", "IndentationError", "TabError"})


def _fenced(code: str, info: str = "python") -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    return f"{fence}{info}\n{code.strip(chr(10))}\n{fence}"
