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

from coursesite.importers.steplines import code_tree

# A module by its full name, or a name a module offers (`tqdm.tqdm_notebook`): its twin.
PORTABLE = {"tqdm.notebook": "tqdm.auto", "tqdm.tqdm_notebook": "tqdm.auto.tqdm"}
MODULES = {"tqdm.notebook"}


def portable_code(code: str) -> tuple[str, list[str]]:
    """`code` with each notebook-only name replaced by its twin; the names replaced."""
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
    return "".join(lines), list(dict.fromkeys(replaced))


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
        f"{where}: {name} draws in a notebook's front end and fails anywhere else: it became "
        f"{PORTABLE[name]}, the same progress bar wherever it runs"
        for name in replaced
    ]
