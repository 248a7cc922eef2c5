"""Matplotlib calls a notebook makes as Matplotlib before 3.6 took them.

`fig.gca(projection='3d')` made (or found) the figure's axes of that projection; Matplotlib
3.4 deprecated gca's arguments and 3.6 removed them, so a notebook of that age (QuantEcon's
geometric series lecture) fails with "gca() got an unexpected keyword argument
'projection'". `fig.add_subplot(projection='3d')` makes those axes, and
`plt.subplot(projection='3d')` on pyplot's current figure. `hist(normed=True)`, which 3.1
removed, is `hist(density=True)`; `plot(x, y, linestyle='steps')` is `plot(x, y,
drawstyle='steps')`; `boxplot(labels=)`, which 3.9 renamed and 3.11 removed, is
`boxplot(tick_labels=)`; `cm.get_cmap(name)`, which 3.9 removed, is pyplot's `plt.get_cmap(name)`;
`del ax.lines[0]`, which 3.7 refused (an axes' artists are a read-only list now), is
`ax.lines[0].remove()`; `ax2._get_lines.prop_cycler = ax._get_lines.prop_cycler`, twin
axes sharing one colour cycle through a private attribute 3.8 removed, is
`ax2._get_lines = ax._get_lines`, which shares it still.
Where the installed Matplotlib lacks the old call, the import writes the new one, and says so.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Callable
from types import ModuleType

from coursesite.execution.consequences import import_aliases
from coursesite.importers.callrewrites import CallRewrite, call_of, renamed_keyword, rewrite_notes
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.installedlibrary import installed_library

_PYPLOT = ("plt", "pyplot", "matplotlib.pyplot")


def matplotlib_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each call of a lesson that imports Matplotlib that the installed
    Matplotlib no longer takes as it takes it now; the report's lines."""
    # Read only where a lesson that imports Matplotlib calls a get_cmap.
    aliases = functools.cache(lambda: import_aliases([code for _, _, code in lesson.steps]))
    rewrites = [*_REWRITES, _colormap_rewrite(aliases)]
    return rewrite_notes(lesson, "matplotlib", rewrites, "Matplotlib", load=_matplotlib)


def _matplotlib() -> ModuleType | None:
    """Matplotlib, with the modules of its figures and axes loaded."""
    loaded = [installed_library(f"matplotlib.{part}") for part in ("axes", "figure", "lines")]
    return installed_library("matplotlib") if all(loaded) else None


def _gca(code: str, node: ast.Call) -> str | None:
    """`fig.gca(projection='3d')` as `fig.add_subplot(projection='3d')`; pyplot's as
    `plt.subplot(...)`, which finds the current figure's axes of those arguments or makes
    them, as gca did."""
    assert isinstance(node.func, ast.Attribute)
    if node.func.attr != "gca" or node.args or not node.keywords:
        return None
    owner = ast.get_source_segment(code, node.func.value)
    name = "subplot" if owner in _PYPLOT else "add_subplot"
    return call_of(code, node, name, [ast.unparse(keyword) for keyword in node.keywords])


def _gca_takes_nothing(matplotlib: ModuleType) -> bool:
    return set(inspect.signature(matplotlib.figure.FigureBase.gca).parameters) <= {"self"}


def _hist_lacks_normed(matplotlib: ModuleType) -> bool:
    return "normed" not in inspect.signature(matplotlib.axes.Axes.hist).parameters


def _boxplot_lacks_labels(matplotlib: ModuleType) -> bool:
    return "labels" not in inspect.signature(matplotlib.axes.Axes.boxplot).parameters


def _steps_drawstyle(keyword: ast.keyword) -> str | None:
    """`linestyle='steps-mid'` as `drawstyle='steps-mid'`: a line of steps was a line
    style until Matplotlib 3.3 took it only as a draw style (solid, the default style)."""
    value = keyword.value
    if isinstance(value, ast.Constant) and str(value.value).startswith("steps"):
        return f"drawstyle={value.value!r}"
    return None


def _steps_no_linestyle(matplotlib: ModuleType) -> bool:
    try:
        matplotlib.lines.Line2D([], [], linestyle="steps")
    except ValueError:
        return True
    return False


