"""Names a step uses that no step before it defines or imports, found by the import.

A notebook's kernel may hold a name no cell of the notebook defines any more (a cell run
and then deleted, an import made in another notebook of the kernel, a file `:load:`ed that
expects an import the lecture no longer makes): the build stops there with a NameError,
after running every step before it. Ruff's pyflakes rule F821 finds such a name in the
lesson's code read as main.py runs it, and the report names it at its step and line before
any build. A name the build gives every lesson (`display`) is defined; a name that may come
from a `from x import *` is not reported (pyflakes cannot tell).
"""

from __future__ import annotations

import ast
import re

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.rufffindings import ruff_findings
from coursesite.importers.steplines import code_tree, lesson_line

# What a lesson's run has as builtins beside Python's (execution/lessondisplays.py).
LESSON_BUILTINS = ("display",)
_NAME = re.compile(r"Undefined name `([^`]+)`")


def undefined_name_notes(lesson: ImportedLesson) -> list[str]:
    """A line of the report for each name first used by a step where nothing defines it."""
    builtins = "builtins = [" + ", ".join(f"'{name}'" for name in LESSON_BUILTINS) + "]"
    steps = {number: (where, code_tree(code)) for number, where, code in lesson.steps}
    notes, named = [], set()
    for finding in ruff_findings(lesson.steps, "F821", "--config", builtins):
        found = _NAME.fullmatch(finding.message)
        if found is None or found.group(1) in named:
            continue
        name = found.group(1)
        named.add(name)
        where, tree = steps[finding.step]
        line = lesson_line(lesson.text, finding.step, finding.offset)
        said = f"{where}, lesson line {line}: step {finding.step} uses {name}"
        if function := _function_at(tree, finding.offset + 1):
            notes.append(
                f"{said} in {function}, and nothing defines it there or in the steps: "
                "calling it stops with a NameError; fix the name"
            )
            continue
        notes.append(
            f"{said}, which no step before it defines or imports: the build stops there with "
            f"a NameError; import or define {name} in an earlier step (the notebook may have "
            "had it from its kernel, or from a cell the lesson does not hold)"
        )
    return notes


def _function_at(tree: ast.Module | None, line: int) -> str:
    """The name of the innermost function of `tree` (None: not Python, which ruff finds
    nothing in either) whose body holds `line`, or ''."""
    inside = [
        node
        for node in (ast.walk(tree) if tree else ())
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        and node.body
        and _first_body_line(node) <= line <= (node.end_lineno or node.lineno)
    ]
    if not inside:
        return ""
    innermost = max(inside, key=lambda node: node.lineno)
    return "a lambda" if isinstance(innermost, ast.Lambda) else f"{innermost.name}()"


def _first_body_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> int:
    body = node.body if isinstance(node.body, list) else [node.body]
    return body[0].lineno
