"""Image paths that start at the book's root, as Sphinx and MyST read them.

In a Jupyter Book or Sphinx project, `/_static/fig.png` is not the machine's root: a path
that starts with one `/` is relative to the project's source folder (the folder of its
`conf.py`, `_config.yml`, `_toc.yml` or `myst.yml`). A lesson's paths are relative to the
lesson file, so the import rewrites each such image path relative to the notebook
(`../_static/fig.png`); the images are then looked for beside the notebook and copied in,
as any other (linkedimages.py). A notebook with no project above it (saved on its own)
gets its own folder as the root, and a note says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from coursesite.importers.notebookcells import Cell, where_at

PROJECT_FILES = ("conf.py", "_config.yml", "_toc.yml", "myst.yml")

# One `/`, not two (`//host/x.png` is another site); in a Markdown image, a {figure} or
# {image} directive, or an HTML <img>.
_ROOTED = (
    re.compile(r"(!\[[^\]\n]*\]\(\s*<?)(/[^/\s)>][^\s)>]*)"),
    re.compile(r"^(\s*(?:`{3,}|~{3,}|:{3,})\{(?:figure|image)\}[ \t]+)(/[^/\s]\S*)", re.M),
    re.compile(r"""(<img\b[^>]*?\bsrc\s*=\s*["'])(/[^/"'][^"']*)""", re.I),
)


def project_root(notebook: Path) -> Path | None:
    """The nearest folder at or above the notebook's that holds a project's own file."""
    for folder in notebook.resolve().parents:
        if any((folder / name).is_file() for name in PROJECT_FILES):
            return folder
    return None


def project_mapping(path: Path) -> dict:
    """A project file's YAML (`_config.yml`, `myst.yml`) as a mapping: {} where the file is
    missing, unreadable or no mapping."""
    try:
        data = yaml.safe_load(path.read_text(errors="replace"))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def from_project_root(cells: list[Cell], notebook: Path) -> list[str]:
    """Rewrites, in place, each Markdown cell's image paths that start at the project's
    root to paths relative to the notebook; the note that says so, if any was."""
    root = project_root(notebook)
    base = root or notebook.resolve().parent
    rewritten: list[str] = []  # where each was
    for cell in cells:
        if cell.kind != "markdown":
            continue
        found = sorted(m.start(2) for pattern in _ROOTED for m in pattern.finditer(cell.source))
        rewritten += [where_at(cell, start) for start in found]
        for pattern in _ROOTED:
            cell.source = pattern.sub(
                lambda m: m.group(1) + _relative(m.group(2), base, notebook), cell.source
            )
    if not rewritten:
        return []
    said = f"{', '.join(rewritten)}: {len(rewritten)} image path(s) start at the project's root"
    if root is None:
        return [
            f"{said}, and no {', '.join(PROJECT_FILES)} is above the notebook to say where that "
            "is: they are read from the notebook's folder"
        ]
    # Named from the notebook: the report says nothing of where this machine keeps it.
    where = Path(os.path.relpath(root, notebook.resolve().parent)).as_posix()
    at = "the notebook's own folder" if where == "." else f"{where}, from the notebook"
    return [f"{said} ({at}): they are read from there, relative to the notebook"]


def _relative(rooted: str, base: Path, notebook: Path) -> str:
    target = base / rooted.lstrip("/")
    return Path(os.path.relpath(target, notebook.resolve().parent)).as_posix()
