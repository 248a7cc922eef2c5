"""What an imported notebook's code takes from beside it, brought beside the lesson: the
data files it reads by name and the modules of its own it imports.

A notebook in its repository's checkout reads `rows.csv` and imports `helpers.py` from its
folder; a lesson's code runs in a folder of its own, holding the files its front matter
lists (`files:`) and the modules beside the lesson file. So a file the code reads that lies
beside the notebook is copied to the same place beside the lesson and listed in `files:`
(one beside the lesson already is listed); a module of the notebook's own is copied beside
the lesson. Each is a line of the report. A file found nowhere, outside the notebook's
folder or too large to copy is left to importcommand's report, which says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from coursesite.execution.dependencies import local_module_file, modules_imported_by
from coursesite.importers.datafiles import data_reads, writes_without_folder
from coursesite.importers.ownpackages import own_package_files
from coursesite.outputs.assets import RefusedAsset, read_regular

# A data file larger than this is the author's to bring (or to make smaller): an import
# never quietly puts a data set of gigabytes into a course's repository.
COPY_LIMIT = 50 * 1024 * 1024
PATTERN_LIMIT = 500  # files one pattern (`img_*.png`) may bring


@dataclass
class Brought:
    """What the import takes from beside the notebook."""

    copies: dict[Path, bytes] = field(default_factory=dict)  # course path -> content
    read: list[str] = field(default_factory=list)  # names or patterns (`img_*.png`) settled
    listed: list[str] = field(default_factory=list)  # the front matter's files:
    packages: list[str] = field(default_factory=list)  # the notebook's own, brought
    notes: list[str] = field(default_factory=list)


def bring_from_beside(
    steps: list[tuple[int, str, str]], code: list[str], folder: Path, beside: Path
) -> Brought:
    """The data files and modules the code (`steps`: number, cell, code) needs from beside
    the notebook (`beside`), for a lesson in `folder`."""
    brought = Brought()
    for _, where, _, name in data_reads(steps):
        if ".." in Path(name).parts or name in brought.read:
            continue
        at_lesson, at_notebook = _matches(folder, name), _matches(beside, name)
        if at_lesson:
            brought.read.append(name)
            brought.listed += [found for found in at_lesson if found not in brought.listed]
            brought.notes.append(
                f"{where}: {_named(name, at_lesson)} beside the lesson: listed in files:"
            )
        elif _copied_and_listed(brought, beside, folder, at_notebook):
            brought.read.append(name)
            brought.notes.append(
                f"{where}: {_named(name, at_notebook)}, which the code reads, copied from "
                "beside the notebook and listed in files:"
            )
    for _, where, _, _, made_in in writes_without_folder(steps, brought.listed):
        _bring_folder(brought, beside, folder, made_in, where)
    for package, (base, names) in own_package_files(code, beside).items():
        if _copied_and_listed(brought, base, folder, names):
            brought.packages.append(package)
            brought.notes.append(
                f"the code imports {package}, a package of the notebook's own checkout (no "
                f"pip install provides it): {', '.join(names)} copied beside the lesson and "
                "listed in files:"
            )
    for module in sorted(modules_imported_by(tuple(code))):
        source = local_module_file(module, beside)
        if source and not local_module_file(module, folder):
            contents = _read_all(beside, [source.name])
            if contents is None:
                continue
            brought.copies[folder / source.name] = contents[0]
            brought.notes.append(
                f"{source.name}, the notebook's own module, copied beside the lesson"
            )
    return brought


def _bring_folder(brought: Brought, beside: Path, folder: Path, made_in: str, where: str) -> None:
    """The notebook's own folder `made_in`, which the code writes into without making it
    (numpy-tutorials' `_generated/`, kept in the repository by a README): its files copied
    and listed, so that the folder is there when the code runs, as it was for the notebook.
    A folder the notebook lacks, or an empty one, is left to the import's report."""
    if ".." in Path(made_in).parts or not (beside / made_in).is_dir():
        return
    names = sorted(
        path.relative_to(beside).as_posix()
        for path in (beside / made_in).iterdir()
        if path.is_file() and not path.is_symlink()
    )[:PATTERN_LIMIT]
    if not _copied_and_listed(brought, beside, folder, names):
        return
    brought.notes.append(
        f"{where}: the code writes into {made_in}/, a folder beside the notebook: its "
        f"{len(names)} file(s) copied beside the lesson and listed in files:, so that the "
        "folder is there when the code runs"
    )


def _copied_and_listed(brought: Brought, beside: Path, folder: Path, names: list[str]) -> bool:
    """Copy the files `names` (relative to `beside`) to the same places in `folder` and
    list them in files:, unless there are none, they weigh more than COPY_LIMIT together,
    or one is no regular file (left to the report); whether they were."""
    if not names or sum((beside / name).stat().st_size for name in names) > COPY_LIMIT:
        return False
    contents = _read_all(beside, names)
    if contents is None:
        return False
    for name, content in zip(names, contents, strict=True):
        brought.copies[folder / name] = content
        brought.listed.append(name)
    return True


def _matches(folder: Path, name: str) -> list[str]:
    """The files in `folder` that `name` names: itself, or those its pattern matches
    (`img_*.png`), relative to the folder, in order."""
    if "*" not in name:
        return [name] if (folder / name).is_file() else []
    found = sorted(path.relative_to(folder).as_posix() for path in folder.glob(name))
    return [path for path in found if (folder / path).is_file()][:PATTERN_LIMIT]


def _read_all(folder: Path, names: list[str]) -> list[bytes] | None:
    """The bytes of each file, or None if one is no regular file (a link, a pipe): what
    the course publishes is only what the checkout holds."""
    try:
        return [read_regular(folder / name) for name in names]
    except RefusedAsset:
        return None


def _named(name: str, found: list[str]) -> str:
    return name if "*" not in name else f"{name} ({len(found)} files)"
