"""pandas calls a notebook makes as pandas before 3.0 took them.

pandas 2.1 deprecated `fillna(method='ffill')` for `ffill()` (and `'bfill'` for `bfill()`),
and pandas 3.0 removed the keyword: a notebook of that age fails the build with
"fillna() got an unexpected keyword argument 'method'". The two calls do the same, so the
import writes the one the installed pandas takes, and says so.
"""

from __future__ import annotations

import ast
import importlib
import inspect

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import imported_packages

_FILLERS = {"ffill": "ffill", "pad": "ffill", "bfill": "bfill", "backfill": "bfill"}


def pandas_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each `fillna(method=...)` of a lesson that imports pandas as the
    installed pandas takes it; the report's lines, one a step and call."""
    if "pandas" not in imported_packages(lesson.steps) or not _method_removed():
        return []
    renames: dict[int, list[Rename]] = {}
    for number, _, code in lesson.steps:
        renames[number] = [Rename(old, new) for old, new in _fillna_calls(code)]
    applied = rename_in_lesson(lesson, renames)
    wheres = {number: where for number, where, _ in lesson.steps}
    return [
        f"{wheres[number]}: step {number} calls {rename.old}, which pandas 3 no longer takes "
        f"(deprecated in 2.1): the step now calls {rename.new}, which does the same"
        for number, rename in sorted(applied, key=lambda applied: applied[0])
    ]


def _method_removed() -> bool:
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:  # no pandas here: none of its calls to write
        return False
    return "method" not in inspect.signature(pandas.DataFrame.fillna).parameters


def _fillna_calls(code: str) -> list[tuple[str, str]]:
    """(the call as written, as the installed pandas takes it) of each one-line
    `X.fillna(method='ffill', ...)` of the code."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "fillna"
            and not node.args
            and node.lineno == node.end_lineno
        ):
            continue
        method = next((k for k in node.keywords if k.arg == "method"), None)
        if method is None or not isinstance(method.value, ast.Constant):
            continue
        filler = _FILLERS.get(str(method.value.value))
        written = ast.get_source_segment(code, node)
        owner = ast.get_source_segment(code, node.func.value)
        if filler is None or written is None or owner is None:
            continue
        kept = ", ".join(ast.unparse(k) for k in node.keywords if k is not method)
        found.append((written, f"{owner}.{filler}({kept})"))
    return found
