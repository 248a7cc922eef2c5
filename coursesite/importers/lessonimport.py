"""A notebook's cells become the text of a lesson (importcommand.py writes and lists it).

Markdown cells before the first code cell are the Understand stage; every code cell is a
build step, titled from the nearest heading above it, with the Markdown between code cells
as the stage's prose; a cell whose stored run raised stays a step, declaring what it
raises. Headings move down so that none is level 1 (those are our stages). Magics become
the Python that keeps their meaning (magics.py). The stored outputs go into
`<slug>.expected.yaml` (see expectedoutputs.py). Stages a notebook cannot fill are left
empty; `build.py check` says which to fill.
"""

from __future__ import annotations

import ast
import re
from functools import partial

from coursesite.execution.expectedoutputs import (
    KEPT_DISPLAY,
    KEPT_HEAD,
    KEPT_TAIL,
    StoredOutput,
    capped,
    dump_expected,
)
from coursesite.importers.celltags import fold_tags
from coursesite.importers.clockreads import clock_patterns
from coursesite.importers.devicecount import DeviceNeed, device_note, with_device_setup
from coursesite.importers.directives import settle_admonitions
from coursesite.importers.formulas import settle_math
from coursesite.importers.frontends import frontend_notes, portable_code
from coursesite.importers.glue import Glued
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.lessontext import front_matter, lesson_text, title_summary
from coursesite.importers.magics import TIMING_VOLATILE, CellCode, cell_code
from coursesite.importers.mystdirectives import (
    directive_images,
    keeps_title,
    settle_directives,
)
from coursesite.importers.notebooks import Cell, where_in
from coursesite.importers.portableprose import portable_prose
from coursesite.importers.references import NotebookLabels, OtherSites, settle_references
from coursesite.importers.seeding import seeded
from coursesite.importers.stepalt import (
    alt_notes,
    drawing_functions,
    step_alt,
    stored_anything,
)
from coursesite.importers.titles import (
    heading_title,
    headings,
    notebook_title,
    step_title,
    summary_of,
    title_heading,
)
from coursesite.markup.markdown import slugify
from coursesite.markup.myst import TARGET_LINE

__all__ = ["ImportedLesson", "convert", "lesson_slug", "notebook_title"]

# What opens a heading's line inside a quote or a list item (`> `, `- `, `1. `, indent): a
# heading rewritten as one line stays in its quote or item.
_CONTAINER_MARKS = re.compile(r"(?:[ \t]*(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)))*[ \t]*")


