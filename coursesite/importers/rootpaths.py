"""Image paths that start at the book's root, as Sphinx and MyST read them.

In a Jupyter Book or Sphinx project, `/_static/fig.png` is not the machine's root: a path
that starts with one `/` is relative to the project's source folder (the folder of its
`conf.py`, `_config.yml`, `_toc.yml` or `myst.yml`). A lesson's paths are relative to the
lesson file, so the import rewrites each such image path relative to the notebook
(`../_static/fig.png`); the images are then looked for beside the notebook and copied in,
as any other (linkedimages.py). A notebook with no project above it (saved on its own)
gets its own folder as the root, and a note says so.

A sphinx-gallery example is the exception: its project is beside it, not above it
(`doc/conf.py` beside `examples/`), because sphinx-gallery writes the example's page into
the Sphinx source folder. The root is then the folder of the checkout's conf.py that sets
`sphinx_gallery_conf`, and a relative path that climbs out of the page's folder
(`../../_static/anatomy.png`) is read where it lands there.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

import yaml

from coursesite.importers.notebookcells import Cell, where_at

PROJECT_FILES = ("conf.py", "_config.yml", "_toc.yml", "myst.yml")


def _image_paths(start: str) -> tuple[re.Pattern, ...]:
    """Patterns for the image paths that begin as `start` matches, in a Markdown image, a
    {figure} or {image} directive, or an HTML <img>; group 2 is the path."""
    return (
        re.compile(rf"(!\[[^\]\n]*\]\(\s*<?)({start}[^\s)>]*)"),
        re.compile(
            rf"^(\s*(?:`{{3,}}|~{{3,}}|:{{3,}})\{{(?:figure|image)\}}[ \t]+)({start}\S*)", re.M
        ),
        re.compile(rf"""(<img\b[^>]*?\bsrc\s*=\s*["'])({start}[^"']*)""", re.I),
    )


# One `/`, not two (`//host/x.png` is another site).
_ROOTED = _image_paths(r"/[^/\s)>\"']")
# Out of the page's folder, for a gallery example's page written into the source folder.
_CLIMBING = _image_paths(r"(?:\.\./)+[^/.\s)>\"']")


def project_root(notebook: Path) -> Path | None:
    """The nearest folder at or above the notebook's that holds a project's own file; for
    a sphinx-gallery example, the Sphinx source folder beside it."""
    for folder in notebook.resolve().parents:
        if any((folder / name).is_file() for name in PROJECT_FILES):
            return folder
    return gallery_source(notebook)


def checkout_root(folder: Path) -> Path | None:
    """The folder at or above `folder` holding `.git`: the root of its repository's checkout."""
    return next((up for up in [folder, *folder.parents] if (up / ".git").exists()), None)


@functools.lru_cache(maxsize=16)  # asked by each stage that needs the project's root
def gallery_source(notebook: Path) -> Path | None:
    """The folder of the conf.py that configures sphinx-gallery in the notebook's checkout
    (the folder above it holding `.git`), where it is one of the usual places (the root,
    `doc/`, `docs/source/`) and names a folder the notebook is in (`'../examples'`); the
    one nearest the notebook where there are several."""
    folder = notebook.resolve().parent
    checkout = checkout_root(folder)
    if checkout is None:
        return None
    within = folder.relative_to(checkout).parts
    found = [
        conf.parent
        for pattern in ("conf.py", "*/conf.py", "*/*/conf.py")
        for conf in sorted(checkout.glob(pattern))
        if _configures_gallery(conf, within)
    ]
    shared = lambda source: len(os.path.commonpath([source, folder]))  # noqa: E731
    return max(found, key=shared) if found else None


def _configures_gallery(conf: Path, folders: tuple[str, ...]) -> bool:
    """Whether `conf` sets sphinx_gallery_conf and names one of `folders` (a notebook
    elsewhere in the checkout is no example of its gallery)."""
    try:
        text = conf.read_text(errors="replace")
    except OSError:
        return False
    return "sphinx_gallery_conf" in text and any(name in text for name in folders)


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
    notes = []
    if rooted := _rewritten(cells, _ROOTED, lambda path: _relative(path, base, notebook)):
        notes.append(
            f"{', '.join(rooted)}: {len(rooted)} image path(s) start at the project's root"
        )
    if root is not None and root not in notebook.resolve().parents:
        climbing = _rewritten(cells, _CLIMBING, lambda path: _landed(path, root, notebook))
        if climbing:
            notes.append(
                f"{', '.join(climbing)}: {len(climbing)} image path(s) climb out of the "
                "folder sphinx-gallery writes the example's page to, into its Sphinx source folder"
            )
    if not notes:
        return []
    if root is None:
        return [
            f"{notes[0]}, and no {', '.join(PROJECT_FILES)} is above the notebook to say where "
            "that is: they are read from the notebook's folder"
        ]
    # Named from the notebook: the report says nothing of where this machine keeps it.
    where = Path(os.path.relpath(root, notebook.resolve().parent)).as_posix()
    at = "the notebook's own folder" if where == "." else f"{where}, from the notebook"
    return [f"{said} ({at}): they are read from there, relative to the notebook" for said in notes]


def _rewritten(cells: list[Cell], patterns: tuple, rewrite: Callable[[str], str]) -> list[str]:
    """Rewrites, in place, the image paths the patterns find in Markdown cells by
    `rewrite`; where each rewritten one was, in the order of the text."""
    rewritten: list[str] = []
    as_rewritten = functools.cache(rewrite)  # each path looked up once, not per pass
    for cell in cells:
        if cell.kind != "markdown":
            continue
        found = sorted(
            m.start(2)
            for pattern in patterns
            for m in pattern.finditer(cell.source)
            if as_rewritten(m.group(2)) != m.group(2)
        )
        rewritten += [where_at(cell, start) for start in found]
        for pattern in patterns:
            cell.source = pattern.sub(lambda m: m.group(1) + as_rewritten(m.group(2)), cell.source)
    return rewritten


def _landed(climbing: str, source: Path, notebook: Path) -> str:
    """A path of a gallery example's page that climbs out of it, as the file it lands on in
    the Sphinx source folder, relative to the notebook; unchanged where no file is there
    or the path reaches the file from the notebook's folder already."""
    if (notebook.resolve().parent / climbing).is_file():
        return climbing
    landed = climbing.lstrip("./")
    return _relative(landed, source, notebook) if (source / landed).is_file() else climbing


def _relative(rooted: str, base: Path, notebook: Path) -> str:
    target = base / rooted.lstrip("/")
    return Path(os.path.relpath(target, notebook.resolve().parent)).as_posix()
