"""Turn the figure data a lesson computed into an SVG chart.

The SVG keeps its text as text (searchable, selectable, scalable) and its bytes depend only
on the data, so an unchanged figure rebuilds to an identical file. It is sized for the
page's column: at a phone's 375 px, its text shows at 11 CSS px or more.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import textwrap
from numbers import Real
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "course-figure",
    "font.family": "sans-serif",
    "font.size": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # Labels are the author's text, not TeX: "cost in $" must not be parsed as math.
    "text.parse_math": False,
}
# 324 pt wide: a 343 px column (375 px less the page's margins) shows 11 pt text at 11.6 px.
SIZE_INCHES = (4.5, 3.0)
# About how many 11-point characters fit along each axis of a figure of that size: labels
# longer than that are wrapped onto more lines, so that none is cut at the figure's edge or
# runs into its neighbour.
ACROSS, UP = 44, 24
KINDS = ("line", "scatter", "bar", "histogram")
KEYS = (
    "kind",
    "x",
    "labels",
    "series",
    "xlabel",
    "ylabel",
    "separators",
    "title",
    "bins",
    "xscale",
    "yscale",
)
SCALES = ("linear", "log")
SERIES_KEYS = ("label", "values", "style")
STYLES = ("line", "dashed", "markers", "points")
# Series that coincide stay visible: each has its own dash pattern and hollow marker shape.
DASHES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "x")
_POSITIONS = {"line": "x", "scatter": "x", "bar": "labels"}


def figure_problems(data: dict) -> list[str]:
    """Everything wrong with figure data, as messages an author can act on."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        return [f"unknown figure keys {unknown}; allowed: {sorted(KEYS)}"]
    kind = data.get("kind")
    if kind not in KINDS:
        return [f"figure kind must be one of {', '.join(KINDS)}, not {kind!r}"]
    axis = _POSITIONS.get(kind)
    if axis is not None and (not isinstance(data.get(axis), list) or not data[axis]):
        return [f"a {kind} figure needs a non-empty list '{axis}'"]
    series = data.get("series")
    if not isinstance(series, list) or not series:
        return ["a figure needs a non-empty list 'series' of {'label': ..., 'values': [...]}"]
    problems = [p for i, entry in enumerate(series) for p in _series_problems(kind, i, entry)]
    if axis is not None:
        problems += _position_problems(data, kind, axis)
    elif not _is_bins(data.get("bins", 10)):
        problems.append(
            "'bins' of a histogram must be a whole number or a list of increasing edges"
        )
    if not all(_is_number(v) for v in data.get("separators", [])):
        problems.append("'separators' must be a list of numbers")
    return problems + _scale_problems(data, kind)


def _scale_problems(data: dict, kind: str) -> list[str]:
    """A log axis needs positive numbers on it; bars and histograms keep a linear x."""
    problems = []
    for axis in ("xscale", "yscale"):
        scale = data.get(axis, "linear")
        if scale not in SCALES:
            problems.append(f"'{axis}' must be one of {', '.join(SCALES)}, not {scale!r}")
        elif scale == "log" and axis == "xscale" and kind not in ("line", "scatter"):
            problems.append(f"'xscale': log is for line and scatter figures, not {kind}")
    shown = list(data.get("x", [])) if data.get("xscale") == "log" else []
    if data.get("yscale") == "log":
        entries = [entry.get("values") for entry in data["series"] if isinstance(entry, dict)]
        shown += [v for values in entries if isinstance(values, list) for v in values]
    if any(_is_number(v) and v <= 0 for v in shown):
        problems.append("a log axis shows positive numbers only: some values are 0 or below")
    return problems


def _series_problems(kind: str, index: int, entry: object) -> list[str]:
    if not isinstance(entry, dict):
        return [f"series[{index}] must be a dictionary {{'label': ..., 'values': [...]}}"]
    unknown = sorted(set(entry) - set(SERIES_KEYS))
    if unknown:
        return [f"series[{index}] has unknown keys {unknown}; allowed: {list(SERIES_KEYS)}"]
    problems = []
    values = entry.get("values")
    if not isinstance(values, list) or not values or not all(_is_number(v) for v in values):
        problems.append(f"series[{index}] needs 'values': a non-empty list of numbers")
    elif kind == "histogram" and not all(math.isfinite(v) for v in values):
        problems.append(f"series[{index}] of a histogram has values that are not finite")
    style = entry.get("style")
    if style is not None and kind not in ("line", "scatter"):
        problems.append(f"series[{index}] has a 'style', which only line and scatter use")
    elif style is not None and style not in STYLES:
        problems.append(f"series[{index}] has style {style!r}; allowed: {', '.join(STYLES)}")
    return problems


