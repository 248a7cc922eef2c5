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
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.config.yamlmodel import dump_yaml
from coursesite.execution.expectedoutputs import (
    KEPT_DISPLAY,
    KEPT_HEAD,
    KEPT_TAIL,
    StoredOutput,
    capped,
    dump_expected,
)
from coursesite.files import short_digest
from coursesite.importers.directives import settle_admonitions
from coursesite.importers.formulas import settle_math
from coursesite.importers.glue import Glued
from coursesite.importers.magics import TIMING_VOLATILE, cell_code
from coursesite.importers.mystdirectives import (
    directive_images,
    keeps_title,
    settle_directives,
)
from coursesite.importers.networkreads import NetworkReads
from coursesite.importers.notebooks import Cell
from coursesite.importers.references import NotebookLabels, OtherSites, settle_references
from coursesite.importers.titles import step_title, summary_of
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.markup.markdown import slugify
from coursesite.outputs.assets import RefusedAsset, published_image

# A badge: a linked image from another site (`[![Open in Colab](…/badge.svg)](…)`).
_BADGE = re.compile(r"\[!\[([^\]\n]*)\]\((?:https?:)?//[^)\s]*\)\]\(([^)\s]+)\)")
_PYTHON_NAMES = {"python", "python3", "py", "ipython", "ipython3"}


@dataclass
class ImportedLesson:
    text: str = ""  # the lesson file
    expected: str | None = None  # the expected-outputs file, when the notebook stored outputs
    images: dict[str, bytes] = field(default_factory=dict)  # path beside the lesson: bytes
    installs: list[str] = field(default_factory=list)  # from `!pip install` lines
    notes: list[str] = field(default_factory=list)  # what the author should look at
    linked_images: list[tuple[str, str]] = field(default_factory=list)  # (path, cell.where)
    refusals: list[tuple[str, str]] = field(default_factory=list)  # (message, hint) by cell
    timed: bool = False  # a cell prints timings: the lesson marks them volatile
    code: list[str] = field(default_factory=list)  # every step's code, in order
    printed: dict[str, int] = field(default_factory=dict)  # cell.where: longest stored output
    steps: list[tuple[int, str, str]] = field(default_factory=list)  # (number, cell.where, code)


def notebook_title(cells: list[Cell], fallback: str) -> str:
    """The text of the first level-1 heading (`# Title`, or `Title` over `===`) of the
    notebook's first Markdown cell."""
    for cell in cells:
        if cell.kind == "markdown":
            return next((text for _, level, text in _headings(cell.source) if level == 1), fallback)
    return fallback


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
    markdown = [_without_title(cell, title) if cell.kind == "markdown" else cell for cell in cells]
    shift = _heading_shift(markdown)
    prose = [cell.source for cell in markdown if cell.kind == "markdown"]
    labels = NotebookLabels.of(prose, keeps_title)
    glued = Glued.of([cell.source for cell in cells if _runs_through(cell)])
    understand: list[str] = []
    build_run: list[str] = []
    stored: dict[str, StoredOutput] = {}
    heading = prose_before = ""
    number = 0
    for cell in markdown:
        lesson.refusals += [
            (
                f"{cell.where}: attachment {name} holds no readable image data",
                "paste the image into the notebook again, or save it as a file beside it",
            )
            for name in cell.unreadable
        ]
        # A code cell tagged remove-cell still runs in the notebook's own build (its imports,
        # its setup): it stays a step, folded (_fold_tags).
        if "remove-cell" in cell.tags and cell.kind == "markdown":
            lesson.notes.append(f"{cell.where}: tagged remove-cell, so it was left out")
            continue
        if cell.kind == "markdown":
            portable = _portable(cell, lesson)
            lesson.linked_images += [(path, cell.where) for path in directive_images(portable)]
            portable = settle_directives(portable, cell.where, lesson.notes, glued)
            portable = settle_references(portable, labels, cell.where, lesson.notes, sites, glued)
            portable = settle_math(portable, cell.where, lesson.notes)
            portable = settle_admonitions(portable, cell.where, lesson.notes)
            text, found = _demoted(portable, shift)
            # A heading right above the code is the block's title, not a section of its own.
            text, closing = _closing_heading(text)
            heading = closing or found or heading
            prose_before = f"{prose_before}\n\n{text}"
            (build_run if number else understand).append(text)
            continue
        if "skip-execution" in cell.tags:
            (build_run if number else understand).append(_fenced(cell.source, "python norun"))
            lesson.notes.append(
                f"{cell.where}: tagged skip-execution, so it is shown as code and never run"
            )
            continue
        code = _lesson_code(cell, lesson)
        if not _has_statements(code):  # empty, or only what became comments: reported
            continue
        block_title = heading or step_title(prose_before, cell.source)
        heading = prose_before = ""  # the next block's title comes from the Markdown above it
        # A cell whose stored run failed, or that a MyST notebook tags as failing, stays in
        # its place: what it defined before failing is there for the cells after it.
        raises = cell.raises or ("Exception" if "raises-exception" in cell.tags else "")
        number += 1
        build_run.append(_step(number, block_title, code, cell, raises, _fold_tags(cell, lesson)))
        lesson.steps.append((number, cell.where, code))
        if raises:
            lesson.notes.append(
                f"{cell.where}: it raises {raises}; step {number} declares it (:raises:), "
                "and main.py goes on past it"
                + ("; name the exception it raises in :raises:" if not cell.raises else "")
            )
        if _stored_anything(cell) and cell.shell:
            lesson.notes.append(
                f"{cell.where}: its stored output is partly a shell command's, which the step "
                "no longer runs: it is not compared"
            )
        elif _stored_anything(cell):
            stored[f"step-{number}"] = _stored(cell, expected_name, lesson)
        if _may_draw(cell, code) and not cell.alt:
            lesson.notes.append(
                f"{cell.where}: it {'draws' if cell.drew else 'may draw'} a figure, which the "
                f"page shows under step {number}: describe it in the step's :alt: option"
            )
    if not number:
        lesson.notes.append("the notebook has no code: the lesson needs at least one step")
    front = _front_matter(title, understand, number, expected_name if stored else None)
    if lesson.timed:
        front["volatile"] = TIMING_VOLATILE
    lesson.text = _lesson_text(front, understand, build_run)
    lesson.notes += _network_reads(lesson)
    if stored:
        lesson.expected = dump_expected(source, stored)
    return lesson


