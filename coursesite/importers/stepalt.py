"""The text alternative an imported step gets for the images it shows (issue #26).

A step's `:alt:` describes every image it shows: a figure it draws, an image it displays
(IPython's `Image` or `SVG`, a Pillow image, an object's `_repr_png_`), an image its
notebook stored. The import takes it from the cell's MyST-NB options (celloptions.figure_alt)
or writes the TODO placeholder, which the build accepts and `build.py check` lists; it never
writes one the build would refuse: options describing an image that the cell's stored run
did not show, or whose code shows none where nothing is stored (a caption on a table), are
left out, and the report says so.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable

from coursesite.importers.datafiles import called_name
from coursesite.importers.notebookcells import Cell
from coursesite.importers.steplines import code_tree
from coursesite.lesson.completeness import PLACEHOLDER

ALT_PLACEHOLDER = f"{PLACEHOLDER} what the figure shows"

# Code that plots or shows an image: where a notebook stores no outputs for a cell (a MyST
# notebook never does), this is all there is to tell whether it draws. Any call named for a
# plot (SymPy's `plot(f)` and `plot3d_parametric_line(...)`, seaborn's `lineplot`), any
# draw (NetworkX's `nx.draw_planar(G)`) and any `.show()` may draw through a library's own
# matplotlib: a placeholder where nothing is drawn costs a line of `build.py check`, a
# missing one a refused build.
_SHOWS_IMAGE = re.compile(
    r"\b(?:plt|pyplot|matplotlib|Image|SVG)\b|\.(?:plot|imshow|scatter|hist|bar)\("
    r"|_repr_(?:png|jpeg|svg)_|\b\w*plot\w*\s*\(|\bdraw(?:_\w+)?\s*\(|\.show\(\)"
)


def stored_anything(cell: Cell) -> bool:
    return bool(cell.stdout or cell.display or cell.stderr.strip() or cell.rich)


def step_alt(cell: Cell, code: str, drawers: frozenset[str] = frozenset()) -> str:
    """The step's `:alt:` text: the notebook's, else the placeholder; "" when the step
    needs none. A placeholder the code does not need is listed by check, not refused.
    `drawers` are the functions of the notebook's own that may draw (drawing_functions)."""
    if cell.drew:
        return cell.alt or ALT_PLACEHOLDER
    may_show = _may_show(code, drawers)
    if cell.alt and not stored_anything(cell):  # no stored run: the code says what it shows
        return cell.alt if may_show else ""
    return ALT_PLACEHOLDER if may_show else ""


def drawing_functions(codes: Iterable[str]) -> frozenset[str]:
    """The functions the steps `codes` define that may draw: their body plots, or calls
    one that does (`plot_fractal(output)` shows what an earlier step's function draws)."""
    defined = [function for code in codes for function in _functions(code)]
    drawers: set[str] = set()
    while True:
        more = {
            name
            for name, body, called in defined
            if name not in drawers and (_SHOWS_IMAGE.search(body) or called & drawers)
        }
        if not more:
            return frozenset(drawers)
        drawers |= more


@functools.lru_cache(maxsize=4096)
def _functions(code: str) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """Each function `code` defines: its name, its source, the names it calls or uses."""
    if (tree := code_tree(code)) is None:
        return ()
    return tuple(
        (node.name, ast.get_source_segment(code, node) or "", _used(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def _used(tree: ast.AST) -> frozenset[str]:
    """The names `tree` calls, and those it reads: a function handed on is called by what
    takes it (ipywidgets' `interact(draw_basin, rho=(0, 1))` draws at once)."""
    names = {called_name(node) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    names |= {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return frozenset(names) - {""}


def _may_show(code: str, drawers: frozenset[str]) -> bool:
    if _SHOWS_IMAGE.search(_drawing_part(code)):
        return True
    if not drawers:
        return False
    return (tree := code_tree(code)) is not None and bool(_used(tree) & drawers)


# Statements that set matplotlib up without drawing: `import matplotlib.pyplot as plt`,
# `plt.rcParams["figure.figsize"] = (11, 5)`, `plt.style.use(...)`, `matplotlib.use(...)`.
_SETUP = re.compile(r"^(?:\w+\.)*(?:rcParams(?:\[.*\])?(?:\.update)?|style\.use|use|rc)\b")


def _drawing_part(code: str) -> str:
    """`code` without its top-level imports, matplotlib settings and function definitions,
    which draw nothing: a function draws when called (`drawers` tell a call of one that
    does). A class stays: its `_repr_png_` is how its instances show as images."""
    if (tree := code_tree(code)) is None:
        return code
    kept = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        target = node.targets[0] if isinstance(node, ast.Assign) and node.targets else None
        call = node.value if isinstance(node, ast.Expr) else None
        subject = target if target is not None else getattr(call, "func", None)
        if subject is not None and _SETUP.match(ast.unparse(subject)):
            continue
        kept.append(ast.get_source_segment(code, node) or "")
    return "\n".join(kept)


def alt_notes(cell: Cell, code: str, drawers: frozenset[str] = frozenset()) -> list[str]:
    """Report lines: the step's alt text to write, and the notebook's left out."""
    alt, notes = step_alt(cell, code, drawers), []
    if cell.alt and alt != cell.alt:
        why = "its stored run showed none" if stored_anything(cell) else "its code shows none"
        notes.append(
            f"{cell.where}: its MyST-NB options describe an image ({cell.alt!r}), but {why}: "
            "the text is left out of the step's :alt:, which describes images only"
        )
    if alt == ALT_PLACEHOLDER:  # one line for all such cells (reportnotes.py): no step number
        notes.append(
            f"{cell.where}: it {'shows' if cell.drew else 'may show'} a figure or image: "
            f"describe it in its step's :alt: option, now '{ALT_PLACEHOLDER}' (`build.py "
            "check` lists each)"
        )
    return notes
