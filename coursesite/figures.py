"""Turn the figure data a lesson computed into an SVG chart.

The SVG keeps its text as text (searchable, selectable, scalable) and its bytes depend only
on the data, so an unchanged figure rebuilds to an identical file.
"""

from __future__ import annotations

import io
from numbers import Real
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "course-figure",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # Labels are the author's text, not TeX: "cost in $" must not be parsed as math.
    "text.parse_math": False,
}
_KEYS = {"kind", "x", "labels", "series", "xlabel", "ylabel", "separators", "title"}


def figure_problems(data: dict) -> list[str]:
    """Everything wrong with figure data, as messages an author can act on."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        return [f"unknown figure keys {unknown}; allowed: {sorted(_KEYS)}"]
    kind = data.get("kind")
    if kind not in ("line", "bar"):
        return [f"figure kind must be 'line' or 'bar', not {kind!r}"]
    axis = "x" if kind == "line" else "labels"
    positions = data.get(axis)
    if not isinstance(positions, list) or not positions:
        return [f"a {kind} figure needs a non-empty list '{axis}'"]
    series = data.get("series")
    if not isinstance(series, list) or not series:
        return ["a figure needs a non-empty list 'series' of {'label': ..., 'values': [...]}"]
    problems = []
    for index, entry in enumerate(series):
        values = entry.get("values") if isinstance(entry, dict) else None
        if not isinstance(values, list) or not all(_is_number(v) for v in values):
            problems.append(f"series[{index}] needs 'values': a list of numbers")
        elif len(values) != len(positions):
            problems.append(
                f"series[{index}] has {len(values)} values for {len(positions)} '{axis}' entries"
            )
    if kind == "line" and not all(_is_number(v) for v in positions):
        problems.append("'x' of a line figure must be numbers")
    if not all(_is_number(v) for v in data.get("separators", [])):
        problems.append("'separators' must be a list of numbers")
    return problems


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def render_svg(data: dict, description: str) -> str:
    """An SVG drawing of valid figure data (see figure_problems); `description` is its <desc>."""
    # Imported here: matplotlib costs ~0.5 s and most rebuilds draw nothing new.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(figsize=(6.4, 3.4))
        if data["kind"] == "line":
            _draw_lines(axes, data)
        else:
            _draw_bars(axes, data)
        for position in data.get("separators", []):
            axes.axvline(position, color="0.45", linestyle=":", linewidth=1.2)
        axes.set_xlabel(data.get("xlabel", ""))
        axes.set_ylabel(data.get("ylabel", ""))
        if len(data["series"]) > 1:
            # Beside the plot, never over the data.
            axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Description": description})
        plt.close(fig)
    return buffer.getvalue()


def _draw_lines(axes: Axes, data: dict) -> None:
    for entry in data["series"]:
        axes.plot(
            data["x"], entry["values"], marker="o", markersize=4, label=entry.get("label", "")
        )


def _draw_bars(axes: Axes, data: dict) -> None:
    count = len(data["series"])
    width = 0.8 / count
    for index, entry in enumerate(data["series"]):
        offsets = [i + (index - (count - 1) / 2) * width for i in range(len(data["labels"]))]
        axes.bar(offsets, entry["values"], width=width, label=entry.get("label", ""))
    axes.set_xticks(range(len(data["labels"])), data["labels"])
