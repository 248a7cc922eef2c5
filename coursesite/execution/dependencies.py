"""What a lesson's code depends on: the modules it imports, their installed versions, and
the local modules and data files that must travel with it to wherever it runs."""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from coursesite.lesson.model import Lesson


def imported_modules(lesson: Lesson) -> set[str]:
    """Top-level names of the non-standard-library modules the lesson's code imports."""
    return set(modules_imported_by(tuple(block.code.source for block in lesson.runnable_blocks())))


@functools.lru_cache(maxsize=1024)
def modules_imported_by(sources: tuple[str, ...]) -> frozenset[str]:
    """Memoized: every build asks this several times per lesson, and parsing code is slow."""
    names = {path.split(".")[0] for path in module_paths_imported_by(sources)}
    return frozenset(name for name in names if name not in sys.stdlib_module_names)


@functools.lru_cache(maxsize=1024)
def module_paths_imported_by(sources: tuple[str, ...]) -> frozenset[str]:
    """The dotted modules the sources' import statements name (`mpl_toolkits.basemap`; a
    `from` import's module), standard library's too."""
    paths: set[str] = set()
    for source in sources:
        if "import" not in source:  # most blocks; walking their syntax tree is the slow part
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a module of the lesson's own that does not parse: its run says so
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                paths.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                paths.add(node.module)
    return frozenset(paths)


def local_module_file(module: str, folder: Path) -> Path | None:
    """`folder/module.py` when the lesson imports a module of its own, else None."""
    path = folder / f"{module}.py"
    return path if path.is_file() else None


def lesson_inputs(lesson: Lesson) -> list[Path]:
    """Files the code needs in its working folder: declared data files and local modules."""
    return input_files(lesson.path.parent, lesson.front.declared_files(), imported_modules(lesson))


def local_package_files(module: str, folder: Path) -> list[Path]:
    """Every module of `folder/module/` when the lesson imports a package of its own (a
    folder with an `__init__.py`), else none."""
    package = folder / module
    if not (package / "__init__.py").is_file():
        return []
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def is_local_module(module: str, folder: Path) -> bool:
    """Whether `module` is the lesson's own, a module or a package beside it."""
    return (
        local_module_file(module, folder) is not None or (folder / module / "__init__.py").is_file()
    )


def own_module_names(files: Iterable[str]) -> set[str]:
    """The names the lesson's own modules among `files` (relative paths) are imported by:
    `helper` of `helper.py`, `halfpkg` of `halfpkg/tensor.py` (and `tensor`, should the
    code put that folder on sys.path)."""
    paths = [Path(name) for name in files if name.endswith(".py")]
    return {path.stem for path in paths} | {path.parts[0].removesuffix(".py") for path in paths}


def input_files(folder: Path, declared: list[str], modules: Iterable[str]) -> list[Path]:
    """`lesson_inputs` from a lesson's folder, declared files and imported modules (a
    package of the lesson's own brings every module of it)."""
    files = [folder / name for name in declared]
    for module in sorted(modules):
        path = local_module_file(module, folder)
        own = [path] if path is not None else local_package_files(module, folder)
        files += [file for file in own if file not in files]
    return files


def run_name(relative: str) -> str:
    """The name a file of the lesson's (`relative` to the lesson file) has in the folder its
    code runs in, and in its zip: the same relative path, so `data/rows.csv` is read as it
    is beside the lesson; a file outside the lesson's folder (`../shared/rows.csv`) by its
    bare name, since nothing may be written outside the run folder."""
    path = Path(relative)
    if path.is_absolute() or ".." in path.parts:
        return path.name
    return path.as_posix()


def normalized_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_signature() -> tuple[tuple[str, int], ...]:
    """What changes when a distribution is installed, upgraded or removed: the modification
    times of the folders on sys.path that hold distributions (each install adds or renames
    a .dist-info folder). A folder holding none counts as 0 whatever its time: the first
    entry is build.py's own folder, where every build that writes replaces site/, and
    taking its time made every code edit's look-ups of installed modules miss (~0.1 s)."""
    signature = []
    for entry in sys.path:
        try:
            changed = os.stat(entry).st_mtime_ns
        except OSError:
            continue
        signature.append((entry, changed if _holds_distributions(entry, changed) else 0))
    return tuple(signature)


@functools.lru_cache(maxsize=64)
def _holds_distributions(folder: str, changed: int) -> bool:
    """Whether `folder` (as of its modification time `changed`) holds a distribution."""
    try:
        return any(name.endswith((".dist-info", ".egg-info")) for name in os.listdir(folder))
    except OSError:  # not a folder (a zip file on sys.path) or unreadable
        return False


@functools.lru_cache(maxsize=1)
def installed_projects(signature: tuple[tuple[str, int], ...]) -> dict[str, tuple[str, str]]:
    """Normalized name -> (the project's own spelling, its version), from dist-info names."""
    found: dict[str, tuple[str, str]] = {}
    for entry, _ in signature:
        if not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            if name.endswith(".dist-info"):
                project, _, version = name[: -len(".dist-info")].rpartition("-")
                found.setdefault(normalized_name(project), (project, version))
    return found


def distribution_version(
    module: str, signature: tuple[tuple[str, int], ...] | None = None
) -> str | None:
    """The installed version of the distribution that provides top-level `module`, from
    the dist-info folder names (listing them costs a millisecond, where importlib.metadata's
    full scan costs tens), kept while the installed packages' signature holds.

    `signature` is `installed_signature()` when the caller already took it: a build asks
    for thousands of versions at 1,000 lessons, and each signature stats sys.path."""
    signature = signature or installed_signature()
    projects = installed_projects(signature)
    found = projects.get(normalized_name(module))
    if found is None:  # a module named unlike its distribution (yaml: PyYAML)
        providers = module_providers(signature).get(module, [])
        found = projects.get(normalized_name(providers[0])) if providers else None
    return found[1] if found else None


@functools.lru_cache(maxsize=1)
def module_providers(signature: tuple[tuple[str, int], ...]) -> dict[str, list[str]]:
    """importlib.metadata's module -> distributions map (~30 ms: read once per install)."""
    from importlib import metadata

    return {
        module: list(dict.fromkeys(names))
        for module, names in metadata.packages_distributions().items()
    }