def _position_problems(data: dict, kind: str, axis: str) -> list[str]:
    positions = data[axis]
    problems = []
    if axis == "x" and not all(_is_number(v) for v in positions):
        problems.append(f"'x' of a {kind} figure must be numbers")
    for index, entry in enumerate(data["series"]):
        values = entry.get("values") if isinstance(entry, dict) else None
        if isinstance(values, list) and values and len(values) != len(positions):
            problems.append(
                f"series[{index}] has {len(values)} values for {len(positions)} '{axis}' entries"
            )
    return problems


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _is_bins(value: object) -> bool:
    if isinstance(value, list):
        return (
            len(value) >= 2
            and all(_is_number(v) and math.isfinite(v) for v in value)
            and all(a < b for a, b in itertools.pairwise(value))
        )
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _whole(values: list) -> bool:
    return all(float(v).is_integer() for v in values)


def render_svg(data: dict, description: str) -> str:
    """An SVG drawing of valid figure data (see figure_problems); `description` is its <desc>."""
    buffer = io.StringIO()
    with _drawing(data) as fig:
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Description": description})
    return buffer.getvalue()


def cut_words(data: dict) -> list[str]:
    """The words a drawing of valid figure data still puts past its edges, where the page
    shows them cut: labels are wrapped at spaces, so only a long unbroken word is left."""
    with _drawing(data) as fig:
        return clipped_texts(fig)


@contextlib.contextmanager
def _drawing(data: dict) -> Iterator[Figure]:
    # Imported here: matplotlib costs ~0.5 s and most rebuilds draw nothing new.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(figsize=SIZE_INCHES, layout="constrained")
        draw = {"line": _draw_lines, "scatter": _draw_lines, "bar": _draw_bars}
        draw.get(data["kind"], _draw_histogram)(axes, data)
        for position in data.get("separators", []):
            axes.axvline(position, color="0.45", linestyle=":", linewidth=1.2)
        # After drawing: a log scale replaces the whole-number ticks drawing chose.
        for axis, scale in ((axes.xaxis, data.get("xscale")), (axes.yaxis, data.get("yscale"))):
            if scale == "log":
                _log_axis(axes, axis)
        axes.set_xlabel(fitted(data.get("xlabel", ""), ACROSS))
        if data.get("title"):
            axes.set_title(fitted(data["title"], ACROSS))
        if len(data["series"]) > 1:
            # Under the plot, never over the data; the column is too narrow to put it beside.
            labels = sum(len(str(s.get("label", ""))) for s in data["series"])
            columns = len(data["series"]) if labels <= 36 else 1
            fig.legend(frameon=False, loc="outside lower center", ncols=columns)
        _fit_ylabel(fig, axes, data.get("ylabel", ""))
        try:
            yield fig
        finally:
            plt.close(fig)


def _legend_label(series: dict) -> str:
    return fitted(str(series.get("label", "")), ACROSS)


def _fit_ylabel(fig: Any, axes: Axes, label: str) -> None:
    """The y label on as few lines as fit the height the layout leaves the axes: the
    label runs along the axes, and a longer one is cut at the figure's edges."""
    for width in range(UP, 7, -2):
        axes.set_ylabel(fitted(label, width))
        fig.draw_without_rendering()
        extent = axes.yaxis.label.get_window_extent()
        if extent.y0 >= 0 and extent.y1 <= fig.bbox.height:
            return


