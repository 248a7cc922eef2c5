"""What an imported lesson's code needs installed, settled or said before any build: the
packages pip installs with --install, and each module, optional package or hosted
notebook service the build would lack, at the step that imports it."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from coursesite.execution.networkerrors import QUOTED
from coursesite.importers.installing import Installation, requirements_to_install
from coursesite.importers.lessonimport import ImportedLesson
from coursesite.importers.optionalneeds import NeededCall, OptionalNeed, needed_call_note
from coursesite.importers.requirements import (
    distribution_of,
    not_installed_advice,
    requirement_line,
    requirement_name,
)
from coursesite.importers.steplines import first_import, lesson_line


def to_install(
    lesson: ImportedLesson, own: set[str], calls: list[NeededCall]
) -> tuple[list[str], list[str]]:
    """For --install, what pip installs and the modules it is for (the code imports them
    and nobody has installed them), before the checks below look for missing modules and
    names.

    The notebook's own `!pip install` lines that name nothing installed here go first,
    whatever modules they provide (nvidia-cutlass-dsl provides `cutlass`): a module's name
    is pip's to try only when no such line is left to provide it, and install() tries it
    after them for a module they did not provide."""
    wanted = requirements_to_install(lesson.code, own, lesson.installs)
    for called in calls:  # a library's optional package it calls for
        wanted.setdefault(called.need.module, _need_line(called.need, lesson.installs))
    lines = [install.strip("'\"") for install in lesson.installs]
    unnamed = [line for line in lines if line not in wanted.values() and not installed_here(line)]
    named = [line for line in wanted.values() if line in lines or not unnamed]
    return list(dict.fromkeys(unnamed + named)), list(wanted)


def unimportable_notes(
    installation: Installation, lesson: ImportedLesson, modules: list[str]
) -> list[str]:
    """What the build would fail on though pip installed it: a module that does not import;
    or pip did not: a refused requirement, at the first step that imports its module (one
    of `modules`, those it was asked for)."""
    notes = []
    if installation.undeclared:
        notes.append(
            f"pip installed {', '.join(installation.undeclared)} too: what was installed "
            "imports it without asking for it"
        )
    for requirement, why in installation.refused.items():
        wanted = [
            m
            for m in modules
            if requirement_line(distribution_of(m), lesson.installs) == requirement
        ]
        at = first_import(lesson.text, lesson.steps, wanted[0]) if wanted else ""
        notes.append(
            (f"{at} imports {wanted[0]}: " if at else "")
            + f"the code needs {requirement}, which pip did not install (every step "
            f"that imports it will fail): {why}"
        )
    for requirement, (name, version) in installation.released.items():
        release = f"{name} {version}".strip()
        notes.append(
            f"pip could not install {requirement}, the notebook's requirement by address "
            f"(the machine may not reach it): it installed {release} from the package index "
            f"instead; the notebook asked for another build of {name} (its repository's), so "
            "a step may use what this release lacks"
        )
    for module, failure in installation.unimportable.items():
        said = f"pip installed {module}'s package, but importing {module} "
        if any(words in failure for words in QUOTED):  # qeds asks the Census API as it loads
            notes.append(
                f"{said}reads the network, which fails here ({failure}): every step that "
                "imports it will fail where the site is built without a network; build it "
                "where there is one, or show those steps without running them (norun)"
            )
            continue
        notes.append(
            f"{said}fails here ({failure}): every step that imports it will fail; install "
            "what the message names, or the versions the notebook was written for, and "
            "import again"
        )
    return notes


def added_path_notes(found: dict[str, tuple[int, str]]) -> list[str]:
    """What the build fails on for want of a folder the code puts on sys.path."""
    steps: dict[tuple[int, str], list[str]] = {}
    for module, step in found.items():
        steps.setdefault(step, []).append(module)
    return [
        f"{where}: step {number} puts a folder on sys.path and imports {', '.join(modules)} "
        "from it, which no package here provides and the build's folder lacks: save those "
        "modules beside the notebook and import again (the import brings them along), or "
        "install the package they come from; the step fails until then"
        for (number, where), modules in steps.items()
    ]


def own_modules(lesson: ImportedLesson, folder: Path, beside: Path) -> set[str]:
    """The modules the code imports that are the notebook's own: beside the lesson or
    beside the notebook, or written by the code (%%writefile), never a package to install
    or check."""
    from coursesite.execution.dependencies import is_local_module, modules_imported_by

    return {
        name
        for name in modules_imported_by(tuple(lesson.code))
        if is_local_module(name, folder) or is_local_module(name, beside)
    } | _written_modules(lesson)


def _written_modules(lesson: ImportedLesson) -> set[str]:
    from coursesite.importers.datafiles import files_written

    return {
        name.removesuffix(".py")
        for name in files_written(lesson.steps)
        if name.endswith(".py") and "/" not in name
    }


def missing_module_notes(
    lesson: ImportedLesson, own: set[str], refused: Collection[str]
) -> list[str]:
    """What the build would fail on for want of a module, said before any build: a package
    not installed (asked as the build asks, execution/missingmodules.py, so that import and
    build agree), but those pip was asked for and `refused`. The notebook's `own` modules
    are beside the lesson, or brought there."""
    from coursesite.execution.missingmodules import missing_modules

    blocks = [{"id": str(number), "code": code} for number, code in enumerate(lesson.code)]
    notes = []
    for module in sorted(missing_modules(blocks, own)):
        line = requirement_line(distribution_of(module), lesson.installs)
        if line in refused:  # said with pip's reason (unimportable_notes)
            continue
        at = first_import(lesson.text, lesson.steps, module) or "the code"
        notes.append(f"{at} imports {module}, which is {not_installed_advice(line)}")
    return notes


def optional_need_notes(lesson: ImportedLesson, calls: list[NeededCall]) -> list[str]:
    """What the build would fail on at a library's call that needs a package the library
    does not ask for (optionalneeds.py), still not installed."""
    return [
        needed_call_note(
            called, lesson.text, not_installed_advice(_need_line(called.need, lesson.installs))
        )
        for called in calls
    ]


def _need_line(need: OptionalNeed, installs: list[str]) -> str:
    """The notebook's own requirement for the package (its `!pip install` line), else the
    table's."""
    distribution = distribution_of(need.module)
    own = requirement_line(distribution, installs)
    return own if own != distribution else need.requirement


def hosted_only_notes(lesson: ImportedLesson) -> list[str]:
    """What the build would fail on wherever it runs: imports of a notebook service's own
    modules (google.colab), each at its line in the lesson."""
    from coursesite.importers.hostedmodules import hosted_hint, hosted_imports

    return [
        f"{where}, lesson line {lesson_line(lesson.text, number, offset)}: step {number} "
        f"imports it; {hosted_hint(module)}"
        for number, where, offset, module in hosted_imports(lesson.steps)
    ]


def installed_here(requirement: str) -> bool:
    """Whether a `!pip install` requirement's distribution is installed (at any version)."""
    import importlib.metadata

    try:
        importlib.metadata.version(requirement_name(requirement))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return True
