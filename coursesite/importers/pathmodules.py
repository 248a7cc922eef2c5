"""Modules a notebook imports from a folder its own code puts on `sys.path`: Flax's Gemma
guide clones the Flax repository, appends its `examples/gemma` folder to `sys.path`, and
imports `params`, `sampler` and `transformer` from there. Those are no packages to
install: PyPI's `params` or `transformer` are other projects altogether, which `--install`
must never fetch for them, and the build's "pip install params" would send the author
the same wrong way. The import names the folder's modules instead, and what to do.
"""

from __future__ import annotations

import ast

from coursesite.execution.dependencies import modules_imported_by
from coursesite.execution.missingmodules import is_installed
from coursesite.importers.steplines import code_tree

# A call that puts a folder where imports look: sys.path.append/insert/extend, addsitedir.
_ADDS_PATH = ("sys.path.append", "sys.path.insert", "sys.path.extend", "site.addsitedir")


def modules_from_added_paths(steps: list[tuple[int, str, str]]) -> dict[str, tuple[int, str]]:
    """Each module that a step adding a folder to sys.path imports, and that nothing
    installed provides: module -> (the step's number, where it is in the notebook). Only
    that step's: a later step's missing module may well be a package to install."""
    found: dict[str, tuple[int, str]] = {}
    for number, where, code in steps:
        if _adds_path(code):
            for module in sorted(modules_imported_by((code,))):
                if module not in found and not is_installed(module):
                    found[module] = (number, where)
    return found


def _adds_path(code: str) -> bool:
    if (tree := code_tree(code)) is None:
        return False
    return any(
        isinstance(node, ast.Call) and ast.unparse(node.func) in _ADDS_PATH
        for node in ast.walk(tree)
    )
