"""What a reader installs to run a lesson, and the proof that it is enough.

The setup help's install line lists the distributions that provide the modules the
lesson's code imports (its blocks and its own modules beside it), pinned to the versions
its recorded run used. While the build runs the reader-style `python main.py`, every
other installed distribution is hidden from it (importguard.py), except those the listed
ones declare as dependencies: pip installs exactly those. An import of a hidden module
fails main.py, and the build names the module and the distribution missing from the line;
one that an installed library makes itself goes through, and the line lists its
distribution after the lesson's own (runtimeimports.py).
"""

from __future__ import annotations

import functools

from coursesite.execution.dependencies import (
    imported_modules,
    installed_projects,
    installed_signature,
    module_providers,
    modules_imported_by,
    normalized_name,
    own_module_names,
)
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.probes import probed_modules
from coursesite.lesson.model import Lesson


def lesson_distributions(lesson: Lesson, inputs: dict[str, bytes]) -> list[str]:
    """The distributions (as pip names them) providing what the lesson imports, sorted:
    its blocks, and the modules of its own among `inputs` (the files that travel with it).
    Modules no installed distribution provides (the lesson's own) are left out."""
    own = tuple(
        content.decode("utf-8", "replace")
        for name, content in inputs.items()
        if name.endswith(".py")
    )
    signature = installed_signature()
    projects = installed_projects(signature)
    found = set()
    local = own_module_names(inputs)
    for module in (imported_modules(lesson) | modules_imported_by(own)) - local:
        if normalized_name(module) in projects:  # most are named as they are imported
            found.add(projects[normalized_name(module)][0])
        else:
            found.update(module_providers(signature).get(module, [])[:1])
    return sorted(found, key=str.lower)


def reader_distributions(
    lesson: Lesson, inputs: dict[str, bytes], record: ExecutionRecord
) -> list[str]:
    """What the setup help lists: lesson_distributions, then what libraries imported while
    the recorded run's main.py ran (the record's `run_time_installs`)."""
    own = lesson_distributions(lesson, inputs)
    return own + [name for name in record.run_time_installs if name not in own]


def install_line(distributions: list[str], recorded: dict[str, str | None]) -> str:
    """`pip install` arguments: each distribution pinned to its recorded version (left
    unpinned when the record predates it: the lesson has not run since)."""
    versions = {normalized_name(name): version for name, version in recorded.items()}
    return " ".join(
        f"{name}=={versions[normalized_name(name)]}"
        if versions.get(normalized_name(name))
        else name
        for name in distributions
    )


def packages_used(recorded: dict, distributions: list[str], devices: str) -> set[str]:
    """The names in a record's `packages` that the lesson used: the distributions its
    code imports, and those whose device probe the run's devices came from (Grain imports
    jax without the lesson doing so). The record also names what `settings.record_packages`
    asks for."""
    used = {normalized_name(name) for name in distributions}
    used |= {normalized_name(module) for module in probed_modules(devices)}
    return {name for name in recorded if normalized_name(name) in used}


def hidden_modules(distributions: list[str]) -> dict[str, str]:
    """Top-level module -> distribution, for every module that only distributions outside
    `distributions` and their dependencies provide."""
    return _hidden_modules(tuple(distributions), installed_signature())


@functools.lru_cache(maxsize=64)
def _hidden_modules(
    distributions: tuple[str, ...], signature: tuple[tuple[str, int], ...]
) -> dict[str, str]:
    allowed = with_dependencies(distributions)
    hidden = {}
    for module, names in module_providers(signature).items():
        if module.startswith("_") or not names:
            continue  # private helpers (_cffi_backend, _yaml) load only through their packages
        if not any(normalized_name(name) in allowed for name in names):
            hidden[module] = names[0]
    return hidden


def also_installed(hidden: dict[str, str], distribution: str) -> dict[str, str]:
    """`hidden` (module -> distribution) once `distribution` is installed too, with what it
    requires, as pip would install it: matplotlib brings packaging and pillow."""
    brought = with_dependencies((distribution,))
    return {module: name for module, name in hidden.items() if normalized_name(name) not in brought}


def with_dependencies(distributions: tuple[str, ...]) -> set[str]:
    """The normalized names of `distributions` and of everything they require, except
    optional extras (pip installs those only when asked) and those whose markers exclude
    this interpreter or platform."""
    from importlib import metadata  # ~10 ms to import: only when lessons are to run

    from packaging.requirements import Requirement

    seen: set[str] = set()
    pending = list(distributions)
    while pending:
        name = pending.pop()
        if normalized_name(name) in seen:
            continue
        seen.add(normalized_name(name))
        try:
            requirements = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in map(Requirement, requirements):
            # Markers decide as pip does: no extras asked for, this interpreter and platform.
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return seen
