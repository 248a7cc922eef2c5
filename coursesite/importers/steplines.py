"""An imported lesson's steps as the import's checks read them: where a line of a step's
code sits in the lesson file the import wrote, and the code as Python.

The import's report names each finding at its lesson line, so the author can go straight
to it; the steps are written as `:::{step} N. Title` followed by a code fence. Each step's
code is parsed once for every check (code_tree), and walked with what the names its
imports and the steps' before it bind stand for (step_nodes, dotted_name).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator


def arguments_by_parameter(call: ast.Call, positional: tuple[str, ...]) -> dict[str, ast.expr]:
    """What `call` passes for each parameter of a function whose positional parameters are
    `positional`: its arguments in order (up to a `*args`, past which none is known) and
    its keywords by name."""
    given: dict[str, ast.expr] = {}
    for name, argument in zip(positional, call.args, strict=False):
        if isinstance(argument, ast.Starred):
            break
        given[name] = argument
    given.update((k.arg, k.value) for k in call.keywords if k.arg)
    return given


def lesson_line(text: str, number: int, offset: int) -> int:
    """The line of `text` (from 1) holding line `offset` (from 0) of step `number`'s code."""
    lines = text.splitlines()
    start = next(at for at, line in enumerate(lines) if line.startswith(f":::{{step}} {number}. "))
    fence = next(at for at in range(start, len(lines)) if lines[at].startswith("```"))
    return fence + 2 + offset


@functools.lru_cache(maxsize=1024)
def code_tree(code: str) -> ast.Module | None:
    """The syntax tree of a step's or cell's code, or None where it is not Python (the
    import's syntax notes and the build say so). Parsed once for all the import's checks:
    the tree is shared, so none may change it."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in the code
        return None


def syntax_notes(text: str, steps: list[tuple[int, str, str]]) -> list[str]:
    """A report line for each step (number, cell.where, code) that is not valid Python, at
    its line in the lesson `text`: the build refuses it before running anything."""
    notes = []
    for number, where, code in steps:
        try:
            ast.parse(code)
        except SyntaxError as problem:
            line = lesson_line(text, number, max(0, (problem.lineno or 1) - 1))
            notes.append(
                f"{where}, lesson line {line}: step {number} is not valid Python "
                f"({problem.msg}), which the build refuses: fix it there, or make the cell "
                "Markdown if it is prose (in MyST, a code fence closed with fewer backticks "
                "than opened it runs on into the prose)"
            )
    return notes


def step_imports(steps: list[tuple[int, str, str]]) -> Iterator[tuple[int, str, int, list[str]]]:
    """(step number, cell, line offset in the step, names) of each import statement of the
    steps (number, cell.where, code), in order: the modules an `import` names, or the
    module of a `from` import and each name it takes (`google.colab.drive`)."""
    for number, where, code in steps:
        for node in ast.walk(tree) if (tree := code_tree(code)) else ():
            if isinstance(node, ast.Import):
                yield number, where, node.lineno - 1, [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                yield number, where, node.lineno - 1, names


def imported_packages(steps: list[tuple[int, str, str]]) -> set[str]:
    """The top-level modules the steps (number, cell.where, code) import (`pandas`)."""
    return {name.split(".")[0] for *_, names in step_imports(steps) for name in names}


def first_import(text: str, steps: list[tuple[int, str, str]], module: str) -> str:
    """Where the first step (number, cell.where, code) that imports `module` (top-level,
    or dotted: `mpl_toolkits.basemap`) does so, for a report line ("cell 3, lesson line
    40: step 2"), or ""."""
    for number, where, offset, names in step_imports(steps):
        if any(name == module or name.startswith(f"{module}.") for name in names):
            return f"{where}, lesson line {lesson_line(text, number, offset)}: step {number}"
    return ""


def bound_modules(tree: ast.Module) -> dict[str, str]:
    """Each name an import binds -> the module or object it names ('np' -> 'numpy')."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def dotted_name(node: ast.expr, bound: dict[str, str]) -> str:
    """The full name an expression stands for, the names imports `bound` resolved
    (`np.random.normal` -> 'numpy.random.normal'), or '' for anything but a chain of
    attributes on an imported name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in bound:
        return ""
    return ".".join([bound[node.id], *reversed(parts)])


def step_nodes(
    steps: list[tuple[int, str, str]],
) -> Iterator[tuple[int, str, str, ast.AST, dict[str, str]]]:
    """(number, cell.where, code, node, bound) for each node of each step (number,
    cell.where, code) that is Python, in step order; `bound`: what the names imports bind
    stand for (bound_modules), in that step and the steps before it."""
    bound: dict[str, str] = {}
    for number, where, code in steps:
        if (tree := code_tree(code)) is None:
            continue
        bound = bound | bound_modules(tree)
        for node in ast.walk(tree):
            yield number, where, code, node, bound


def alone_on_its_lines(statement: ast.stmt, lines: list[str]) -> bool:
    """Whether no other statement shares the lines of `statement` (`import os; f()`), a
    comment after it aside: a rewrite of it may take its lines whole."""
    assert statement.end_lineno is not None and statement.end_col_offset is not None
    # Offsets count UTF-8 bytes.
    before = lines[statement.lineno - 1].encode()[: statement.col_offset]
    after = lines[statement.end_lineno - 1].encode()[statement.end_col_offset :].strip()
    return not before.strip() and (not after or after.startswith(b"#"))
