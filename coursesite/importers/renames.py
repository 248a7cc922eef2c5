"""Names a package moved, written as the installed version has them.

A notebook written for an older JAX calls `jax.tree_map`, which JAX 0.10 has only as
`jax.tree_util.tree_map`: the same function under the module it moved to. When the check
of installed names (apidrift.py) finds that the name the code uses is gone and the
installed package has one of the same last part elsewhere, or says itself what to use
instead (NumPy 2: "`np.unicode_` was removed ... Use `np.str_` instead."), the import
writes that one in every line of the step that uses it (`from numpy import float64 as
float_` for a name imported alone), and says so; the build would otherwise fail there
with an AttributeError the author fixes the same way. A name gone with nothing like it
left is reported, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coursesite.importers.apidrift import Drift
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.steplines import lesson_line


@dataclass(frozen=True)
class Rename:
    old: str  # as the code writes it: `jax.tree_map`, `from jax import tree_map`
    new: str


def rename_of(drift: Drift) -> Rename | None:
    """How to write the use `drift` names for the installed package, if it can be said."""
    imported = drift.path.rpartition(".")[2]
    if drift.written.startswith("from ") and drift.instead.endswith("." + imported):
        module = drift.path.rpartition(".")[0]
        if (module + ".").startswith(drift.missing + "."):
            # The module it imports from is gone, and the package has the name above it or
            # in another module (the checker looked): `from jax.config import config` is
            # `from jax import config`, `from sklearn.cross_validation import
            # train_test_split` is `from sklearn.model_selection import train_test_split`.
            return Rename(
                drift.written, f"from {drift.instead.rpartition('.')[0]} import {imported}"
            )
    if not drift.instead or not drift.written or drift.instead == drift.missing:
        return None
    if drift.missing != drift.path:  # a module on the way is gone: what is under it is unknown
        return None
    if drift.written.startswith("import "):
        return None  # `import a.b.gone`: a module, not a name that moved
    if drift.written.startswith("from "):
        name = drift.path.rpartition(".")[2]
        new_module, _, new_name = drift.instead.rpartition(".")
        alias = f" as {name}" if name != new_name else ""  # the name the code goes on using
        return Rename(drift.written, f"from {new_module} import {new_name}{alias}")
    # `jx.tree_map.x` is jax.tree_map.x: the written root stands for the path's first parts.
    root = drift.written.split(".")[0]
    stands_for = drift.path[: len(drift.path) - len(drift.written) + len(root)]
    if not (drift.missing.startswith(stands_for) and drift.instead.startswith(stands_for)):
        return None
    return Rename(root + drift.missing[len(stands_for) :], root + drift.instead[len(stands_for) :])


@dataclass
class RenamedLesson:
    text: str
    steps: list[tuple[int, str, str]]
    applied: set[tuple[int, Rename]]  # (step, rename) written in its code


def renamed_steps(
    text: str, steps: list[tuple[int, str, str]], renames: dict[int, list[Rename]]
) -> RenamedLesson:
    """The lesson `text` and its `steps` with each step's `renames` written in its code,
    wherever the code writes the old name as a whole (one of the names an import line
    imports gets a line of its own)."""
    lines = text.splitlines(keepends=True)
    renamed = RenamedLesson("", [], set())
    for number, where, code in steps:
        for rename in renames.get(number, []):
            first = lesson_line(text, number, 0) - 1
            for at in range(first, first + len(code.splitlines())):
                lines[at] = _renamed(lines[at], rename)
            if (new_code := _renamed(code, rename)) != code:
                renamed.applied.add((number, rename))
                code = new_code
        renamed.steps.append((number, where, code))
    renamed.text = "".join(lines)
    return renamed


def rename_in_lesson(
    lesson: ImportedLesson, renames: dict[int, list[Rename]]
) -> set[tuple[int, Rename]]:
    """Writes each step's `renames` in the lesson's text, steps and code, in place
    (renamed_steps); the (step, rename) pairs written."""
    renamed = renamed_steps(lesson.text, lesson.steps, renames)
    lesson.text, lesson.steps = renamed.text, renamed.steps
    lesson.code = [code for _, _, code in renamed.steps]
    return renamed.applied


def _renamed(text: str, rename: Rename) -> str:
    if rename.old.startswith("from "):
        return _renamed_import(text, rename)
    # A function, so that a backslash in what is written (a pandas call's other
    # arguments: `sep='\\t'`) is taken as it is, never as a group reference.
    return re.sub(rf"(?<![\w.]){re.escape(rename.old)}(?!\w)", lambda _: rename.new, text)


def _renamed_import(text: str, rename: Rename) -> str:
    """`from numba import jit, jitclass` with `jitclass` moved to numba.experimental: the
    line keeps the other names, and a line of its own imports the moved one from where it
    is now, under the name the code uses (a parenthesised import is left as it is)."""
    module, _, name = rename.old.removeprefix("from ").partition(" import ")
    new_module, _, new_name = rename.new.removeprefix("from ").partition(" import ")
    new_name = new_name.split(" as ")[0]

    def moved(line: re.Match) -> str:
        indent, names, tail = line.groups()
        entries = [entry.strip() for entry in names.split(",")]
        used = [entry.partition(" as ") for entry in entries]
        found = next((i for i, (imported, _, _) in enumerate(used) if imported == name), None)
        if found is None:
            return line.group(0)
        alias = used[found][2].strip() or name
        written = f"{indent}from {new_module} import {new_name}"
        written += f" as {alias}" if alias != new_name else ""
        kept = entries[:found] + entries[found + 1 :]
        if not kept:
            return written + tail
        return f"{indent}from {module} import {', '.join(kept)}{tail}\n{written}"

    pattern = rf"^([ \t]*)from {re.escape(module)} import ([\w ,]+?)([ \t]*(?:#.*)?)$"
    return re.sub(pattern, moved, text, flags=re.M)
