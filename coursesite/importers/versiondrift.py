"""What the import says and writes of names the code uses that the installed packages lack
(apidrift.py finds them): a name that moved is written where the installed version has it
(renames.py, and NumPy 2's migration, numpymigration.py); any other is reported at its line
with what to do.
"""

from __future__ import annotations

import builtins

from coursesite.importers.apidrift import Drift, LackingModule, RefusedKeyword, api_drift
from coursesite.importers.hostedmodules import hosted_only
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.numpymigration import Migration, numpy_migrations
from coursesite.importers.renames import Rename, rename_in_lesson, rename_of
from coursesite.importers.requirements import (
    distribution_of,
    not_installed_advice,
    requirement_line,
)
from coursesite.importers.steplines import lesson_line


def api_drift_notes(lesson: ImportedLesson, own: set[str]) -> list[str]:
    """What the build would fail on because the code was written for other versions of
    the installed packages: each name they lack, at its line in the lesson. A name that
    moved is written where the installed version has it (renames.py)."""
    check = api_drift(lesson.steps, own)
    lacking = [_lacking(module, lesson) for module in check.lacking]
    drifts = [drift for drift in check.drifts if not hosted_only(drift.missing)]
    migrations = _numpy_migrations(drifts, lesson.steps)
    found = [(drift, migrations.get(_use(drift))) for drift in drifts]
    rewrites = [(drift, migration, _renamed_as(drift, migration)) for drift, migration in found]
    renames: dict[int, list[Rename]] = {}
    for drift, _, rename in rewrites:
        if rename:
            renames.setdefault(drift.number, []).append(rename)
    applied = rename_in_lesson(lesson, renames)
    notes = [f"the names the code uses of installed packages were not checked: {check.stopped}"]
    unsettled: dict[str, list[tuple[Drift, str]]] = {}  # by package: what to write anew
    for drift, migration, rename in rewrites:
        line = lesson_line(lesson.text, drift.number, drift.offset)
        lacks = (
            "has as a name, not a module a `from` import reads"
            if drift.instead == drift.missing
            else "does not have"
        )
        gone = (
            f"{drift.where}, lesson line {line}: step {drift.number} uses {drift.missing}, "
            f"which the installed {drift.missing.split('.')[0]} {lacks}: written for "
            f"another version of {drift.package} (installed: {drift.version})"
        )
        if rename and (drift.number, rename) in applied:
            now = migration.new if migration else drift.instead
            now = rename.new if now == drift.missing else now
            builtin = now in vars(builtins)  # NumPy's alias `np.int`: Python's `int`
            where = "which it stood for" if builtin else "where the installed one has it"
            notes.append(f"{gone}; the step now uses {now}, {where}")
        elif migration:
            notes.append(f"{gone}; NumPy 2's migration (ruff's NPY201): {migration.advice}")
        elif drift.close:
            notes.append(
                f"{gone.partition(': written for')[0]}, and has {drift.close}, a name spelled "
                f"almost alike: if the notebook misspells it, write {drift.close}; else "
                f"{_drift_todo(drift, lesson)}"
            )
        elif drift.instead:
            notes.append(f"{gone}; {_drift_todo(drift, lesson)}")
        else:
            unsettled.setdefault(drift.package, []).append((drift, gone))
    notes += [_unsettled(uses, lesson) for uses in unsettled.values()]
    refused = [_refused(refusal, lesson) for refusal in check.refused]
    return (notes if check.stopped else notes[1:]) + lacking + refused


def _unsettled(uses: list[tuple[Drift, str]], lesson: ImportedLesson) -> str:
    """The names one installed package lacks, with no other name to write: one line for
    them all (a notebook of another probdiffeq uses four of its old modules in six steps),
    each name with the steps and lines that use it."""
    first, gone = uses[0]
    if len(uses) == 1:
        return f"{gone}; {_drift_todo(first, lesson)}"
    places: dict[str, list[str]] = {}
    for drift, _ in uses:
        line = lesson_line(lesson.text, drift.number, drift.offset)
        places.setdefault(drift.missing, []).append(f"step {drift.number} at line {line}")
    names = "; ".join(f"{name} ({', '.join(where)})" for name, where in places.items())
    return (
        f"the code uses names the installed {first.package} does not have: "
        f"{names}: written for another version of {first.package} (installed: "
        f"{first.version}); {_drift_todo(first, lesson)}"
    )


def _refused(refusal: RefusedKeyword, lesson: ImportedLesson) -> str:
    """The build would fail with a TypeError where the call gives this keyword."""
    line = lesson_line(lesson.text, refusal.number, refusal.offset)
    return (
        f"{refusal.where}, lesson line {line}: step {refusal.number} calls {refusal.called}"
        f"({refusal.keyword}=), which the installed {refusal.called.split('.')[0]} does not "
        f"take: written for another version of {refusal.package} (installed: "
        f"{refusal.version}); write the call as the installed version takes it (see the "
        f"signature of {refusal.called}), or {_pin(refusal.package, lesson)}"
    )


def _lacking(module: LackingModule, lesson: ImportedLesson) -> str:
    """The build would fail where the code imports this module."""
    line = lesson_line(lesson.text, module.number, module.offset)
    requirement = requirement_line(distribution_of(module.lacks.split(".")[0]), lesson.installs)
    return (
        f"{module.where}, lesson line {line}: step {module.number} imports {module.module}, "
        f"which imports {module.lacks}, {not_installed_advice(requirement)}"
    )


def _numpy_migrations(
    drifts: list[Drift], steps: list[tuple[int, str, str]]
) -> dict[tuple[int, int, str], Migration]:
    """For each use of a name the installed NumPy lacks, what NumPy 2's migration writes
    in its place (numpymigration.py); asked only when there is such a use."""
    lacked = [drift for drift in drifts if drift.package == "numpy"]
    if not lacked:
        return {}
    found = numpy_migrations(steps)
    return {
        _use(drift): migration
        for drift in lacked
        for migration in found.get((drift.number, drift.offset), [])
        if migration.old == drift.written
    }


def _use(drift: Drift) -> tuple[int, int, str]:
    return drift.number, drift.offset, drift.written


def _renamed_as(drift: Drift, migration: Migration | None) -> Rename | None:
    """NumPy's migration first: a name of the same last part elsewhere in NumPy is another
    function (`np.ma.in1d` works on masked arrays), and where the migration has no fix,
    nothing is written."""
    if migration:
        return Rename(migration.old, migration.new) if migration.new else None
    return rename_of(drift)


def _pin(package: str, lesson: ImportedLesson) -> str:
    """How to get the version of `package` the notebook was written for."""
    if package == "Python":
        return "run it with the Python it was written for"
    wanted = requirement_line(package, lesson.installs)
    if wanted == package:
        return f"add the version it was written for to your requirements ({package}==...)"
    return f"install the version the notebook installs (the line {wanted})"


def _drift_todo(drift: Drift, lesson: ImportedLesson) -> str:
    pin = _pin(drift.package, lesson)
    use = (
        f"the installed version has {drift.instead}: use it"
        if drift.instead
        else ("write it for the installed version")
    )
    return f"{use}, or {pin}"
