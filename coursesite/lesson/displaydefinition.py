"""The definition of `display` that main.py starts with when its steps need one.

`display()` is a builtin in a notebook, and in the build's run of the steps (the runner's
lessondisplays.py), where it shows a value at its richest and writes its repr to stdout. Run
as `python main.py`, the steps would fail with NameError; so a program whose steps call a
bare `display` that none of them binds (by import, assignment or def) starts with a
definition that prints what the build's display() wrote: each value's repr on a line.
The downloaded notebook needs none: Jupyter has the builtin.
"""

from __future__ import annotations

import ast

DISPLAY_DEFINITION = [
    "# display() is a builtin in Jupyter, where these steps show each value at its richest;",
    "# run as a script, it prints each value's repr, as the lesson's page shows it printed.",
    "def display(*values, **options):",
    "    for value in values:",
    "        print(repr(value))",
]


def needs_display(parts: list[str]) -> bool:
    """Whether the code of `parts` calls `display` without binding it. A part that does not
    parse tells nothing: it fails the build on its own. Code in a string counts too: the
    statement a `timeit.Timer('display(x)', globals=globals())` times (magics.py's %timeit)
    runs in main.py's namespace."""
    called = bound = False
    pending = [part for part in parts if "display" in part]  # most lessons: none to parse
    while pending:
        try:
            tree = ast.parse(pending.pop())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                pending += [node.value] if "display(" in node.value else []
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called = called or node.func.id == "display"
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound = bound or node.id == "display"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound = bound or node.name == "display"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(alias.asname or alias.name).partition(".")[0] for alias in node.names]
                bound = bound or "display" in names
    return called and not bound
