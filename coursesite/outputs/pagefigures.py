"""The figures a lesson page shows inline, and the full-size file each one links to.

Two kinds of figure reach a page: a `{figure}` block's data, drawn by the build
(figures.py), and a matplotlib figure that an executed block left open, drawn in the
lesson's process (runner.capture_figures). Both are cleaned (svgclean) before anything of
them is written; a figure that cannot be shown stops the build at its block's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from coursesite.cache.caches import cached_clean_svg, cached_cut_words, cached_figure_svg
from coursesite.errors import BuildError
from coursesite.execution.dependencies import imported_modules
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord
from coursesite.files import short_digest
from coursesite.lesson.model import Figure, Lesson, RunnableBlock
from coursesite.markup.svgclean import UnsafeSvg
from coursesite.outputs.figures import figure_problems

FIGURE_HINT = "see 'Figures' in docs/authoring.md"


@dataclass(frozen=True)
class FigureView:
    """One figure as a page shows it; links are relative to the lesson page."""

    svg: Markup  # allow-listed SVG, shown inline so its text is text in the page's font
    alt: str
    full_size: str  # the SVG alone, named by its content
    data: str | None  # the data and provenance (JSON) of a {figure} block's figure
    code: str  # the fragment of the code that drew it


@dataclass(frozen=True)
class PageFigures:
    drawn: dict[str, FigureView]  # {figure} block anchor -> its drawing of the data
    captured: dict[str, list[FigureView]]  # block id -> the matplotlib figures it left

    def files(self, folder: str) -> dict[str, str]:
        views = [*self.drawn.values(), *(v for vs in self.captured.values() for v in vs)]
        return {f"{folder}/{view.full_size}": str(view.svg) for view in views}


def page_figures(lesson: Lesson, record: ExecutionRecord, cache: Path | None) -> PageFigures:
    drawn = {
        figure.anchor: _view(
            lesson,
            figure.code.line,
            data_figure_svg(lesson, record, figure, cache),
            figure.anchor,
            figure.alt,
            data=f"figures/{figure.anchor}.json",
            code=f"{figure.anchor}-code",
            cache=cache,
        )
        for figure in lesson.items(Figure)
    }
    return PageFigures(drawn, captured_figures(lesson, record, cache))


def captured_figures(
    lesson: Lesson, record: ExecutionRecord, cache: Path | None = None
) -> dict[str, list[FigureView]]:
    """Block id -> the matplotlib figures it left open, in the order it drew them. The
    page, lesson.md, the notebooks and the zip all show these, under the same file names."""
    captured = {}
    for block in lesson.runnable_blocks():  # a student edition's has no solutions
        svgs = record.blocks[block.id].captured_svgs if block.id in record.blocks else []
        if svgs:
            captured[block.id] = [
                _view(
                    lesson,
                    block.code.line,
                    svg,
                    f"{block.id}-{n}",
                    block.code.alt,
                    None,
                    block.id,
                    cache,
                )
                for n, svg in enumerate(svgs, start=1)
            ]
    return captured


def _view(
    lesson: Lesson,
    line: int,
    svg: str,
    prefix: str,
    alt: str,
    data: str | None,
    code: str,
    cache: Path | None = None,
) -> FigureView:
    markup = _clean(lesson, line, svg, prefix, cache)
    name = short_digest(markup)
    return FigureView(Markup(markup), alt, f"figures/{name}.svg", data, code)


def _clean(lesson: Lesson, line: int, svg: str, prefix: str, cache: Path | None) -> str:
    try:
        return cached_clean_svg(svg, prefix, cache)
    except UnsafeSvg as problem:
        raise BuildError(
            f"a figure of this block cannot be shown: {problem}",
            lesson.path,
            line,
            hint="draw with matplotlib's plotting calls; pages show drawings and inline "
            "PNG or JPEG images only (no scripts, links or images from elsewhere)",
        ) from None


def data_figure_svg(
    lesson: Lesson, record: ExecutionRecord, figure: Figure, cache: Path | None
) -> str:
    """The drawing of a {figure} block's data, as figures.render_svg makes it."""
    problem = figure_data_error(lesson, record, figure)
    if problem:
        raise problem
    return cached_figure_svg(record.blocks[figure.anchor].figure or {}, figure.alt, cache)


def figure_data_error(lesson: Lesson, record: ExecutionRecord, figure: Figure) -> BuildError | None:
    """What makes a {figure} block's recorded data impossible to draw, at its code's line."""
    problems = figure_problems(record.blocks[figure.anchor].figure or {})
    if not problems:
        return None
    return BuildError(
        f"figure '{figure.title}' has unusable data: " + "; ".join(problems),
        lesson.path,
        figure.code.line,
        hint=f"{FIGURE_HINT} for the expected keys",
    )


