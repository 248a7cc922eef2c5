"""Modules that draw in a notebook's front end and fail anywhere else, given their portable
twin: `tqdm.notebook` draws its progress bar as a Jupyter widget and, outside a kernel with
ipywidgets, raises as the loop starts; `tqdm.auto` is the same bar, drawn as a widget in a
notebook and as text on stderr where the site is built and in a reader's `python main.py`.

The import rewrites the name where the code imports it or names it whole
(`tqdm.notebook.tqdm(...)`), and says so in the report. The rest of the code is left alone.
"""

from __future__ import annotations

import ast
import re

from coursesite.importers.steplines import alone_on_its_lines, code_tree

# A module by its full name, or a name a module offers (`tqdm.tqdm_notebook`): its twin.
PORTABLE = {"tqdm.notebook": "tqdm.auto", "tqdm.tqdm_notebook": "tqdm.auto.tqdm"}
MODULES = {"tqdm.notebook"}


# `plt.show(fig)`: the inline backend's show takes `close` first, so a notebook's
# `plt.show(plot_acf(x))` draws and shows; every other backend's show takes no positional
# argument and raises TypeError, in the build's main.py and in a reader's run.
_SHOW = ("plt.show", "pyplot.show", "matplotlib.pyplot.show")


def portable_code(code: str) -> tuple[str, list[str]]:
    """`code` with each notebook-only name replaced by its twin, and each `plt.show(x)`
    written as `x` then `plt.show()`; the names replaced."""
    if (tree := code_tree(code)) is None:  # the build names the line
        return code, []
    lines = code.splitlines(keepends=True)
    replaced: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.expr)):
            continue
        for name, old, new in _replacements(node):
            if _rewrite(lines, node, old, new):
                replaced.append(name)
    shows = sorted(_shows_given_a_value(tree, lines), key=lambda node: -node.lineno)
    for show in shows:  # from the last: the lines above stay where they are
        lines[show.lineno - 1] = _show_after(show, lines[show.lineno - 1])
    return "".join(lines), list(dict.fromkeys(replaced + (["plt.show(x)"] if shows else [])))


def _shows_given_a_value(tree: ast.Module, lines: list[str]) -> list[ast.Expr]:
    """The statements `plt.show(x)` alone on a line of their own."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Expr) and isinstance(call := node.value, ast.Call)):
            continue
        if ast.unparse(call.func) not in _SHOW or len(call.args) != 1 or call.keywords:
            continue
        one_line = node.end_lineno == node.lineno and alone_on_its_lines(node, lines)
        if one_line and not isinstance(call.args[0], ast.Starred):
            found.append(node)
    return found


def _show_after(show: ast.Expr, line: str) -> str:
    """`x` (when it is a call: what it draws), then the show of no argument."""
    call = show.value
    assert isinstance(call, ast.Call)
    start, end = show.col_offset, show.end_col_offset or 0
    raw, value = line.encode(), call.args[0]
    indent, rest = raw[:start].decode(), raw[end:].decode()
    written = raw[value.col_offset : value.end_col_offset].decode()  # as the author wrote it
    shown = f"{indent}{written}\n" if isinstance(value, ast.Call) else ""
    return f"{shown}{indent}{ast.unparse(call.func)}(){rest}"


def _replacements(node: ast.AST) -> list[tuple[str, str, str]]:
    """(the notebook-only name, the text to replace, its replacement) in `node`."""
    if isinstance(node, ast.Import):
        return [(a.name, a.name, PORTABLE[a.name]) for a in node.names if a.name in PORTABLE]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        if node.module in PORTABLE:
            return [(node.module, node.module, PORTABLE[node.module])]
        found = []
        for alias in node.names:
            twin = PORTABLE.get(f"{node.module}.{alias.name}")
            if twin:  # `from tqdm import tqdm_notebook`: the twin under the name the code uses
                module, _, name = twin.rpartition(".")
                old, new = f"{node.module} import {alias.name}", f"{module} import {name}"
                renamed = "" if alias.asname else f" as {alias.name}"
                found.append((f"{node.module}.{alias.name}", old, new + renamed))
        return found
    # `tqdm.notebook.tqdm(...)` after `import tqdm.notebook`, which became `import tqdm.auto`.
    if isinstance(node, ast.Attribute) and (written := ast.unparse(node)) in MODULES:
        return [(written, written, PORTABLE[written])]
    return []


def _rewrite(lines: list[str], node: ast.stmt | ast.expr, old: str, new: str) -> bool:
    """Replace `old` (its words apart by any spaces) with `new` on the node's first line
    that has it; whether one had."""
    pattern = re.compile(r"(?<![\w.])" + r"\s+".join(map(re.escape, old.split())) + r"(?!\w)")
    for number in range(node.lineno - 1, getattr(node, "end_lineno", node.lineno) or 0):
        lines[number], count = pattern.subn(new, lines[number], count=1)
        if count:
            return True
    return False


def frontend_notes(where: str, replaced: list[str]) -> list[str]:
    return [
        f"{where}: plt.show(x) is given what to show, which only a notebook's inline "
        "backend takes (as its `close`), and every other backend refuses (TypeError): it "
        "became x (when x draws it) and then plt.show()"
        if name == "plt.show(x)"
        else f"{where}: {name} draws in a notebook's front end and fails anywhere else: it "
        f"became {PORTABLE[name]}, the same progress bar wherever it runs"
        for name in replaced
    ]
