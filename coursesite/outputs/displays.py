"""What a block's last value displays on a page: the richest representation of its MIME
bundle that a renderer takes, chosen by a display priority, as Jupyter chooses one. The
values it passed to display() on earlier lines are shown the same way, each where it was
called in the block's stdout, instead of the repr it wrote there (`page_printed`).

A renderer turns one representation into a DisplayView, which the theme's template
`outputs/<kind>.html` shows; no renderer writes markup of its own. Everything a lesson's
process displayed is untrusted: HTML passes htmlclean's allowlist, SVG svgclean's, Markdown
is rendered without raw HTML, and a raster must be the image type it claims; it is
published as a file named by its content. A plugin adds a type with `api.output_renderer`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markupsafe import Markup

from coursesite.errors import BuildError
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord
from coursesite.files import short_digest
from coursesite.lesson.model import Lesson, RunnableBlock
from coursesite.markup.htmlclean import clean_html
from coursesite.markup.mathml import latex_to_mathml
from coursesite.markup.svgclean import RASTER_SIGNATURES, UnsafeSvg, clean_svg


class UnshowableOutput(ValueError):
    """A representation a page must not show as it is; the message says why."""


@dataclass(frozen=True)
class DisplayContext:
    """What a renderer knows of the block whose value it shows."""

    alt: str  # the block's text alternative (its :alt: option), for images
    prefix: str  # unique on the page: for the ids inside a drawing


@dataclass(frozen=True)
class DisplayView:
    """One displayed value as the template `outputs/<kind>.html` shows it."""

    kind: str
    mime: str
    text: str = ""  # text shown as text: text/plain, or LaTeX that MathML cannot carry
    markup: str = ""  # a Markup: HTML already made safe: sanitised HTML, MathML, clean SVG
    image: str = ""  # a published raster: its path beside the page
    alt: str = ""
    files: dict[str, bytes] = field(default_factory=dict)  # path beside the page: content


@dataclass(frozen=True)
class PrintedPart:
    """A piece of a block's stdout as a page shows it: text it printed, or the view of a
    value it passed to display() there, with the repr that display wrote (`text`), which
    lesson.md shows of any view but an image, as of a last value."""

    text: str = ""
    view: DisplayView | None = None


Renderer = Callable[[str, DisplayContext], DisplayView]


@dataclass(frozen=True)
class OutputRenderer:
    mime: str
    render: Renderer
    priority: int  # lower is chosen first


_RENDERERS: dict[str, OutputRenderer] = {}


def register_renderer(renderer: OutputRenderer) -> OutputRenderer:
    _RENDERERS[renderer.mime] = renderer
    return renderer


def unregister_renderer(mime: str) -> None:
    _RENDERERS.pop(mime, None)
    if mime in _BUILTIN:
        register_renderer(_BUILTIN[mime])


def chosen_view(output: BlockOutput, context: DisplayContext) -> DisplayView | None:
    """The view of the representation a page shows of the block's value; None when the
    block ended in no value. UnshowableOutput when that representation cannot be shown."""
    if not output.display and not output.display_bundle:
        return None
    return bundle_view({"text/plain": output.display, **output.display_bundle}, context)


def bundle_view(bundle: dict[str, str], context: DisplayContext) -> DisplayView | None:
    """The view of the richest representation in a MIME bundle that a renderer takes: a
    fresh value's, or one a notebook stored (storedoutputs.py); UnshowableOutput as above."""
    for renderer in sorted(_RENDERERS.values(), key=lambda r: r.priority):
        if bundle.get(renderer.mime):
            return renderer.render(bundle[renderer.mime], context)
    return None


def display_files(views: dict[str, DisplayView]) -> dict[str, bytes]:
    """The files the views publish beside the page (its displayed rasters), by path."""
    return {name: data for view in views.values() for name, data in view.files.items()}


def printed_files(printed: dict[str, tuple[PrintedPart, ...]]) -> dict[str, bytes]:
    """The files the displays within blocks' stdout publish beside the page, by path."""
    views = [part.view for parts in printed.values() for part in parts if part.view]
    return {name: data for view in views for name, data in view.files.items()}


