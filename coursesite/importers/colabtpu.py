"""Colab's old TPU setup, as notebooks of JAX before 0.4 wrote it.

`import jax.tools.colab_tpu` and `jax.tools.colab_tpu.setup_tpu()` connected a Colab
notebook to the TPU driver Colab had then. JAX 0.4 dropped that driver and the module with
it (a TPU runtime is found without any setup now), so on the installed JAX the import
fails, even inside the notebooks' own `try: ... except (KeyError, RuntimeError)`, and every
step after it fails for want of the names that step defined. Where the installed JAX lacks
the module, the import writes the step as it runs on JAX now: the import becomes
`import jax` (the name it bound), the setup call goes (or becomes `pass` where it was all
its block held), and the report says so.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.steplines import (
    alone_on_its_lines,
    dotted_name,
    lesson_line,
    step_nodes,
)

_MODULE = "jax.tools.colab_tpu"


@dataclass(frozen=True)
class _Edit:
    first: int  # the statement's lines in the step's code, from 0
    last: int
    written: str | None  # what it becomes (its indentation added), None: nothing


def colab_tpu_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each step's Colab TPU setup as the installed JAX runs it; the
    report's lines."""
    if not _dropped():
        return []
    edits = _edits(lesson)
    if not edits:
        return []
    text = lesson.text.splitlines(keepends=True)
    steps = {number: (where, code) for number, where, code in lesson.steps}
    for number in sorted(edits, reverse=True):  # a later step's lines first: earlier stay put
        where, code = steps[number]
        start = lesson_line(lesson.text, number, 0) - 1
        lines = code.splitlines(keepends=True)
        for edit in sorted(edits[number], key=lambda edit: edit.first, reverse=True):
            indent = lines[edit.first][: len(lines[edit.first]) - len(lines[edit.first].lstrip())]
            new = [f"{indent}{edit.written}\n"] if edit.written else []
            lines[edit.first : edit.last + 1] = new
            text[start + edit.first : start + edit.last + 1] = new
        steps[number] = (where, "".join(lines))  # never empty: its block keeps a `pass`
    lesson.text = "".join(text)
    lesson.steps = [(number, *steps[number]) for number, _, _ in lesson.steps]
    lesson.code = [code for _, _, code in lesson.steps]
    return [
        f"{steps[number][0]}: step {number} sets up Colab's TPU driver ({_MODULE}), which "
        "JAX dropped in 0.4 (a TPU is found without it): its lines of that setup are written "
        "as the installed JAX runs them (import jax; no setup_tpu() call)"
        for number in sorted(edits)
    ]


def _dropped() -> bool:
    try:
        return importlib.util.find_spec("jax") is not None and not importlib.util.find_spec(_MODULE)
    except (ImportError, ValueError):  # a JAX that fails to import: the build says
        return False


def _edits(lesson: ImportedLesson) -> dict[int, list[_Edit]]:
    """The statements of each step that set up Colab's TPU, each a whole line of its own."""
    edits: dict[int, list[_Edit]] = {}
    for number, _, code, node, bound in step_nodes(lesson.steps):
        lines = code.splitlines()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            found = [
                statement
                for statement in block
                if _is_setup(statement, bound) and alone_on_its_lines(statement, lines)
            ]
            kept = len(block) - len(found)
            for statement in found:
                written = "import jax" if _binds_jax(statement) else None
                if written is None and kept == 0:  # a block may not be empty
                    written, kept = "pass", 1
                assert statement.end_lineno is not None
                edit = _Edit(statement.lineno - 1, statement.end_lineno - 1, written)
                edits.setdefault(number, []).append(edit)
                kept += written is not None
    return edits


def _is_setup(statement: ast.stmt, bound: dict[str, str]) -> bool:
    if isinstance(statement, ast.Import):
        return all(alias.name == _MODULE for alias in statement.names)
    if isinstance(statement, ast.ImportFrom):
        return statement.module == "jax.tools" and all(
            alias.name == "colab_tpu" for alias in statement.names
        )
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and dotted_name(statement.value.func, bound) == f"{_MODULE}.setup_tpu"
    )


def _binds_jax(statement: ast.stmt) -> bool:
    """`import jax.tools.colab_tpu` binds `jax`, which later lines may use."""
    return isinstance(statement, ast.Import) and all(not a.asname for a in statement.names)
