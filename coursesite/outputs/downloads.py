"""What a reader takes home from a lesson page: scripts, notebook, data, record, texts, zip.

Each download is built from the parsed lesson and its execution record, so it shows exactly
what the build ran and recorded. Markdown downloads come from templates; the notebook is
nbformat 4 JSON; the zip has fixed timestamps so that a rebuild is byte-identical.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment

from coursesite.blocks.registry import view_of
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord, record_to_json
from coursesite.lesson.edition import STUDENT, student_lesson, student_record
from coursesite.lesson.model import (
    OUTPUT_VARIES,
    STAGES,
    Check,
    Code,
    Exercise,
    Experiment,
    Figure,
    Lesson,
    Note,
    Prose,
)
from coursesite.outputs.displays import notebook_bundle, notebook_stdout
from coursesite.outputs.pagefigures import FigureView

SVG = "image/svg+xml"
LEARNER_CHECK = Path(__file__).with_name("learnercheck.py")  # the zip's check.py
STUDENT_NOTEBOOK = "lesson-student.ipynb"  # the notebook without the reference solutions


@dataclass(frozen=True)
class Download:
    href: str  # relative to the lesson page; also the name shown
    note: str
    # Its short name in the row of essentials at the top of the lesson; "" when it is
    # listed only under "All downloads".
    essential: str = ""


@dataclass(frozen=True)
class CellFigure:
    """A figure a code cell shows after its other outputs: its SVG and the text
    alternative that its block gives (the `text/plain` of the output)."""

    svg: str
    alt: str


@dataclass
class NotebookBuilder:
    """Cells in reading order; a code cell that would run before the steps defined what it
    uses (a figure in Understand) is moved to just after the last step, which keeps the
    notebook's top-to-bottom order equal to the build's execution order.

    Each item's block kind lays out its cells (`notebook` in its registration) or is one
    Markdown cell made by its Markdown template (`item_markdown`). Markdown text comes from
    the macros in templates/markdown.md (`md`).
    """

    lesson: Lesson
    record: ExecutionRecord
    figures: dict[str, list[CellFigure]]  # block id -> its figures, in the order drawn
    md: Any
    item_markdown: Callable[[object], str]
    cells: list = field(default_factory=list)
    deferred: list | None = field(default_factory=list)

    def build(self) -> dict:
        self.markdown(self.md.title(self.lesson))
        last_program_block = next((b.id for b in reversed(self.lesson.runs) if b.program), None)
        if last_program_block is None:  # no steps: nothing runs before a cell's code
            self.deferred = None
        for position, stage in enumerate(self.lesson.stages, start=1):
            self.markdown(self.md.stage(position, len(STAGES), stage.title))
            for item in stage.items:
                self.add(item)
                runs = view_of(item).runs
                if runs and runs.program and runs.block(item).id == last_program_block:
                    self.cells.extend(self.deferred or [])
                    self.deferred = None
        for number, cell in enumerate(self.cells):
            cell["id"] = f"cell-{number}"  # stable ids: a rebuild gives the same bytes
        # Plain nbformat 4.5 JSON. The build does not import nbformat (0.1 s, and its
        # per-cell validation cost more than the rest of the page); the tests validate
        # these notebooks with nbformat.validate and run them in a real kernel.
        return {
            "nbformat": 4,
            "nbformat_minor": 5,
            "cells": self.cells,
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python", "version": self.record.python},
            },
        }

    def markdown(self, text: str) -> None:
        if str(text).strip():
            self.cells.append(
                {"cell_type": "markdown", "metadata": {}, "source": str(text).strip()}
            )

    def code(self, block_id: str, code: Code, is_step: bool = False) -> None:
        cell = {
            "cell_type": "code",
            "execution_count": None,
            # nbval's tag too: nbval and this tool's import read it as this build does.
            "metadata": {"tags": tags} if (tags := _cell_tags(code)) else {},
            "outputs": self.outputs(block_id),
            "source": code.source.rstrip(),
        }
        if self.deferred is not None and not is_step:
            self.deferred.append(cell)
        else:
            self.cells.append(cell)

    def scaffold(self, code: Code, tag: str = "exercise-scaffold") -> None:
        """A starter scaffold: a code cell the learner fills in. It is never run (it does
        not work until filled in): no outputs, and tagged so that a notebook runner that
        honours `raises-exception` (nbclient) goes on past it."""
        cell: dict[str, Any] = {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {"tags": [tag, "raises-exception"]},
            "outputs": [],
            "source": code.source.rstrip(),
        }
        (self.deferred if self.deferred is not None else self.cells).append(cell)

    def attempt_check(self, check: Code) -> None:
        """The check of the attempt in the cell above: it raises until the attempt does
        what the task asks, then says PASS. Never run, as the scaffold it checks."""
        source = f'{check.source.rstrip()}\nprint("PASS")'
        self.scaffold(Code(source, check.line), tag="exercise-check")

    def outputs(self, block_id: str) -> list:
        block: BlockOutput = self.record.blocks[block_id]
        # What it printed, and each value it passed to display() where it did, as Jupyter
        # keeps them; then stderr.
        outputs: list[dict] = [
            {"output_type": "display_data", "metadata": {}, "data": bundle}
            if bundle
            else {"output_type": "stream", "name": "stdout", "text": text}
            for text, bundle in notebook_stdout(block)
        ]
        if block.stderr:
            outputs.append({"output_type": "stream", "name": "stderr", "text": block.stderr})
        if block.display:  # the value of a bare last expression, as Jupyter shows it
            outputs.append(
                {
                    "output_type": "execute_result",
                    "execution_count": None,
                    "metadata": {},
                    "data": notebook_bundle(block),
                }
            )
        if block.raised:
            outputs.append(
                {
                    "output_type": "error",
                    "ename": block.raised.type,
                    "evalue": block.raised.message,
                    "traceback": [],
                }
            )
        # Last, as Jupyter shows the figures a cell leaves open once it has run.
        outputs += [
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {SVG: figure.svg, "text/plain": figure.alt},
            }
            for figure in self.figures.get(block_id, [])
        ]
        return outputs

    def add(self, item: object) -> None:
        view = view_of(item)
        if view.notebook is not None:
            view.notebook(self, item)
        else:
            self.markdown(self.item_markdown(item))

    def run(self, item: object) -> None:
        """The code cell of the block `item` runs, with its recorded outputs."""
        runs = view_of(item).runs
        assert runs is not None  # called only for the items of kinds that run code
        block = runs.block(item)
        self.code(block.id, block.code, is_step=block.program)

    def optional(self, prose: Prose | None) -> None:
        if prose is not None:
            self.markdown(self.md.prose(prose))


def notebook_json(
    lesson: Lesson,
    record: ExecutionRecord,
    figures: dict[str, list[CellFigure]],
    md: Any,
    item_markdown: Callable[[object], str],
) -> str:
    notebook = NotebookBuilder(lesson, record, figures, md, item_markdown).build()
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def figure_provenance(lesson: Lesson, record: ExecutionRecord, figure: Figure) -> str:
    return (
        json.dumps(
            {
                "lesson": lesson.ref.slug,
                "block": figure.anchor,
                "title": figure.title,
                "data": record.blocks[figure.anchor].figure,
                "code_sha256": hashlib.sha256(figure.code.source.encode()).hexdigest(),
                "revision": lesson.front.revision,
                "recorded_at": record.timestamp,
                "python": record.python,
                "packages": record.packages,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )


def record_json(record: ExecutionRecord) -> str:
    return json.dumps(record_to_json(record), indent=1) + "\n"  # block order: execution order


def attempt_files(env: Environment, context: dict, lesson: Lesson) -> dict[str, str]:
    """The zip's exercises to edit (each its starter), their checks, and check.py, which
    runs them (outputs/learnercheck.py); nothing if no exercise has a check."""
    if not lesson.attempts:
        return {}
    files = {"check.py": LEARNER_CHECK.read_text(encoding="utf-8")}
    for attempt in lesson.attempts:
        for template, name in (
            ("attempts/exercise.py.jinja", attempt.file),
            ("attempts/check.py.jinja", attempt.check_file),
        ):
            text = env.get_template(template).render(context, lesson=lesson, attempt=attempt)
            files[name] = text.rstrip() + "\n"
    return files


def zip_bytes(files: Mapping[str, str | bytes]) -> bytes:
    """A zip of `files` (name -> content) whose bytes depend only on names and contents."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()


