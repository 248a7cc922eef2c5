"""What NumPy 2 removed, written as NumPy 2 has it, by ruff's NPY201 and NPY001 rules.

NumPy 2.0 took about fifty names out of its main namespace, and 1.24 the aliases of
Python's own types (`np.int` is `int`, which NumPy's error says is safe; NPY001). For some
its error says what to use (renames.py reads "Use `np.str_` instead."); for others it says
only "module 'numpy' has no attribute 'NAN'". Ruff's NPY201 rule carries NumPy's migration
table: the import asks it about the lesson's code, read as one program (the `np` of step 1
is numpy in step 5), and takes its fix for a name the installed NumPy lacks. Where ruff
gives no fix, the replacement behaves differently (`np.in1d` flattens, `np.isin` keeps the
shape): its advice goes into the report, and the author decides.
"""

from __future__ import annotations

from dataclasses import dataclass

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
