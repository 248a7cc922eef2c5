"""JAX calls a notebook makes as JAX before 0.3.2 took them.

JAX 0.3.2 removed `jax.ops.index_update(x, jax.ops.index[i], y)` and its kin
(`index_add`, `index_mul`, `index_min`, `index_max`), which notebooks of its first years
call everywhere (NumPyro's Stein and Titanic examples among them); what replaced them is
the `.at` property of arrays: `x.at[i].set(y)` (`.add`, `.multiply`, `.min`, `.max`). A
notebook of that age fails the build with "module 'jax.ops' has no attribute
'index_update'"; so, where the installed JAX lacks them, the import writes the `.at` form,
and says so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType

from coursesite.execution.consequences import import_aliases
from coursesite.importers.callrewrites import CallRewrite, rewrite_notes
from coursesite.importers.importedlesson import ImportedLesson

_UPDATES = {
    "index_update": "set",
    "index_add": "add",
    "index_mul": "multiply",
    "index_min": "min",
    "index_max": "max",
}


def jax_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each `jax.ops.index_*` call of the lesson as the `.at` update the
    installed JAX has; the report's lines."""
    aliases = import_aliases([code for _, _, code in lesson.steps])
    rewrite = CallRewrite(
        "(removed in 0.3.2)",
        _lacks_index_update,
        _at_update(aliases),
    )
    return rewrite_notes(lesson, "jax", [rewrite], "JAX")


def _lacks_index_update(jax: ModuleType) -> bool:
    return not hasattr(getattr(jax, "ops", None), "index_update")


def _at_update(aliases: dict[str, str]) -> Callable[[str, ast.Call], str | None]:
    """`ops.index_update(x, ops.index[i, j], y)` as `x.at[i, j].set(y)`, by the names the
    lesson imported JAX's modules under (a function imported by its own name, `from
    jax.ops import index_update`, would leave an import line that fails: the import
    reports it instead)."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        update = _UPDATES.get(_jax_name(node.func, aliases).removeprefix("jax.ops."), "")
        if not update or len(node.args) != 3 or node.keywords:
            return None
        array, where, value = node.args
        if isinstance(where, ast.Subscript) and _jax_name(where.value, aliases) == "jax.ops.index":
            where = where.slice
        parts = [ast.get_source_segment(code, part) for part in (array, where, value)]
        if None in parts:
            return None
        array_text, where_text, value_text = parts
        if not isinstance(array, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            array_text = f"({array_text})"
        return f"{array_text}.at[{where_text}].{update}({value_text})"

    return rewrite


def _jax_name(node: ast.expr, aliases: dict[str, str]) -> str:
    """`jax.ops.index_update` for what `node` names (`ops.index_update`, `index_update`),
    through the lesson's imports; "" for anything but a dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([aliases.get(node.id, node.id), *parts])