def _runs_through(cell: Cell) -> bool:
    """Whether a code cell's every line runs in the lesson: what it glues is there after."""
    stops = cell.raises or {"skip-execution", "raises-exception"} & set(cell.tags)
    return cell.kind == "code" and not stops


def _network_reads(lesson: ImportedLesson) -> list[str]:
    """A note for each line of the steps that reads the network, at its line in the lesson."""
    reads = NetworkReads()
    return [
        f"{where}, lesson line {lesson_line(lesson.text, number, offset)}: step {number} reads "
        f"the network ({what}), and the machine that builds the site may have none: save "
        "the data beside the lesson, list it in the front matter's files: and read it from "
        "there; or tag the cell skip-execution and import again, which shows its code "
        "without running it"
        for number, where, code in lesson.steps
        for offset, what in reads.scan(code)
    ]


def lesson_line(text: str, number: int, offset: int) -> int:
    """The line of `text` (from 1) holding line `offset` (from 0) of step `number`'s code."""
    lines = text.splitlines()
    start = next(at for at, line in enumerate(lines) if line.startswith(f":::{{step}} {number}. "))
    fence = next(at for at in range(start, len(lines)) if lines[at].startswith("```"))
    return fence + 2 + offset


def _without_title(cell: Cell, title: str) -> Cell:
    lines = cell.source.splitlines()
    for at, level, text in _headings(cell.source):
        if level == 1 and text == title:
            del lines[at.start : at.stop]
            break
    return Cell(
        cell.kind,
        "\n".join(lines),
        cell.where,
        tags=cell.tags,
        attachments=cell.attachments,
        unreadable=cell.unreadable,
    )


