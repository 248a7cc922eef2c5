"""Which folder a build may replace with the site.

Every build replaces its output folder as a whole (write.py), so the wrong `--out` would
delete what was there: `--out docs` the Markdown docs, `--out .` the checkout with its
`.git`. A build therefore writes only into a folder that is new, empty, or a site it wrote
itself, which it marks with MARKER; and never into the folders the course is made of.
"""

from __future__ import annotations

from pathlib import Path

from coursesite import PACKAGE
from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors

MARKER = ".coursesite"
MARKER_TEXT = (
    "This folder is a course website written by build.py (coursesite).\n"
    "Every build replaces the whole folder: keep no files of your own in it.\n"
)
GENERATOR = PACKAGE
REPLACES_WHOLE = "every build replaces its output folder as a whole"
CHOOSE_ANOTHER = "choose a new or empty folder, such as site/ (the default) or /tmp/preview"


def check_output_folder(options: BuildOptions) -> None:
    """Raise BuildErrors unless `options.out` is a folder this build may replace."""
    problem = _source_folder_problem(options) or ownership_problem(options.out)
    if problem:
        raise BuildErrors([problem])


def ownership_problem(out: Path) -> BuildError | None:
    """Why `out` may not be replaced (it is a file, or holds files no build wrote), or None."""
    if not out.exists():
        return None
    if not out.is_dir():
        return BuildError(f"the output folder {out} is a file, not a folder", hint=CHOOSE_ANOTHER)
    if is_ours(out) or not any(out.iterdir()):
        return None
    return BuildError(
        f"the output folder {out} is not empty and holds no {MARKER} file, so no build "
        f"wrote it; {REPLACES_WHOLE}, which would delete its files",
        hint="choose an empty or new folder with --out, or remove this one first",
    )


def is_ours(folder: Path) -> bool:
    """A site a build wrote: it holds the marker, or (written before there was a marker)
    index.html and static/site.js, which every page loads."""
    return (folder / MARKER).is_file() or (
        (folder / "index.html").is_file() and (folder / "static" / "site.js").is_file()
    )


def _source_folder_problem(options: BuildOptions) -> BuildError | None:
    """The site may not replace or contain a folder the course is made of, nor go inside
    its sources (`serve` would rebuild on its own writes; static/ would copy itself)."""
    out = options.out.resolve()
    root = options.manifest.resolve().parent
    for folder, what, holds_sites in _course_folders(options, root):
        if out == folder or folder.is_relative_to(out):
            relation = "is" if out == folder else "contains"
            return BuildError(
                f"the output folder {options.out} {relation} {what}; "
                f"{REPLACES_WHOLE}, which would delete it",
                hint=CHOOSE_ANOTHER,
            )
        if not holds_sites and out.is_relative_to(folder):
            return BuildError(
                f"the output folder {options.out} is inside {what}, which "
                "holds what the site is built from",
                hint=CHOOSE_ANOTHER,
            )
    return None


def _course_folders(options: BuildOptions, root: Path) -> list[tuple[Path, str, bool]]:
    """(folder, what it is, whether a site may go inside it)."""
    own = [
        (root / name, f"the course's {name}/ folder", False)
        for name in ("content", "templates", "static", "records", ".git")
    ]
    theme = [
        (folder.resolve(), what, False)
        for folders, what in (
            (options.template_folders, "a templates folder"),
            (options.static_folders, "a static files folder"),
        )
        for folder in folders
        if folder.resolve() not in (root / "templates", root / "static")
    ]
    return [
        (root, "the course folder (of lessons.yaml)", True),
        (GENERATOR, "the generator's folder", True),
        (options.cache.resolve(), "the build cache", True),
        *theme,
        *own,
    ]