def learner_notebook(lesson: Lesson) -> str:
    """The site path of the notebook a learner works in: without the reference solutions."""
    name = "lesson.ipynb" if lesson.edition == STUDENT else STUDENT_NOTEBOOK
    return f"{lesson.ref.url.rpartition('/')[0]}/{name}"


def download_list(lesson: Lesson) -> list[Download]:
    """The downloads a lesson page lists, in the order it lists them."""
    student = lesson.edition == STUDENT
    listed = [
        Download("main.py", "the build steps: the lesson's program", "main.py"),
        Download(
            "full.py",
            "the whole recorded run: steps, then figures, "
            "experiments" + ("" if student else " and solutions"),
        ),
        Download("lesson.ipynb", "notebook with the recorded outputs", "Notebook"),
        *(
            []
            if student
            else [Download(STUDENT_NOTEBOOK, "the notebook without the reference solutions")]
        ),
        Download("lesson.md", "the lesson text with its outputs"),
        Download("evidence.md", "a template for your evidence"),
        Download("record.json", "the execution record"),
    ]
    listed += [
        Download(f"figures/{figure.anchor}.json", f"data and provenance of '{figure.title}'")
        for figure in lesson.items(Figure)
    ]
    archive = f"{lesson.ref.slug}.zip"
    everything = "all of the above in one file"
    if lesson.attempts:
        everything += ", with the exercises to edit and check.py to check them"
    return [*listed, Download(archive, everything, "Everything (zip)")]


