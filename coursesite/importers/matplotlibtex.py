"""Matplotlib told to set its text with LaTeX where no LaTeX is installed.

A notebook that sets `text.usetex` (QuantEcon's `plt.rc('text', usetex=True)`) was run
where TeX Live was; on a machine without a `latex` program every figure it draws fails to
save ("latex could not be found"), and the build stops at the first. Matplotlib draws the
same `$...$` labels with its own mathtext, so where `latex` is not on the PATH the import
writes `usetex` off, and says so: where the site is built with LaTeX, it can go back on.
"""

from __future__ import annotations

import ast
import re
import shutil

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import code_tree

_SETTING = "text.usetex"


def usetex_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each setting of `text.usetex` to True off where no `latex` program
    is installed; the report's lines, one a step."""
    if shutil.which("latex") is not None:
        return []
    renames: dict[int, list[Rename]] = {}
    for number, _, code in lesson.steps:
        tree = code_tree(code)
        for node in ast.walk(tree) if tree else ():
            if (written := _usetex_on(code, node)) is not None:
                renames.setdefault(number, []).append(Rename(written, _off(written)))
    wheres = {number: where for number, where, _ in lesson.steps}
    return [
        f"{wheres[number]}: step {number} sets Matplotlib's text to LaTeX ({rename.old}), "
        "and no `latex` program is installed here, where every figure would fail to save: "
        f"the step now writes {rename.new}, and Matplotlib's mathtext draws the $...$ "
        "labels; where the site is built with TeX Live, set it back"
        for number, rename in sorted(rename_in_lesson(lesson, renames), key=lambda a: a[0])
    ]


def _usetex_on(code: str, node: ast.AST) -> str | None:
    """What the code writes to turn usetex on, as written on one line: `usetex=True` of
    `rc('text', usetex=True)`, `rcParams['text.usetex'] = True`, `'text.usetex': True` of
    `rcParams.update({...})`; else None."""
    lines = code.splitlines()
    pairs: list[tuple[ast.keyword | ast.expr | ast.stmt, ast.expr]] = []
    if isinstance(node, ast.Call):
        pairs = [(k, k.value) for k in node.keywords if k.arg == "usetex"]
    elif isinstance(node, ast.Dict):
        pairs = [
            (k, v)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None and _is(k, _SETTING)
        ]
    elif isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Subscript) and _is(t.slice, _SETTING) for t in node.targets
    ):
        pairs = [(node, node.value)]
    for start, value in pairs:
        if _is(value, True) and start.lineno == value.end_lineno:
            return lines[start.lineno - 1][start.col_offset : value.end_col_offset]
    return None


def _off(written: str) -> str:
    return re.sub(r"True$", "False", written)


def _is(node: ast.AST | None, value: object) -> bool:
    """Whether `node` is the constant `value` (True is True, not 1)."""
    return (
        isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value
    )
