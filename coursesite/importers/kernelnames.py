"""Names a notebook's kernel gave its cells that no cell defines: IPython's pylab mode.

Notebooks of IPython's early years ran in a kernel started with `--pylab`, which gave every
cell `np` and `plt` without an import (statsmodels' regression_diagnostics draws with
`plt.subplots` and imports no pyplot). The lesson's main.py has no such kernel: the build
would stop at the first use with a NameError. Where no cell binds the name and no cell
star-imports (which may bind it), the import writes the import pylab made at the top of the
first cell that runs and uses it, and says so.
"""

from __future__ import annotations

import ast
import re

from coursesite.execution.consequences import names_read, tree_bindings
from coursesite.importers.magics import with_ipython_lines_as_pass
from coursesite.importers.notebookcells import Cell
from coursesite.importers.python2 import as_python3
from coursesite.importers.steplines import code_tree

# What IPython's pylab mode bound in every cell (pylabtools.import_pylab).
PYLAB_IMPORTS = {"np": "import numpy as np", "plt": "import matplotlib.pyplot as plt"}
_NOT_RUN = ("remove-cell", "skip-execution")
_PYLAB_MAGIC = re.compile(r"^\s*%pylab\b", re.M)


def kernel_name_imports(cells: list[Cell]) -> list[str]:
    """Writes, in place, the pylab import of each name the code cells use and never bind
    at the top of the first cell that uses it; the report's lines."""
    code = [cell for cell in cells if cell.kind == "code"]
    if any(_PYLAB_MAGIC.search(cell.source) for cell in code):
        return []  # `%pylab` is written as its imports (magics.py)
    trees = [(cell, _tree(cell.source)) for cell in code]
    bound: set[str] = set()
    for _, tree in trees:
        if tree is not None and _star_imports(tree):
            return []  # a star import may bring either name
        bound |= _bound(tree) if tree else set()
    notes: list[str] = []
    written: dict[int, tuple[Cell, list[str]]] = {}
    for name, line in PYLAB_IMPORTS.items():
        users = (cell for cell, tree in trees if tree and name in names_read(tree))
        first = next((cell for cell in users if not set(cell.tags) & set(_NOT_RUN)), None)
        if name in bound or first is None:
            continue
        written.setdefault(id(first), (first, []))[1].append(line)
        notes.append(
            f"{first.where}: it uses {name}, which no cell defines or imports: the notebook "
            "had it from its kernel (IPython's pylab mode gave every cell np and plt); "
            f"`{line}` was written at the top of the cell"
        )
    for cell, lines in written.values():  # in pylab's order: numpy first
        cell.source = _with_imports(cell.source, lines)
    return notes


def _with_imports(source: str, imports: list[str]) -> str:
    """`source` with `imports` at its top; under a cell magic's line (`%%time`), which
    must stay the first."""
    if not source.lstrip().startswith("%%"):
        return "\n".join([*imports, source])
    magic, _, rest = source.partition("\n")
    return "\n".join([magic, *imports, rest])


def _tree(source: str) -> ast.Module | None:
    code = with_ipython_lines_as_pass(source)
    return code_tree(code) or code_tree(as_python3(code))


def _star_imports(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in ast.walk(tree)
    )


def _bound(tree: ast.Module) -> set[str]:
    """Every name the code binds, at any level; a parameter or a `del` target named np
    counts too (conservative: the name is then the code's own)."""
    names = {name for name, _ in tree_bindings(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
            names.add(node.id)
    return names