def lesson_downloads(
    env: Environment,
    lesson: Lesson,
    record: ExecutionRecord,
    svgs: dict[str, str],
    captured: dict[str, list[FigureView]],
    context: dict,
    inputs: Mapping[str, bytes] | None = None,
) -> dict[str, str | bytes]:
    """Every download of a lesson: file name -> content (download_list names them).

    `svgs` are the drawings of the {figure} blocks' data, by anchor; `captured` the
    matplotlib figures each block left open (pagefigures.captured_figures), which lesson.md
    shows from the files the page links to and the zip holds, and the notebooks as outputs.
    `context` carries what the Markdown templates need: resolve_link, live_values, figures.
    `inputs` are the files that travel with the lesson in its zip: those its code reads
    (local modules, data files, by the name its run gave them, so that the zip's main.py
    runs as built) and the images its values displayed, which lesson.md shows.
    """
    context = {**context, "captured": captured}
    md = env.get_template("markdown.md").make_module(context)

    def markdown_of(shown: Lesson, shown_record: ExecutionRecord) -> Callable[[object], str]:
        def item_markdown(item: object) -> str:
            return env.get_template(view_of(item).markdown).render(
                context, md=md, item=item, lesson=shown, record=shown_record
            )

        return item_markdown

    figures: dict[str, list[CellFigure]] = {
        figure.anchor: [CellFigure(svgs[figure.anchor], figure.alt)]
        for figure in lesson.items(Figure)
    }
    for block_id, views in captured.items():
        figures.setdefault(block_id, []).extend(CellFigure(str(v.svg), v.alt) for v in views)
    kinds = {
        "note_type": Note,
        "experiment_type": Experiment,
        "exercise_type": Exercise,
        "check_type": Check,
    }
    texts: dict[str, str] = {
        "main.py": lesson.main_py(),
        "full.py": lesson.full_script(),
        "lesson.ipynb": notebook_json(lesson, record, figures, md, markdown_of(lesson, record)),
        "lesson.md": env.get_template("lesson.md").render(context, lesson=lesson, record=record),
        "evidence.md": env.get_template("evidence.md").render(
            context, lesson=lesson, record=record, **kinds
        ),
        "record.json": record_json(record),
    }
    if lesson.edition != STUDENT:  # a student edition's lesson.ipynb is this notebook already
        shown, shown_record = student_lesson(lesson), student_record(record, lesson)
        texts[STUDENT_NOTEBOOK] = notebook_json(
            shown, shown_record, figures, md, markdown_of(shown, shown_record)
        )
    for figure in lesson.items(Figure):
        texts[f"figures/{figure.anchor}.json"] = figure_provenance(lesson, record, figure)
    files: dict[str, str | bytes] = dict(texts)
    # The page job writes the captured figures' files beside the page; the zip holds them too.
    drawings = {
        **{f"figures/{anchor}.svg": svg for anchor, svg in svgs.items()},
        **{view.full_size: str(view.svg) for views in captured.values() for view in views},
    }
    # The zip unpacks into a folder that says how to run it, and with what.
    alongside = {
        "README.md": env.get_template("zip-readme.md").render(context, lesson=lesson),
        "requirements.txt": "".join(f"{line}\n" for line in context.get("requirements", [])),
        **attempt_files(env, context, lesson),
    }
    files[f"{lesson.ref.slug}.zip"] = zip_bytes(
        {**(inputs or {}), **texts, **drawings, **alongside}
    )
    return files


def _cell_tags(code: Code) -> list[str]:
    """The notebook tags of a step's cell: it raises on purpose, its output varies."""
    return ["raises-exception"] * bool(code.raises) + [
        tag for tag in code.tags if tag == OUTPUT_VARIES
    ]
