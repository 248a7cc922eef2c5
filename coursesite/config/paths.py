"""Paths an author writes must stay inside the course folder.

A manifest or front matter path is published (a lesson page, a guide, a data file copied
beside the lesson's code and into its download), so `guide: /proc/self/environ` or
`files: [../../.ssh/id_rsa]` would publish whatever it names. Symlinks are resolved first:
a link inside the course that points out of it is just as far outside.
"""

from __future__ import annotations

from pathlib import Path

from coursesite.errors import BuildError

INSIDE_HINT = (
    "keep lesson files, guides and data files inside the folder of lessons.yaml "
    "(symlinks count where they point); copy the file in if you need it"
)


def is_inside(path: Path, root: Path) -> bool:
    """Whether `path`, with every symlink resolved, is `root` or lies below it."""
    return path.resolve().is_relative_to(root.resolve())


def data_files_outside(
    lesson_path: Path, text: str, files: list[str], root: Path
) -> list[BuildError]:
    """An error for each declared data file (relative to the lesson) outside `root`."""
    return [
        BuildError(
            f"data file '{name}' is outside the course folder",
            lesson_path,
            _front_matter_line(text, name),
            hint=INSIDE_HINT,
        )
        for name in files
        if not is_inside(lesson_path.parent / name, root)
    ]


def _front_matter_line(text: str, fragment: str) -> int:
    """The first front matter line that mentions `fragment` (2, its first line, if none)."""
    lines = text.splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            break
        if fragment in line:
            return number
    return 2
