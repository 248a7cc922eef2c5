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

import yaml

from coursesite.config.yamlmodel import dump_yaml
from coursesite.execution.dependencies import local_module_file, modules_imported_by
from coursesite.importers.datafiles import data_reads

# A data file larger than this is the author's to bring (or to make smaller): an import
# never quietly puts a data set of gigabytes into a course's repository.
COPY_LIMIT = 50 * 1024 * 1024


@dataclass
class Brought:
    """What the import takes from beside the notebook."""

    copies: dict[Path, bytes] = field(default_factory=dict)  # course path -> content
    listed: list[str] = field(default_factory=list)  # the front matter's files:
    modules: set[str] = field(default_factory=set)  # copied beside the lesson
    notes: list[str] = field(default_factory=list)


def bring_from_beside(
    steps: list[tuple[int, str, str]], code: list[str], folder: Path, beside: Path
) -> Brought:
    """The data files and modules the code (`steps`: number, cell, code) needs from beside
    the notebook (`beside`), for a lesson in `folder`."""
    brought = Brought()
    for _, where, _, name in data_reads(steps):
        parts = Path(name).parts
        if ".." in parts or name in brought.listed:
            continue
        if (folder / name).is_file():
            brought.listed.append(name)
            brought.notes.append(f"{where}: {name} is beside the lesson: listed in files:")
        elif (beside / name).is_file() and (beside / name).stat().st_size <= COPY_LIMIT:
            brought.copies[folder / name] = (beside / name).read_bytes()
            brought.listed.append(name)
            brought.notes.append(
                f"{where}: {name}, which the code reads, copied from beside the notebook and "
                "listed in files:"
            )
    for module in sorted(modules_imported_by(tuple(code))):
        source = local_module_file(module, beside)
        if source and not local_module_file(module, folder):
            brought.copies[folder / source.name] = source.read_bytes()
            brought.modules.add(module)
            brought.notes.append(
                f"{source.name}, the notebook's own module, copied beside the lesson"
            )
    return brought


def with_files(text: str, names: list[str]) -> str:
    """The lesson `text` with `names` in its front matter's files:, after those it has."""
    if not names:
        return text
    _, header, body = text.split("---\n", 2)
    front = yaml.safe_load(header)
    front["files"] = list(dict.fromkeys([*front.get("files", []), *names]))
    return f"---\n{dump_yaml(front)}---\n{body}"