def placed_displays(output: BlockOutput) -> list[tuple[int, int, dict[str, str]]]:
    """(where its text starts in stdout, its length, its MIME bundle with that text as
    text/plain) of each value the block passed to display() that offers more than text, in
    order. The record comes from the lesson's process: a display whose place is not in its
    stdout, or overlaps the one before, is left out, as the text it wrote."""
    placed, start, stdout = [], 0, output.stdout
    for shown in output.displays:
        at, length, bundle = shown.get("at"), shown.get("length"), shown.get("bundle")
        if not (
            isinstance(at, int)
            and isinstance(length, int)
            and isinstance(bundle, dict)
            and start <= at <= at + length <= len(stdout)
        ):
            continue
        rich = {
            mime: data
            for mime, data in bundle.items()
            if isinstance(mime, str) and isinstance(data, str) and mime != "text/plain"
        }
        if rich:
            text = stdout[at : at + length].removesuffix("\n")
            placed.append((at, length, {"text/plain": text, **rich}))
            start = at + length
    return placed


def printed_parts(output: BlockOutput, alt: str) -> tuple[PrintedPart, ...]:
    """The block's stdout cut at each value it passed to display(): the text before, the
    value's view in place of the repr it wrote, the text after. Empty when no display shows
    more than its text, which stdout shows already."""
    parts: list[PrintedPart] = []
    number = 0
    for text, bundle in _stdout_pieces(output):
        view = None
        if bundle is not None:
            number += 1
            view = bundle_view(bundle, DisplayContext(alt, f"{output.id}-display-{number}"))
        if view is None or view.mime == "text/plain":  # text, as stdout has it
            view = None
            if parts and parts[-1].view is None:
                text, parts = parts[-1].text + text, parts[:-1]
        parts.append(PrintedPart(text, view))
    if not any(part.view for part in parts):
        return ()
    return tuple(part for part in parts if part.view or part.text)


def notebook_stdout(output: BlockOutput) -> list[tuple[str, dict[str, str] | None]]:
    """The block's stdout as a notebook download carries it: (text, None) for what it
    printed, ("", bundle) for each value it displayed, its HTML through the page's
    allowlist (notebook_bundle), in order."""
    pieces: list[tuple[str, dict[str, str] | None]] = []
    for text, bundle in _stdout_pieces(output):
        if bundle is None:
            pieces.append((text, None))
        else:
            if "text/html" in bundle:
                bundle = {**bundle, "text/html": clean_html(bundle["text/html"])}
            pieces.append(("", bundle))
    return [(text, bundle) for text, bundle in pieces if text or bundle]


def _stdout_pieces(output: BlockOutput) -> list[tuple[str, dict[str, str] | None]]:
    """The block's stdout in order: (text, None) for what it printed, (the repr display
    wrote, its MIME bundle) for each value it displayed (placed_displays)."""
    pieces: list[tuple[str, dict[str, str] | None]] = []
    start, stdout = 0, output.stdout
    for at, length, bundle in placed_displays(output):
        pieces += [(stdout[start:at], None), (stdout[at : at + length], bundle)]
        start = at + length
    pieces.append((stdout[start:], None))
    return pieces


def page_printed(lesson: Lesson, record: ExecutionRecord) -> dict[str, tuple[PrintedPart, ...]]:
    """Block id -> its stdout cut at what it displayed, for every block whose display()
    shows more than text."""
    printed = {}
    for block in lesson.runnable_blocks():
        parts = _block_parts(lesson, record, block)
        if parts:
            printed[block.id] = parts
    return printed


def notebook_bundle(output: BlockOutput) -> dict[str, str]:
    """The block's value as a notebook download carries it: its whole MIME bundle, its
    HTML through the same allowlist as the page's (a notebook viewer may trust it)."""
    bundle = {"text/plain": output.display, **output.display_bundle}
    if "text/html" in bundle:
        bundle["text/html"] = clean_html(bundle["text/html"])
    return bundle


def page_displays(lesson: Lesson, record: ExecutionRecord) -> dict[str, DisplayView]:
    """Block id -> what its value displays, for every block that ended in one."""
    views = {}
    for block in lesson.runnable_blocks():
        view = _block_view(lesson, record, block)
        if view is not None:
            views[block.id] = view
    return views


