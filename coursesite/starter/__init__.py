"""`coursesite new DIR`: a course that builds and passes `coursesite check` at once.

The course is the folder `course/` beside this module, package data: a manifest, one
example lesson showing every block kind, a phase guide, a README and a .gitignore (kept as
`gitignore`, since packaging tools drop dotfiles).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

STARTER = Path(__file__).resolve().parent / "course"
FILLED = ("lessons.yaml", "README.md")  # hold {title} and {track}; YAML gets them quoted
RENAMED = {"gitignore": ".gitignore"}


def new_course_arguments(argv: list[str], prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"{prog} new",
        description="Start a new course in DIR: a lessons.yaml, one example lesson that shows "
        "every block kind, a phase guide, a README and a .gitignore. DIR must be new or "
        "empty. The course builds at once: cd DIR, then run `coursesite build`.",
    )
    parser.add_argument("folder", type=Path, metavar="DIR", help="the new course's folder")
    parser.add_argument("--title", help="the course's title (default: from DIR's name)")
    parser.add_argument("--track", default="Self-paced", help="its track (default: Self-paced)")
    arguments = parser.parse_args(argv)
    arguments.command = "new"
    return arguments


def new_course(arguments: argparse.Namespace) -> int:
    folder: Path = arguments.folder
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        print(
            f"error: {folder} is not an empty folder: nothing written\n"
            "  hint: give a new folder's name, or an empty folder",
            file=sys.stderr,
        )
        return 1
    title = arguments.title or folder.resolve().name.replace("-", " ").replace("_", " ").title()
    try:
        write_starter(folder, title, arguments.track)
    except OSError as error:
        print(f"error: cannot write {folder}: {error.strerror}; nothing kept", file=sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    print(
        f"made the course '{title}' in {folder}\n"
        f"  next: cd {folder} && coursesite build, then open site/index.html\n"
        "  while writing: coursesite serve (rebuilds and reloads on every save)"
    )
    return 0


def write_starter(folder: Path, title: str, track: str) -> None:
    for source in sorted(p for p in STARTER.rglob("*") if p.is_file()):
        relative = source.relative_to(STARTER)
        target = folder / RENAMED.get(relative.as_posix(), relative.as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8")
        if relative.as_posix() in FILLED:
            quote = _yaml_scalar if source.suffix == ".yaml" else str
            text = text.replace("{title}", quote(title)).replace("{track}", quote(track))
        target.write_text(text, encoding="utf-8")


def _yaml_scalar(text: str) -> str:
    """A title as a YAML scalar on its line: quoted, since a title may hold ': ' or '#'."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