def fitted(text: str, width: int) -> str:
    """`text` on lines of at most `width` characters (a longer word keeps its own line)."""
    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) or text


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _log_axis(axes: Axes, axis: Any) -> None:
    """A log scale whose tick labels are text ("10⁻⁷"): matplotlib's own are TeX, which
    figures show as typed (text.parse_math is off for the author's labels)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    (axes.set_xscale if axis is axes.xaxis else axes.set_yscale)("log")
    axis.set_major_formatter(FuncFormatter(lambda value, _: _power_label(value)))
    axis.set_minor_formatter(NullFormatter())


def _power_label(value: float) -> str:
    if value <= 0:
        return ""
    exponent = round(math.log10(value))
    if math.isclose(value, 10.0**exponent, rel_tol=1e-9):
        return "1" if exponent == 0 else "10" + str(exponent).translate(_SUPERSCRIPT)
    return f"{value:g}"


def _integer_ticks(axis: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _draw_lines(axes: Axes, data: dict) -> None:
    default = "points" if data["kind"] == "scatter" else "markers"
    for index, entry in enumerate(data["series"]):
        style = entry.get("style", default)
        dash = "--" if style == "dashed" else DASHES[index % len(DASHES)]
        marker = MARKERS[index % len(MARKERS)] if style in ("markers", "points") else "none"
        axes.plot(
            data["x"],
            entry["values"],
            linestyle="none" if style == "points" else dash,
            marker=marker,
            markersize=5,
            markerfacecolor="none",  # hollow: a marker drawn later does not hide one below
            # Each later series a little thinner, so that one covering another leaves its edge.
            linewidth=max(2.2 - 0.5 * index, 1.0),
            label=_legend_label(entry),
        )
    if _whole(data["x"]):
        _integer_ticks(axes.xaxis)
    if all(_whole(entry["values"]) for entry in data["series"]):
        _integer_ticks(axes.yaxis)


def _draw_bars(axes: Axes, data: dict) -> None:
    count = len(data["series"])
    width = 0.8 / count
    for index, entry in enumerate(data["series"]):
        offsets = [i + (index - (count - 1) / 2) * width for i in range(len(data["labels"]))]
        axes.bar(offsets, entry["values"], width=width, label=_legend_label(entry))
    room = max(ACROSS // len(data["labels"]) - 1, 4)
    axes.set_xticks(range(len(data["labels"])), [fitted(str(t), room) for t in data["labels"]])
    if all(_whole(entry["values"]) for entry in data["series"]):
        _integer_ticks(axes.yaxis)


def _draw_histogram(axes: Axes, data: dict) -> None:
    samples = [entry["values"] for entry in data["series"]]
    whole = all(_whole(values) for values in samples)
    bins = data.get("bins")
    if bins is None and whole:
        # Whole numbers: one bar per value, centred on it, rather than bins that split them.
        low = min(min(values) for values in samples)
        high = max(max(values) for values in samples)
        bins = [v - 0.5 for v in range(int(low), int(high) + 2)] if high - low <= 40 else 10
    for index, entry in enumerate(data["series"]):
        several = len(samples) > 1
        axes.hist(
            entry["values"],
            bins=bins if bins is not None else 10,
            # Several series as outlines with their own dashes, so overlapping ones all show.
            histtype="step" if several else "bar",
            linestyle=DASHES[index % len(DASHES)],
            linewidth=max(2.2 - 0.5 * index, 1.0) if several else 1.0,
            edgecolor=None if several else "white",
            label=_legend_label(entry),
        )
    _integer_ticks(axes.yaxis)  # counts
    if whole:
        _integer_ticks(axes.xaxis)


def clipped_texts(figure):
    """The words of `figure` (titles, labels, tick labels, legend entries, free text) that
    its last drawing put past its edges, where a page shows them cut ("batch 1" of
    "batch 16")."""
    from matplotlib.text import Text

    # Lay the figure out again at its own dpi: saving as SVG placed its text at 72 dpi.
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    edge = figure.bbox
    cut = []
    for text in _drawn_texts(figure, Text):
        words = text.get_text().strip()
        if not words or not text.get_visible() or not text.get_in_layout():
            continue
        box = text.get_window_extent(renderer)
        if box.width and (
            box.x0 < edge.x0 - 1
            or box.x1 > edge.x1 + 1
            or box.y0 < edge.y0 - 1
            or box.y1 > edge.y1 + 1
        ):
            cut.append(words)
    return cut


def _drawn_texts(figure, text_type):
    """The figure's Text artists that its drawing shows: an axis keeps labels for ticks
    outside its limits too, which are never drawn."""
    tick_labels: set = set()
    drawn: list = []
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick_labels.update((tick.label1, tick.label2))
            for tick in axis._update_ticks():  # the ticks within the limits: those drawn
                drawn += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    return [t for t in figure.findobj(text_type) if t not in tick_labels] + drawn