def display_errors(lesson: Lesson, record: ExecutionRecord) -> list[BuildError]:
    """Blocks whose displayed value cannot be shown, or is an image with no text
    alternative, at the line of their code."""
    errors = []
    for block in lesson.runnable_blocks():
        try:
            view = _block_view(lesson, record, block)
            printed = [part.view for part in _block_parts(lesson, record, block) if part.view]
        except BuildError as error:
            errors.append(error)
            continue
        images = [shown for shown in (view, *printed) if shown and shown.kind in ("image", "svg")]
        if images and not block.code.alt:
            view = images[0]
            errors.append(
                BuildError(
                    f"{block.label} displays an image ({view.mime}) but has no text alternative",
                    lesson.path,
                    block.code.line,
                    hint="add ':alt: what the image shows' on the line after the block's "
                    "opening ':::' line",
                )
            )
    return errors


def _block_parts(
    lesson: Lesson, record: ExecutionRecord, block: RunnableBlock
) -> tuple[PrintedPart, ...]:
    output = record.blocks.get(block.id)
    if output is None or not output.displays:
        return ()
    try:
        return printed_parts(output, block.code.alt)
    except UnshowableOutput as problem:
        raise BuildError(
            f"a value {block.label} passes to display() cannot be shown: {problem}",
            lesson.path,
            block.code.line,
            hint="display a value whose display is plain HTML, an image or text, "
            "or print it instead",
        ) from None


def _block_view(
    lesson: Lesson, record: ExecutionRecord, block: RunnableBlock
) -> DisplayView | None:
    output = record.blocks.get(block.id)
    if output is None:
        return None
    try:
        return chosen_view(output, DisplayContext(block.code.alt, f"{block.id}-value"))
    except UnshowableOutput as problem:
        raise BuildError(
            f"the value {block.label} displays cannot be shown: {problem}",
            lesson.path,
            block.code.line,
            hint="end the block with a value whose display is plain HTML, an image or text, "
            "or with `;` to show nothing",
        ) from None


# -- the built-in renderers, in Jupyter's order of preference ------------------------------


def _html(data: str, context: DisplayContext) -> DisplayView:
    return DisplayView("html", "text/html", markup=Markup(clean_html(data)))


def _svg(data: str, context: DisplayContext) -> DisplayView:
    try:
        markup = Markup(clean_svg(data, context.prefix))
        return DisplayView("svg", "image/svg+xml", markup=markup, alt=context.alt)
    except UnsafeSvg as problem:
        raise UnshowableOutput(str(problem)) from None


def _raster(mime: str) -> Renderer:
    suffix = {"image/png": ".png", "image/jpeg": ".jpg"}[mime]

    def render(data: str, context: DisplayContext) -> DisplayView:
        try:
            content = base64.b64decode("".join(data.split()), validate=True)
        except (binascii.Error, ValueError):
            raise UnshowableOutput(f"its {mime} is not valid base64") from None
        if not content.startswith(RASTER_SIGNATURES[mime]):
            raise UnshowableOutput(f"its {mime} data is not a {mime} image")
        name = f"images/value-{short_digest(content)}{suffix}"
        return DisplayView("image", mime, image=name, alt=context.alt, files={name: content})

    return render


_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def _markdown(data: str, context: DisplayContext) -> DisplayView:
    return DisplayView("html", "text/markdown", markup=Markup(clean_html(_MARKDOWN.render(data))))


_MATH_DELIMITERS = re.compile(r"\A\s*(\$\$?|\\\[|\\\()(.*?)(\$\$?|\\\]|\\\))\s*\Z", re.S)


def _latex(data: str, context: DisplayContext) -> DisplayView:
    match = _MATH_DELIMITERS.match(data)
    try:
        mathml = latex_to_mathml(match.group(2) if match else data, display=True)
    except Exception:  # latex2mathml's own errors, and UnsafeMath: show the source instead
        return DisplayView("text", "text/latex", text=data)
    return DisplayView("math", "text/latex", markup=Markup(mathml))


def _plain(data: str, context: DisplayContext) -> DisplayView:
    return DisplayView("text", "text/plain", text=data)


_BUILTIN = {
    renderer.mime: renderer
    for renderer in (
        OutputRenderer("text/html", _html, 10),
        OutputRenderer("image/svg+xml", _svg, 20),
        OutputRenderer("image/png", _raster("image/png"), 30),
        OutputRenderer("image/jpeg", _raster("image/jpeg"), 40),
        OutputRenderer("text/markdown", _markdown, 50),
        OutputRenderer("text/latex", _latex, 60),
        OutputRenderer("text/plain", _plain, 100),
    )
}
_RENDERERS.update(_BUILTIN)
