"""A notebook that asserts the version of a package it imports (NumPyro's notebooks open
with `assert numpyro.__version__.startswith("0.14.0")`) stops the build at that line when
another version is installed where the site is built: the import says so first, with the
version asked and the one installed, and what to do.

Only what the assert states plainly is read: `X.__version__.startswith("v")` and
`X.__version__ == "v"`, `X` a module the steps import by name.
"""

from __future__ import annotations

import ast

from coursesite.execution.dependencies import distribution_version
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.requirements import distribution_of
from coursesite.importers.steplines import bound_modules, lesson_line


def version_assert_notes(lesson: ImportedLesson) -> list[str]:
    """A line for each step's assert of a version the installed package is not."""
    trees = []
    for number, where, code in lesson.steps:
        try:
            trees.append((number, where, ast.parse(code)))
        except SyntaxError:  # the import reports it at its line
            continue
    modules: dict[str, str] = {}
    for _, _, tree in trees:
        modules |= bound_modules(tree)
    notes = []
    for number, where, tree in trees:
        for node, name, wanted, whole in _version_asserts(tree):
            module = modules.get(name, "")
            installed = distribution_version(module.split(".")[0]) if module else None
            if installed is None:
                continue
            if installed == wanted if whole else installed.startswith(wanted):
                continue
            line = lesson_line(lesson.text, number, node.lineno - 1)
            asked = f"is {wanted}" if whole else f"starts with {wanted}"
            distribution = distribution_of(module.split(".")[0])
            notes.append(
                f"{where}, lesson line {line}: step {number} asserts that {module}'s version "
                f"{asked}, and {installed} is installed where you build: the build stops "
                f"there; write the step for {installed} (its assert too), or pin "
                f"{distribution}=={_release(wanted, whole)} in your requirements if it "
                "installs beside the others"
            )
    return notes


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
