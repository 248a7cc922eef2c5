"""What NumPy 2 removed, written as NumPy 2 has it, by ruff's NPY201 and NPY001 rules.

NumPy 2.0 took about fifty names out of its main namespace, and 1.24 the aliases of
Python's own types (`np.int` is `int`, which NumPy's error says is safe; NPY001). For some
its error says what to use (renames.py reads "Use `np.str_` instead."); for others it says
only "module 'numpy' has no attribute 'NAN'". Ruff's NPY201 rule carries NumPy's migration
table: the import asks it about the lesson's code, read as one program (the `np` of step 1
is numpy in step 5), and takes its fix for a name the installed NumPy lacks. Where ruff
gives no fix, the replacement behaves differently (`np.in1d` flattens, `np.isin` keeps the
shape): its advice goes into the report, and the author decides.

Ruff's table has names only: NumPy 2 also removed the array method `a.ptp()` (QuantEcon's
match_transport: "'numpy.ndarray' object has no attribute 'ptp'"), whose function
`np.ptp(a)` does the same (for a pandas Series too, which lost its ptp in pandas 2); the
import writes the function where the lesson imports NumPy and the installed one lacks
the method.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from types import ModuleType

from coursesite.execution.consequences import import_aliases
from coursesite.importers.callrewrites import CallRewrite, rewrite_notes
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.rufffindings import ruff_findings


@dataclass(frozen=True)
class Migration:
    old: str  # the use as the code writes it: `np.NAN`
    new: str  # what NumPy 2 has in its place (`np.nan`), or '' where ruff has no fix
    advice: str  # ruff's words: "`np.in1d` will be removed in NumPy 2.0. Use `np.isin` ..."


def numpy_migrations(steps: list[tuple[int, str, str]]) -> dict[tuple[int, int], list[Migration]]:
    """The migrations of the steps (number, cell, code), by (step, line in its code)."""
    codes = {number: code.splitlines() for number, _, code in steps}
    found: dict[tuple[int, int], list[Migration]] = {}
    for finding in ruff_findings(steps, "NPY001,NPY201"):
        if finding.end_column is None:
            continue
        old = codes[finding.step][finding.offset][finding.column : finding.end_column]
        migration = Migration(old, finding.fix, finding.message)
        found.setdefault((finding.step, finding.offset), []).append(migration)
    return found


def numpy_method_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each `a.ptp(...)` of a lesson that imports NumPy as `np.ptp(a,
    ...)` where the installed NumPy lacks the method; the report's lines."""
    aliases = functools.cache(lambda: import_aliases([code for _, _, code in lesson.steps]))
    # A class of the lesson's own with a ptp method: its calls are not NumPy's to rewrite.
    defines_ptp = functools.cache(
        lambda: any(re.search(r"^\s*def ptp\b", code, re.M) for _, _, code in lesson.steps)
    )

    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        numpy = next((name for name, module in aliases().items() if module == "numpy"), None)
        if node.func.attr != "ptp" or numpy is None or defines_ptp():
            return None
        owner = ast.get_source_segment(code, node.func.value)
        function, written = (
            ast.get_source_segment(code, node.func),
            ast.get_source_segment(code, node),
        )
        if not owner or owner == numpy or not function or not written:
            return None  # `np.ptp(a)` is the function itself
        given = written[len(function) :].strip()[1:-1].strip()
        return f"{numpy}.ptp({owner}{', ' + given if given else ''})"

    ptp = CallRewrite("(the array method went in 2.0)", _lacks_ptp_method, rewrite)
    return rewrite_notes(lesson, "numpy", [ptp], "NumPy")


def _lacks_ptp_method(numpy: ModuleType) -> bool:
    return hasattr(numpy, "ptp") and not hasattr(numpy.ndarray, "ptp")
