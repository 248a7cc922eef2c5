"""Code that asks JAX for an accelerator by name, where JAX has none.

NumPyro's notebooks start with `numpyro.set_platform("gpu")`, others with
`jax.config.update("jax_platforms", "cuda")` or `jax.devices("gpu")`, or compile for one
(`jax.jit(f, backend="gpu")`). Where JAX sees only
CPUs each fails at once ("Invalid platform 'gpu'", "Unknown backend"), and every step after
it that needs what it set up. The import names each at its line before any build, when
the JAX installed here lacks that platform: the machine that builds the site may be
another, so the report says where it fails and what to do, and changes nothing.
"""

from __future__ import annotations

import ast

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.steplines import (
    dotted_name,
    imported_packages,
    lesson_line,
    step_nodes,
)

_ACCELERATORS = {"gpu", "cuda", "rocm", "tpu"}
_PLATFORM_OPTIONS = {"jax_platforms", "jax_platform_name"}
# Calls whose first argument names a platform.
_PLATFORM_CALLS = {"numpyro.set_platform", "numpyro.util.set_platform", "jax.devices"}


def accelerator_notes(lesson: ImportedLesson) -> list[str]:
    """A line of the report for each step that asks JAX for a platform it lacks here."""
    if not imported_packages(lesson.steps) & {"jax", "numpyro"}:
        return []
    notes: list[str] = []
    for number, where, code, node, bound in step_nodes(lesson.steps):
        if not isinstance(node, ast.Call) or not (platform := _asked_platform(node, bound)):
            continue
        if not _jax_has(platform):
            written = ast.get_source_segment(code, node) or platform
            line = lesson_line(lesson.text, number, node.lineno - 1)
            notes.append(
                f"{where}, lesson line {line}: step {number} asks JAX for {platform} devices "
                f"({written}), which JAX here does not have: where the site is built without "
                "them the step fails, and the steps that need it with it; declare the "
                "hardware (`hardware: gpu` in the front matter) and build where it is, or "
                "write the step for the CPU"
            )
    return notes


def _asked_platform(node: ast.Call, bound: dict[str, str]) -> str:
    """The accelerator a call asks for by name (`set_platform("gpu")`), or ''."""
    called, arguments = dotted_name(node.func, bound), node.args
    if called == "jax.config.update" and len(arguments) == 2:
        option, platform = arguments
        if not (isinstance(option, ast.Constant) and option.value in _PLATFORM_OPTIONS):
            return ""
    elif called in _PLATFORM_CALLS and arguments:
        platform = arguments[0]
    elif backend := _backend_keyword(node, called, bound):
        platform = backend
    else:
        return ""
    if not isinstance(platform, ast.Constant) or not isinstance(platform.value, str):
        return ""
    names = [name.strip().lower() for name in platform.value.split(",")]
    return platform.value if names and all(name in _ACCELERATORS for name in names) else ""


def _backend_keyword(node: ast.Call, called: str, bound: dict[str, str]) -> ast.expr | None:
    """The `backend=` of a JAX transformation (`jax.jit(f, backend="gpu")`), also through
    `partial(jax.jit, backend="gpu")` (tinygp's benchmarks), or None."""
    if called in ("functools.partial", "partial") and node.args:
        called = dotted_name(node.args[0], bound)
    if not called.startswith("jax."):
        return None
    return next((k.value for k in node.keywords if k.arg == "backend"), None)


def _jax_has(platform: str) -> bool:
    try:
        import jax

        return bool(jax.devices(platform.split(",")[0].strip()))
    except Exception:  # no such backend here, or no JAX at all: it has none
        return False