def figure_data_cut(
    lesson: Lesson, record: ExecutionRecord, figure: Figure, cache: Path | None = None
) -> BuildError | None:
    """A warning when the drawing of a {figure} block's data shows some of its text cut
    (`cache`: the figure cache, which keeps what earlier drawings of the same data cut)."""
    cut = cached_cut_words(record.blocks[figure.anchor].figure or {}, cache)
    if not cut:
        return None
    return BuildError(
        f"figure '{figure.title}' draws text past its edge, which the page shows cut: "
        + ", ".join(repr(words) for words in cut[:4]),
        lesson.path,
        figure.code.line,
        hint="figure data wraps its labels and title at spaces: shorten the word that "
        "is too long, or put spaces into it",
    )


def figure_block_errors(
    lesson: Lesson,
    record: ExecutionRecord,
    cache: Path | None = None,
    shows_stored_image: set[str] | None = None,
) -> list[BuildError]:
    """Blocks whose matplotlib figures lack a text alternative or cannot be shown, and
    blocks with a text alternative but no image to describe, at the line of their code.
    The :alt: of a block describes every image it shows: its figures, its value's image
    (displays.py) and an image its notebook stored (`shows_stored_image`,
    storedoutputs.py); a placeholder the import wrote is accepted (check lists it)."""
    errors = []
    for block in lesson.runnable_blocks():
        output = record.blocks.get(block.id)
        drew = len(output.captured_svgs) if output else 0
        for n, svg in enumerate(output.captured_svgs if output else [], start=1):
            try:
                _clean(lesson, block.code.line, svg, f"{block.id}-{n}", cache)
            except BuildError as error:
                errors.append(error)
        if drew and not block.code.alt:
            errors.append(_alt_error(lesson, block, drew))
        elif (
            block.code.alt
            and not block.code.alt_todo  # check lists it; the import wrote it
            and not drew
            and not block.is_figure
            and not _shows_image(output)
            and block.id not in (shows_stored_image or set())
        ):
            errors.append(_no_image_error(lesson, block))
    return errors


def _no_image_error(lesson: Lesson, block: RunnableBlock) -> BuildError:
    """An :alt: describes an image the block shows: a matplotlib figure (imshow too), its
    value's image or SVG, or an image its notebook stored. This block shows none; where the
    lesson draws with a library whose figures are JavaScript, the hint says so."""
    imported = imported_modules(lesson)
    library = next((name for name in _JAVASCRIPT_FIGURES if name in imported), None)
    return BuildError(
        f"{block.label} has an :alt: option but shows no image: it drew no matplotlib "
        "figure and displayed no image",
        lesson.path,
        block.code.line,
        hint=_javascript_hint(_JAVASCRIPT_FIGURES[library]) if library else _NO_IMAGE_HINT,
    )


_NO_IMAGE_HINT = (
    "remove the :alt: line, or make the block show its image: leave the figure open at its "
    "end (do not call plt.close()), end the block with the image as its value "
    "(`Image(...)`), or pass it to the builtin `display()`: not IPython.display's "
    "(`from IPython.display import display`), whose display(Image(...)) outside a notebook "
    "prints the image's name"
)
# Libraries whose figures are JavaScript, which pages do not run: what their figure does
# outside a notebook, and how it becomes an image file a page shows.
_JAVASCRIPT_FIGURES = {
    "plotly": (
        "Plotly's fig.show() shows nothing outside a notebook, and its figure is JavaScript",
        "fig.write_image('scatter.png'), which needs the kaleido package and Chrome",
    ),
    "bokeh": (
        "Bokeh's show() writes an HTML file and opens a browser outside a notebook, and its "
        "figure is JavaScript",
        "bokeh.io.export_png(figure, filename='scatter.png'), which needs selenium and a "
        "browser with its driver",
    ),
    "altair": (
        "an Altair chart shows nothing outside a notebook, and it is JavaScript (Vega)",
        "chart.save('scatter.png'), which needs the vl-convert-python package",
    ),
}


def _javascript_hint(library: tuple[str, str]) -> str:
    shows, saved = library
    return (
        f"{shows}, which pages do not run: draw it with matplotlib, or save it as an image "
        f"({saved}), list that under 'writes:' in the front matter and show it with "
        "![...](scatter.png); or remove the :alt: line"
    )


def _shows_image(output: BlockOutput | None) -> bool:
    """Whether the block's value, or a value it passed to display(), offers an image, which
    its :alt: describes (displays.py)."""
    if output is None:
        return False
    bundles = [output.display_bundle, *(shown.get("bundle") or {} for shown in output.displays)]
    return any(mime.startswith("image/") for bundle in bundles for mime in bundle)


def _alt_error(lesson: Lesson, block: RunnableBlock, drew: int) -> BuildError:
    figures = "a matplotlib figure" if drew == 1 else f"{drew} matplotlib figures"
    return BuildError(
        f"{block.label} draws {figures} but has no text alternative",
        lesson.path,
        block.code.line,
        hint="add ':alt: what the figure shows' on the line after the block's opening ':::' line",
    )