def _portable(cell: Cell, lesson: ImportedLesson) -> str:
    """The cell's Markdown as a lesson takes it. Lessons refuse raw HTML and images from
    other sites (pages load nothing from elsewhere), so HTML is shown as code, a remote
    image becomes a link to it, and pasted images are saved beside the lesson; each change
    is reported. Python shown in Markdown is marked `norun`: in a lesson, a plain
    ```python fence would look as if it ran."""
    source, badges = _BADGE.subn(r"[\1](\2)", cell.source)
    if badges:
        lesson.notes.append(f"{cell.where}: {badges} badge(s) from another site became plain links")
    lines = source.splitlines()
    tokens = MarkdownIt("commonmark").parse(source)
    for token in reversed(tokens):  # from the end, so earlier line numbers stay valid
        language = token.info.split()[0] if token.type == "fence" and token.info else ""
        if language in _PYTHON_NAMES and token.map and "norun" not in token.info:
            opening = lines[token.map[0]]
            lines[token.map[0]] = opening[: opening.index(language)] + "python norun"
        if token.type == "html_block" and token.map and not _only_comments(token.content):
            first, end = token.map
            lines[first:end] = ["```html", *token.content.rstrip("\n").splitlines(), "```"]
            lesson.notes.append(f"{cell.where}: HTML is shown as code; rewrite it in Markdown")
    text = "\n".join(lines)
    for token in tokens:
        for child in token.children or []:
            if child.type == "html_inline" and not _only_comments(child.content):
                text = text.replace(child.content, f"`{child.content}`", 1)
                lesson.notes.append(f"{cell.where}: inline HTML {child.content} is shown as code")
            elif child.type == "image":
                text = _portable_image(text, child, cell, lesson)
    return text


def _only_comments(html: str) -> bool:
    return not re.sub(r"<!--.*?-->", "", html, flags=re.S).strip()


def _portable_image(text: str, image: Token, cell: Cell, lesson: ImportedLesson) -> str:
    src = str(image.attrs.get("src", ""))
    alt = image.content
    if src.startswith("attachment:") and src[len("attachment:") :] in cell.attachments:
        name = src[len("attachment:") :]
        content = cell.attachments[name]
        # Notebooks name every pasted image "image.png": the content tells them apart.
        pasted = Path(name)
        saved = f"images/{pasted.stem}-{short_digest(content)[:8]}{pasted.suffix}"
        try:
            published_image(content, pasted.suffix, name, "import")
        except RefusedAsset as refused:
            lesson.refusals.append((f"{cell.where}: attachment {refused.message}", refused.hint))
            return text
        lesson.images[saved] = content
        if not alt:
            alt = f"{PLACEHOLDER} describe {Path(name).name}"
            lesson.notes.append(f"{cell.where}: image {name} has no alt text: describe it")
        return text.replace(f"]({src}", f"]({saved}", 1).replace(
            f"![]({saved}", f"![{alt}]({saved}", 1
        )
    if re.match(r"^(https?:)?//", src):
        lesson.notes.append(
            f"{cell.where}: the image {src} is on another site and became a link to it; "
            "save the file beside the lesson to show it"
        )
        return text.replace(f"![{alt}]({src}", f"[{alt or src}]({src}", 1)
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src):
        lesson.linked_images.append((unquote(src), cell.where))
    return text


def _headings(source: str) -> list[tuple[range, int, str]]:
    """(its lines, level, text) of every heading, found by a Markdown parser so that a `#`
    comment inside a code fence is not one, and `Title` over `=====` is one."""
    tokens = MarkdownIt("commonmark").parse(source)
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            lines = range(*token.map)
            found.append((lines, int(token.tag[1]), " ".join(tokens[index + 1].content.split())))
    return found


def _heading_shift(cells: list[Cell]) -> int:
    levels = [level for c in cells if c.kind == "markdown" for _, level, _ in _headings(c.source)]
    return 2 - min(levels) if levels else 0


def _demoted(source: str, shift: int) -> tuple[str, str]:
    """`source` with every heading `shift` levels down (at least 2, at most 6), written
    ATX-style, and the text of its last heading."""
    lines = source.splitlines()
    last = ""
    for at, level, text in reversed(_headings(source)):
        replacement = "#" * min(6, max(2, level + shift)) + " " + text
        lines[at.start : at.stop] = [replacement]
        last = last or text
    return "\n".join(lines).rstrip(), last


def _closing_heading(text: str) -> tuple[str, str]:
    """`text` without its last line when that line is a heading, and the heading's text."""
    body, _, last = text.rpartition("\n")
    match = re.fullmatch(r"#{2,6} (.+)", last)
    return (body.rstrip(), match.group(1)) if match else (text, "")


def _has_statements(code: str) -> bool:
    try:
        return bool(ast.parse(code).body)
    except SyntaxError:  # the build names the line
        return True


def _stored_anything(cell: Cell) -> bool:
    return bool(cell.stdout or cell.display or cell.stderr.strip() or cell.rich)


