"""Matplotlib styles a notebook names as older Matplotlib did.

Matplotlib 3.6 renamed its seaborn styles (`'seaborn-whitegrid'` is
`'seaborn-v0_8-whitegrid'`) and 3.8 dropped the old names, so `plt.style.use('seaborn')` in
a notebook of that age fails the build with "not a valid package style". The style is the
same, so the import writes the name the installed Matplotlib has, and says so.
"""

from __future__ import annotations

import ast

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import code_tree


def style_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each renamed style the steps use under its installed name; the
    report's lines, one a step and style."""
    used = [(number, where, _styles_used(code)) for number, where, code in lesson.steps]
    if not any(name.startswith("seaborn") for *_, names in used for name in names):
        return []  # nothing to rename: Matplotlib (a third of a second) is not imported
    version, available = _available_styles()
    if not available:
        return []
    renames: dict[int, list[Rename]] = {}
    said: list[tuple[int, str, str, str]] = []
    for number, where, names in used:
        for name in names:
            new = _renamed_style(name, available)
            if new is None:
                continue
            renames.setdefault(number, []).extend(
                Rename(f"{quote}{name}{quote}", f"{quote}{new}{quote}") for quote in "'\""
            )
            said.append((number, where, name, new))
    if not renames:
        return []
    written = {(number, rename.new[1:-1]) for number, rename in rename_in_lesson(lesson, renames)}
    return [
        f"{where}: step {number} uses Matplotlib's style '{name}', which the installed "
        f"Matplotlib ({version}) names '{new}' (renamed in 3.6): the step now uses '{new}'"
        for number, where, name, new in said
        if (number, new) in written
    ]


def _available_styles() -> tuple[str, set[str]]:
    """The installed Matplotlib's version and style names."""
    try:
        import matplotlib
        import matplotlib.style
    except ImportError:  # no Matplotlib here: no style of it to write
        return "", set()
    return matplotlib.__version__, set(matplotlib.style.available)


def _styles_used(code: str) -> list[str]:
    """The style names the code passes to `style.use` or `style.context`, in order."""
    if (tree := code_tree(code)) is None:
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("use", "context")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "style"
            and node.args
        ):
            continue
        given = node.args[0]
        values = given.elts if isinstance(given, (ast.List, ast.Tuple)) else [given]
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                names.append(value.value)
    return list(dict.fromkeys(names))


def _renamed_style(name: str, available: set[str]) -> str | None:
    if name in available or not (name == "seaborn" or name.startswith("seaborn-")):
        return None
    new = "seaborn-v0_8" + name.removeprefix("seaborn")
    return new if new in available else None