def _colormap_rewrite(aliases: Callable[[], dict[str, str]]) -> CallRewrite:
    """`cm.get_cmap(name, lut)`, which 3.9 removed, as pyplot's `plt.get_cmap(name, lut)`,
    which takes the same arguments and gives the same colormap, where the lesson imports
    pyplot; the module the call is made on is read through the lesson's imports (`cm`,
    `plt.cm`, `matplotlib.cm`, `mpl.cm`)."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        if node.func.attr != "get_cmap":
            return None
        imported = aliases()
        pyplot = next((name for name, module in imported.items() if module == _PYPLOT[-1]), None)
        owner = ast.get_source_segment(code, node.func.value) or ""
        first, _, rest = owner.partition(".")
        module = ".".join(filter(None, [imported.get(first, first), rest]))
        if pyplot is None:
            return None
        if module not in ("matplotlib.cm", "matplotlib.pyplot.cm"):
            return None
        function, written = (
            ast.get_source_segment(code, node.func),
            ast.get_source_segment(code, node),
        )
        if function is None or written is None:
            return None
        return f"{pyplot}.get_cmap{written[len(function) :]}"

    return CallRewrite("(it went in 3.9)", _cm_lacks_get_cmap, rewrite, "which gives the same")


def _cm_lacks_get_cmap(matplotlib: ModuleType) -> bool:
    return not hasattr(matplotlib.cm, "get_cmap")


# The lists of an axes' artists by kind, which Matplotlib 3.5 made read-only views.
_ARTIST_LISTS = ("lines", "patches", "texts", "collections", "images", "artists", "tables")


# What the code calls an axes: `ax`, `ax2`, `axes[0]`, `axs[1, 0]`, `plt.gca()`. A list
# named `lines` is common enough elsewhere (a page's, a poem's) to rewrite no other's.
_AXES = re.compile(r"(?:\bax\w*|\baxs?\b|\baxes\b|\bgca\(\))(?:\[[^\]]*\])?$")


def _deleted_artist(code: str, node: ast.Delete) -> str | None:
    """`del ax.lines[0]` as `ax.lines[0].remove()`, on what the code calls an axes; a
    slice (`del ax.lines[1:]`), which names no one artist, is left to the build's error."""
    target = node.targets[0]
    assert isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
    if target.value.attr not in _ARTIST_LISTS or isinstance(target.slice, ast.Slice):
        return None
    owner = ast.get_source_segment(code, target.value.value) or ""
    written = ast.get_source_segment(code, target)
    return f"{written}.remove()" if written and _AXES.search(owner) else None


def _artists_undeletable(matplotlib: ModuleType) -> bool:
    artists = getattr(getattr(matplotlib.axes, "Axes", None), "ArtistList", None)
    return artists is not None and not hasattr(artists, "__delitem__")


def _shared_cycler(code: str, node: ast.Assign) -> str | None:
    """`a._get_lines.prop_cycler = b._get_lines.prop_cycler` as `a._get_lines =
    b._get_lines`: the twin axes draw from one colour cycle, as they did."""
    target, value = node.targets[0], node.value
    if not all(
        isinstance(side, ast.Attribute)
        and side.attr == "prop_cycler"
        and isinstance(side.value, ast.Attribute)
        and side.value.attr == "_get_lines"
        for side in (target, value)
    ):
        return None
    assert isinstance(target, ast.Attribute) and isinstance(value, ast.Attribute)
    left = ast.get_source_segment(code, target.value)
    right = ast.get_source_segment(code, value.value)
    return f"{left} = {right}" if left and right else None


def _cycler_private_gone(matplotlib: ModuleType) -> bool:
    # Before 3.8, set_prop_cycle kept the cycle as self.prop_cycler: a name its code uses.
    lines = getattr(getattr(matplotlib.axes, "_base", None), "_process_plot_var_args", None)
    code = getattr(getattr(lines, "set_prop_cycle", None), "__code__", None)
    return code is not None and "prop_cycler" not in code.co_names


_REWRITES = [
    CallRewrite(
        "(the colour cycle's private prop_cycler went in 3.8)",
        _cycler_private_gone,
        _shared_cycler,
        "which shares the colour cycle between the axes as before",
        of=ast.Assign,
    ),
    CallRewrite(
        "(its artist lists are read-only since 3.7)",
        _artists_undeletable,
        _deleted_artist,
        "which removes that artist from its axes",
        of=ast.Delete,
    ),
    CallRewrite("(its arguments went in 3.6)", _gca_takes_nothing, _gca),
    CallRewrite(
        "(normed= went in 3.1)",
        _hist_lacks_normed,
        renamed_keyword(("hist",), "normed", lambda k: f"density={ast.unparse(k.value)}"),
    ),
    CallRewrite(
        "(labels= is tick_labels= since 3.9)",
        _boxplot_lacks_labels,
        renamed_keyword(("boxplot",), "labels", lambda k: f"tick_labels={ast.unparse(k.value)}"),
        "which names the boxes as before",
        lines_too=True,  # a keyword written in place: a call over several lines too
    ),
    *(
        CallRewrite(
            "(a draw style only, since 3.3)",
            _steps_no_linestyle,
            renamed_keyword(("plot",), written, _steps_drawstyle),
            "which draws the same steps",
        )
        for written in ("linestyle", "ls")
    ),
]