def convert(
    cells: list[Cell],
    title: str,
    source: str,
    expected_name: str,
    sites: OtherSites | None = None,
) -> ImportedLesson:
    """The lesson for `cells`; `source` names the notebook in notes and outputs; `sites`
    are the other sites (lessons.yaml `references:`) its references may link to."""
    lesson = ImportedLesson()
    markdown = _without_title(cells, title, lesson)
    shift = _heading_shift(markdown)
    labels = NotebookLabels.of(
        [cell.source for cell in markdown if cell.kind == "markdown"], keeps_title
    )
    for cell in cells:
        if cell.kind == "code" and cell.figure_label:
            labels.add_figure(cell.figure_label, cell.alt)
    glued = Glued.of([cell.source for cell in cells if _runs_through(cell)])
    lesson.devices = DeviceNeed.of(cells)
    lesson.notes += device_note(lesson.devices)
    understand: list[str] = []
    build_run: list[str] = []
    prose: list[str] = []  # every Markdown cell's text, for the summary
    stored: dict[str, StoredOutput] = {}
    heading = prose_before = closing_line = ""
    number = 0
    # A notebook that opens with its imports, then introduces itself: the introduction is
    # still what Understand says (prelude_at: where it is in build_run, moved once it ends).
    prelude, prelude_at = False, len(build_run)
    for cell in markdown:
        lesson.refusals += [
            (
                f"{cell.where}: attachment {name} holds no readable image data",
                "paste the image into the notebook again, or save it as a file beside it",
            )
            for name in cell.unreadable
        ]
        lesson.notes += [f"{cell.where}: {dropped}" for dropped in cell.dropped]
        # A code cell tagged remove-cell still runs in the notebook's own build (its imports,
        # its setup): it stays a step, folded (celltags.fold_tags).
        if "remove-cell" in cell.tags and cell.kind == "markdown":
            lesson.notes.append(f"{cell.where}: tagged remove-cell, so it was left out")
            continue
        if cell.kind == "markdown":
            portable = portable_prose(cell, lesson)
            lesson.linked_images += [
                (path, where_in(cell, path)) for path in directive_images(portable)
            ]
            locate = partial(where_in, cell)
            portable = settle_directives(portable, cell.where, lesson.notes, glued, locate)
            portable = settle_references(
                portable, labels, cell.where, lesson.notes, sites, glued, locate
            )
            portable = settle_math(portable, cell.where, lesson.notes)
            portable = settle_admonitions(portable, cell.where, lesson.notes)
            text, found = _demoted(portable, shift)
            # A heading right above the code is the block's title, not a section of its own.
            last_line = text.rpartition("\n")[2]
            text, closing = _closing_heading(text)
            closing_line = last_line if closing else ""
            heading = closing or found or heading
            prose_before = f"{prose_before}\n\n{text}"
            prose.append(text)
            (build_run if number else understand).append(text)
            continue
        converted = None if "skip-execution" in cell.tags else _lesson_code(cell, lesson)
        removed = [tag for tag in ("remove-cell", "remove-input") if tag in cell.tags]
        if converted is not None and converted.shown_only and removed:
            lesson.notes.remove(converted.notes[-1])  # it is not shown after all
            lesson.notes.append(
                f"{cell.where}: tagged {removed[0]}, and holds nothing a lesson runs: it was "
                "left out"
            )
            continue
        if converted is None or converted.shown_only:
            # Shown, never run: a heading right above it heads it, and titles no later step.
            shown = converted.shown if converted else cell.source
            fence = _fenced(shown, "python norun")
            fence += _stored_text(cell, lesson.notes)
            fence = _figure_target(cell, labels, lesson) + fence
            (build_run if number else understand).append(f"{closing_line}\n\n{fence}".strip())
            heading = prose_before = closing_line = ""
            if converted is None:
                lesson.notes.append(
                    f"{cell.where}: tagged skip-execution, so it is shown as code and never run"
                )
            continue
        code = converted.code
        if not _has_statements(code):  # empty, or only what became comments: reported
            continue
        block_title = heading_title(heading) if heading else ""
        block_title = block_title or step_title(prose_before, cell.source)
        lead_in = heading if heading and not closing_line else ""  # a section, prose under it
        heading = prose_before = closing_line = ""  # the next block's title: the Markdown above it
        # A cell whose stored run failed, or that a MyST notebook tags as failing, stays in
        # its place: what it defined before failing is there for the cells after it.
        raises = cell.raises or ("Exception" if "raises-exception" in cell.tags else "")
        if raises in _RETIRED_ERRORS:
            raises = _declared_for_retired(cell, raises, lesson)
        if prelude:  # the next step ends the introduction
            _end_prelude(understand, build_run, prelude_at)
            prelude = False
        elif not number and _imports_only(code) and not "".join(understand).strip():
            prelude, prelude_at = True, len(build_run) + 1
        elif not number and lead_in:
            _lead_into_first_step(understand, build_run, lead_in)
        number += 1
        drawers = drawing_functions(lesson.code)
        tags = fold_tags(cell, lesson.notes)
        step = _step(number, block_title, code, cell, raises, tags, drawers)
        build_run.append(_figure_target(cell, labels, lesson) + step)
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
            stored[f"step-{number}"] = _stored(cell, expected_name, lesson)
        lesson.notes += alt_notes(cell, code, number, drawers)
    if prelude:
        _end_prelude(understand, build_run, prelude_at)
    if not number:
        lesson.notes.append(
            "no cell of the notebook runs: the page shows its code, runs none, and has no "
            "main.py; to make it a lesson that runs, write steps (docs/authoring.md)"
        )
    # The opening text's first telling sentence, else the first after it (all prose, in order).
    summary = summary_of(prose)
    if not summary:
        summary = title_summary(title)
        lesson.notes.append(
            "the notebook has no sentence of prose to summarise it: the summary repeats the "
            "title; write one line on what the lesson builds (summary:)"
        )
    front = front_matter(title, summary, understand, number, expected_name if stored else None)
    clocked = clock_patterns([(where, code) for _, where, code in lesson.steps])
    lesson.notes += [
        f"{where}: it prints what the clock measured, which differs on every run: its line "
        f"is volatile ({pattern})"
        for where, pattern in clocked
    ]
    volatile = (TIMING_VOLATILE if lesson.timed else []) + [pattern for _, pattern in clocked]
    if volatile:
        front["volatile"] = volatile
    lesson.text = lesson_text(front, understand, build_run)
    if stored:
        lesson.expected = dump_expected(source, stored)
    return lesson


