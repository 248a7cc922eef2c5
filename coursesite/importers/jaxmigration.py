"""JAX calls a notebook makes as older JAX took them.

JAX 0.3.2 removed `jax.ops.index_update(x, jax.ops.index[i], y)` and its kin
(`index_add`, `index_mul`, `index_min`, `index_max`), which notebooks of its first years
call everywhere (NumPyro's Stein and Titanic examples among them); what replaced them is
the `.at` property of arrays: `x.at[i].set(y)` (`.add`, `.multiply`, `.min`, `.max`). A
notebook of that age fails the build with "module 'jax.ops' has no attribute
'index_update'"; so, where the installed JAX lacks them, the import writes the `.at` form,
and says so. Likewise `jnp.clip(x, a_min=0, a_max=1)`, NumPy's keywords, which JAX
renamed `min=` and `max=` (deprecated in 0.4.27, since removed).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from types import ModuleType

from coursesite.importers.callrewrites import CallRewrite, rewrite_notes, spliced
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.steplines import bound_modules, code_tree, dotted_name

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
    bound: dict[str, str] = {}
    for _, _, code in lesson.steps:
        bound |= bound_modules(tree) if (tree := code_tree(code)) else {}
    rewrites = [
        CallRewrite("(removed in 0.3.2)", _lacks_index_update, _at_update(bound)),
        CallRewrite(
            "(renamed min= and max= in 0.4.27)", _lacks_a_min, _clip_bounds(bound), lines_too=True
        ),
    ]
    return rewrite_notes(lesson, "jax", rewrites, "JAX")


def _lacks_index_update(jax: ModuleType) -> bool:
    return not hasattr(getattr(jax, "ops", None), "index_update")


def _lacks_a_min(jax: ModuleType) -> bool:
    try:
        return "a_min" not in inspect.signature(jax.numpy.clip).parameters
    except (AttributeError, TypeError, ValueError):
        return False


def _clip_bounds(bound: dict[str, str]) -> Callable[[str, ast.Call], str | None]:
    """`jnp.clip(x, a_min=0, a_max=1)` as `jnp.clip(x, min=0, max=1)`, the rest as written."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        written = ast.get_source_segment(code, node)
        if dotted_name(node.func, bound) != "jax.numpy.clip" or written is None:
            return None
        renamed = {
            keyword: f"{keyword.arg[2:]}={ast.get_source_segment(code, keyword.value)}"
            for keyword in node.keywords
            if keyword.arg in ("a_min", "a_max")
        }
        return spliced(written, node, renamed) if renamed else None

    return rewrite


def _at_update(bound: dict[str, str]) -> Callable[[str, ast.Call], str | None]:
    """`ops.index_update(x, ops.index[i, j], y)` as `x.at[i, j].set(y)`, by the names the
    lesson imported JAX's modules under (a function imported by its own name, `from
    jax.ops import index_update`, would leave an import line that fails: the import
    reports it instead)."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        module, _, name = dotted_name(node.func, bound).rpartition(".")
        update = _UPDATES.get(name, "") if module == "jax.ops" else ""
        if not update or len(node.args) != 3 or node.keywords:
            return None
        array, where, value = node.args
        if isinstance(where, ast.Subscript) and dotted_name(where.value, bound) == "jax.ops.index":
            where = where.slice
        parts = [ast.get_source_segment(code, part) for part in (array, where, value)]
        if None in parts:
            return None
        array_text, where_text, value_text = parts
        if not isinstance(array, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            array_text = f"({array_text})"
        return f"{array_text}.at[{where_text}].{update}({value_text})"

    return rewrite
