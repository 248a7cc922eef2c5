"""Flax NNX optimisers as a notebook wrote them before Flax 0.11.

Flax 0.11 changed `nnx.Optimizer`: it no longer keeps the model, so it takes `wrt=` (which
variables it updates) when made and the model on each `update(model, grads)`. Notebooks
of 2024 and early 2025 (jax-ai-stack's, Flax's own NNX guides) write
`nnx.Optimizer(model, tx)` and `optimizer.update(grads)`, and fail at the first with
"Missing required argument `wrt`". Flax keeps the old behaviour under another name,
`nnx.ModelAndOptimizer`, as its error says; so where the installed Flax requires `wrt` and
the lesson never passes it (a lesson that does is written for the new API), the import
writes `ModelAndOptimizer` for each `Optimizer` of `flax.nnx` the lesson names, and says so.
"""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.installedlibrary import installed_library
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import dotted_name, imported_packages, step_nodes

_NNX = "flax.nnx"


def flax_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, `ModelAndOptimizer` for each `flax.nnx.Optimizer` of a lesson that
    never passes `wrt=`, where the installed Flax requires it; the report's lines."""
    if "flax" not in imported_packages(lesson.steps) or not _requires_wrt(installed_library(_NNX)):
        return []
    renames = _optimizer_renames(lesson.steps)
    if renames is None:
        return []
    applied = rename_in_lesson(lesson, renames)
    wheres = {number: where for number, where, _ in lesson.steps}
    return [
        f"{wheres[number]}: step {number} writes {rename.old}, which Flax 0.11 changed "
        "(it takes `wrt=` and the model on each update): the step now writes "
        f"{rename.new}, Flax's name for the optimiser as the notebook used it"
        for number, rename in sorted(applied, key=lambda applied: applied[0])
    ]


def _requires_wrt(nnx: ModuleType | None) -> bool:
    if nnx is None or not hasattr(nnx, "ModelAndOptimizer"):
        return False
    try:
        wrt = inspect.signature(nnx.Optimizer.__init__).parameters.get("wrt")
    except (TypeError, ValueError):  # a signature Python cannot read: say nothing
        return False
    return wrt is not None and wrt.default is inspect.Parameter.empty


def _optimizer_renames(steps: list[tuple[int, str, str]]) -> dict[int, list[Rename]] | None:
    """Each step's renames of `flax.nnx.Optimizer`, as the step writes it (`nnx.Optimizer`,
    `from flax.nnx import Optimizer`); None when any call of it passes `wrt=`."""
    renames: dict[int, list[Rename]] = {}
    for number, _, code, node, bound in step_nodes(steps):
        if _passes_wrt(node, bound):
            return None
        if (rename := _rename(code, node, bound)) and rename not in renames.get(number, []):
            renames.setdefault(number, []).append(rename)
    return renames


def _rename(code: str, node: ast.AST, bound: dict[str, str]) -> Rename | None:
    if (
        isinstance(node, ast.ImportFrom)
        and node.module == _NNX
        and any(alias.name == "Optimizer" for alias in node.names)
    ):
        return Rename(f"from {_NNX} import Optimizer", f"from {_NNX} import ModelAndOptimizer")
    if isinstance(node, ast.Attribute) and node.attr == "Optimizer":
        owner = ast.get_source_segment(code, node.value)
        if owner and dotted_name(node.value, bound) == _NNX:
            return Rename(f"{owner}.Optimizer", f"{owner}.ModelAndOptimizer")
    return None


def _passes_wrt(node: ast.AST, bound: dict[str, str]) -> bool:
    if not isinstance(node, ast.Call) or not any(k.arg == "wrt" for k in node.keywords):
        return False
    return dotted_name(node.func, bound) == f"{_NNX}.Optimizer"