def _runs_through(cell: Cell) -> bool:
    """Whether a code cell's every line runs in the lesson: what it glues is there after."""
    stops = cell.raises or {"skip-execution", "raises-exception"} & set(cell.tags)
    return cell.kind == "code" and not stops


def _without_title(cells: list[Cell], title: str, lesson: ImportedLesson) -> list[Cell]:
    """The cells without the heading the title comes from, which the report names when it
    is not a level-1 heading, or when there is none (the title is the file's name)."""
    found = title_heading(cells)
    if found is None or heading_title(found.text) != title:
        lesson.notes.append(
            f"the notebook has no heading before its prose to take a title from: the title, "
            f"'{title}', is made from the file's name; set a better one (title:)"
        )
        return cells
    cell = cells[found.cell]
    if found.level > 1:
        lesson.notes.append(
            f"{cell.where}: the title, '{title}', is the notebook's first heading, of level "
            f"{found.level} (it has no level-1 heading before its prose): check it (title:)"
        )
    # Blank in place of the heading: a line's place in the source stays where_in's to find.
    lines = cell.source.splitlines()
    lines[found.lines.start : found.lines.stop] = [""] * len(found.lines)
    untitled = Cell(
        cell.kind,
        "\n".join(lines),
        cell.where,
        tags=cell.tags,
        attachments=cell.attachments,
        unreadable=cell.unreadable,
    )
    return [untitled if number == found.cell else c for number, c in enumerate(cells)]


def _heading_shift(cells: list[Cell]) -> int:
    levels = [level for c in cells if c.kind == "markdown" for _, level, _ in headings(c.source)]
    return 2 - min(levels) if levels else 0


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


def _end_prelude(understand: list[str], build_run: list[str], start: int) -> None:
    """Move the introduction that followed the opening imports (build_run[start:]) to
    Understand, but its last part when there are several: that leads into the next step,
    and stays above it."""
    moved = build_run[start:-1] if len(build_run) - start > 1 else build_run[start:]
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


def _step(
    number: int,
    title: str,
    code: str,
    cell: Cell,
    raises: str,
    tags: list[str],
    drawers: frozenset[str],
) -> str:
    # A figure the code leaves open is captured, and needs its text alternative; so does
    # an image it displays.
    alt = step_alt(cell, code, drawers)
    options = f":alt: {alt}\n" if alt else ""
    options += f":raises: {raises}\n" if raises else ""
    options += f":tags: [{', '.join(tags)}]\n" if tags else ""
    return f":::{{step}} {number}. {title}\n{options}{_fenced(code)}\n:::"


def _stored_text(cell: Cell, notes: list[str]) -> str:
    """What a cell that is shown, never run, printed in the notebook's own run, as text
    under its code, labelled as the notebook's: nothing a notebook shows is lost. A shell's
    output (`!pip install`'s log) is no lesson's; images and HTML are left out, said so."""
    if cell.shell or not stored_anything(cell):
        return ""
    text = (cell.stdout + cell.display).strip("\n")
    if not text:
        notes.append(f"{cell.where}: its stored output is not shown (not run, and not text)")
        return ""
    notes.append(f"{cell.where}: its stored output is shown under it as the notebook's")
    return (
        f"\n\nThe notebook's stored output of this cell (not run here):\n\n{_fenced(text, 'text')}"
    )


def _fenced(code: str, info: str = "python") -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    return f"{fence}{info}\n{code.strip(chr(10))}\n{fence}"


def lesson_slug(title: str) -> str:
    return slugify(title)[:60].strip("-") or "lesson"
