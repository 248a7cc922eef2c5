"""A notebook that asserts the version of a package it imports (NumPyro's notebooks open
with `assert numpyro.__version__.startswith("0.14.0")`) stops the build at that line when
another version is installed where the site is built, though the rest of its code may run
on it as it is.

Such an assert, a statement of its own in the step, becomes a comment that keeps it
("# written for numpyro 0.14.0, and 0.22.0 is installed: assert ..."), and the report says
so with what to pin to keep the notebook's version: the build then runs the code on the
installed version, and the check of the notebook's stored outputs shows what changed. One
inside a block (an `if`) is reported, not changed. Only what the assert states plainly is
read: `X.__version__.startswith("v")` and `X.__version__ == "v"`, `X` a module the steps
import by name.
"""

from __future__ import annotations

import ast

from coursesite.execution.dependencies import distribution_version
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.requirements import distribution_of
from coursesite.importers.steplines import bound_modules, code_tree, lesson_line


def version_assert_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each step's assert of a version the installed package is not as
    a comment (see the module's text); a line of the report for each."""
    trees = [
        (number, where, code, tree)
        for number, where, code in lesson.steps
        if (tree := code_tree(code)) is not None  # else the import reports it at its line
    ]
    modules: dict[str, str] = {}
    for _, _, _, tree in trees:
        modules |= bound_modules(tree)
    notes: list[tuple[int, str]] = []
    renames: dict[int, list[Rename]] = {}
    for number, where, code, tree in trees:
        for node, name, wanted, whole in _version_asserts(tree):
            module = modules.get(name, "")
            installed = distribution_version(module.split(".")[0]) if module else None
            if installed is None or (
                installed == wanted if whole else installed.startswith(wanted)
            ):
                continue
            line = lesson_line(lesson.text, number, node.lineno - 1)
            asked = f"is {wanted}" if whole else f"starts with {wanted}"
            pin = f"{distribution_of(module.split('.')[0])}=={_release(wanted, whole)}"
            said = (
                f"{where}, lesson line {line}: step {number} asserts that {module}'s version "
                f"{asked}, and {installed} is installed where you build"
            )
            written = ast.get_source_segment(code, node)
            if node in tree.body and written and node.lineno == node.end_lineno:
                comment = f"# written for {module} {wanted}, and {installed} is installed: "
                renames.setdefault(number, []).append(Rename(written, comment + written))
                notes.append((line, f"{said}: {_commented(installed, pin)}"))
            else:
                notes.append((line, f"{said}: {_stopping(installed, pin)}"))
    rename_in_lesson(lesson, renames)
    return [note for _, note in sorted(notes, key=lambda note: note[0])]


def _commented(installed: str, pin: str) -> str:
    return (
        f"the assert became a comment, so the build runs the step on {installed} (the check "
        f"of the stored outputs shows what changed); pin {pin} in your requirements to keep "
        "the notebook's version, if it installs beside the others"
    )


def _stopping(installed: str, pin: str) -> str:
    return (
        f"the build stops there; write the step for {installed} (its assert too), or pin "
        f"{pin} in your requirements if it installs beside the others"
    )


def _release(wanted: str, whole: bool) -> str:
    """The version a requirement pins for an assert: `0.14.0`, or `0.4.*` for a prefix."""
    if whole or wanted.count(".") >= 2:
        return wanted
    return wanted.rstrip(".") + ".*"


def _version_asserts(tree: ast.Module) -> list[tuple[ast.Assert, str, str, bool]]:
    """(the assert, the name whose __version__ it reads, the version, whether whole) of
    each plain version assert of a step's syntax `tree`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        test = node.test
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Attribute)
            and test.func.attr == "startswith"
            and len(test.args) == 1
            and isinstance(test.args[0], ast.Constant)
            and isinstance(test.args[0].value, str)
            and (name := _version_of(test.func.value))
        ):
            found.append((node, name, test.args[0].value, False))
        elif (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
            and isinstance(test.comparators[0].value, str)
            and (name := _version_of(test.left))
        ):
            found.append((node, name, test.comparators[0].value, True))
    return found


def _version_of(node: ast.expr) -> str:
    """`X` of an expression `X.__version__`, or ''."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "__version__"
        and isinstance(node.value, ast.Name)
    ):
        return node.value.id
    return ""