def _stored(cell: Cell, expected_name: str, lesson: ImportedLesson) -> StoredOutput:
    """What the cell's stored run showed, as the step shows it: a last display(value),
    which the step ends with as its bare value, is the step's value, not printed text.
    An output too long to keep whole is capped, and the report says so; so is a rich
    display too large to keep, which is left out (the page could not show it)."""
    shown = cell.last_display.rstrip("\n") + "\n"
    if cell.shows_last and cell.last_display and cell.stdout.endswith(shown):
        stdout, display = cell.stdout[: -len(shown)], cell.last_display.rstrip("\n")
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


def _lesson_code(cell: Cell, lesson: ImportedLesson) -> str:
    converted = cell_code(cell.source, cell.where)
    cell.shows_last, cell.shell = converted.shows_last, converted.shell
    lesson.installs += converted.installs
    lesson.notes += converted.notes
    lesson.timed = lesson.timed or converted.timed
    lesson.code.append(converted.code)
    return converted.code


# Code that plots: a MyST notebook stores no outputs to tell whether a cell drew.
_PLOTTING = re.compile(r"\b(?:plt|pyplot|matplotlib)\b|\.(?:plot|imshow|scatter|hist|bar)\(")


def _may_draw(cell: Cell, code: str) -> bool:
    """Whether the step needs a text alternative: its stored run drew, or its code plots.
    A placeholder the code does not need is listed by `build.py check`, not refused."""
    return cell.drew or bool(cell.alt) or bool(_PLOTTING.search(code))


def _fold_tags(cell: Cell, lesson: ImportedLesson) -> list[str]:
    """The cell's tags that fold what the page shows. A page never removes a step's code
    or output (readers see every line main.py runs and prints): it folds them."""
    folded = set()
    for tag in cell.tags:
        if tag in ("hide-input", "hide-output"):
            folded.add(tag)
        elif tag == "hide-cell":  # MyST-NB: the code and its output, under one toggle
            folded.update(("hide-input", "hide-output"))
        elif tag == "remove-cell":
            folded.update(("hide-input", "hide-output"))
            lesson.notes.append(
                f"{cell.where}: tagged remove-cell; the page folds it instead (hide-cell): "
                "main.py runs it, as the notebook did, and readers see every line it runs"
            )
        elif tag in ("remove-input", "remove-output"):
            folded.add(tag.replace("remove", "hide"))
            lesson.notes.append(
                f"{cell.where}: tagged {tag}; the page folds it instead "
                f"({tag.replace('remove', 'hide')}): readers see every line main.py runs"
            )
    return sorted(folded)


def _step(number: int, title: str, code: str, cell: Cell, raises: str, tags: list[str]) -> str:
    # A figure the code leaves open is captured, and needs its text alternative.
    alt = cell.alt or f"{PLACEHOLDER} what the figure shows"
    options = f":alt: {alt}\n" if _may_draw(cell, code) else ""
    options += f":raises: {raises}\n" if raises else ""
    options += f":tags: [{', '.join(tags)}]\n" if tags else ""
    return f":::{{step}} {number}. {title}\n{options}{_fenced(code)}\n:::"


def _fenced(code: str, info: str = "python") -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    return f"{fence}{info}\n{code.strip(chr(10))}\n{fence}"


def _front_matter(title: str, understand: list[str], steps: int, expected_name: str | None) -> dict:
    words = sum(len(text.split()) for text in understand)
    front = {
        "title": title,
        "summary": summary_of(understand) or f"{PLACEHOLDER} one line on what it builds",
        "minutes": max(10, 5 * round((words / 200 + 3 * steps) / 5)),
        "hardware": "cpu",
        "outcomes": [f"{PLACEHOLDER} what a learner can do after this lesson"],
        "expected_result": f"{PLACEHOLDER} the output that shows the lesson worked",
        "revision": "v0.1.0",
    }
    if expected_name:
        front["expected_outputs"] = expected_name
    return front


def _lesson_text(front: dict, understand: list[str], build_run: list[str]) -> str:
    header = dump_yaml(front)
    stages = [
        ("Understand", understand),
        ("Build & Run", build_run),
        ("Experiment", []),
        ("Exercise & Check", []),
        ("Evidence", []),
    ]
    body = "\n\n".join(
        f"# {name}" + "".join(f"\n\n{part.strip()}" for part in parts if part.strip())
        for name, parts in stages
    )
    return f"---\n{header}---\n\n{body}\n"


def lesson_slug(title: str) -> str:
    return slugify(title)[:60].strip("-") or "lesson"
