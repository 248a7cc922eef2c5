"""The output folder's replacement: readers only ever see a complete site.

A build fills a staging folder beside the output folder and renames it into place only
when all of it is written, so a failed or interrupted build leaves the previous site as it
was. The site it replaces is kept beside it as the *spare* (`.site.spare`), and the next
build fills its staging folder by bringing the spare up to date instead of starting from
an empty one: at 1,000 lessons a site has 2,200 folders and 13,000 files, and making the
folders alone took longer than the rest of a one-word prose edit on this machine's disk,
while an unchanged page in the spare is usually the very file (a hard link, the same inode)
of the site it is about to replace.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from coursesite.errors import writing
from coursesite.publish.outfolder import MARKER


def spare(out: Path) -> Path:
    return out.parent / f".{out.name}.spare"


def staging_folder(out: Path, kept: dict[str, int | None], written: set[str], trash: Path) -> Path:
    """A folder beside `out` holding `kept` (relative path -> the inode it has in `out`,
    None if unknown) as links to `out`'s files: the spare brought up to date, or a new
    folder. The paths in `written`, which the caller writes next, may already hold a file
    (see `write_file`); everything else the spare held goes, folders into `trash` (deleted
    later, in the background). Static files and the search index are the caller's to add."""
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    recycled, in_place = spare(out), set()
    if (recycled / MARKER).is_file():
        os.rename(recycled, staging)  # onto the empty folder mkdtemp made
        in_place = _prune(staging, kept, written, trash)
    elif recycled.exists():  # not a site: never reuse what no build wrote
        os.rename(recycled, trash / "spare")
    link_all(out, staging, [path for path in kept if path not in in_place])
    return staging


def write_file(path: Path, content: str | bytes) -> None:
    """Write `path` in the staging folder. A file of the spare that no other folder shares
    is overwritten where it is (cheaper than a new one); one linked from the site being
    replaced is unlinked first, as writing into it would change that site."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        if status.st_nlink > 1 or not stat.S_ISREG(status.st_mode):  # shared, or not a file
            _remove(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    with writing(path), open(path, "wb") as file:
        file.write(data)


@dataclass(frozen=True)
class SiteFolder:
    """The new site as an on_site hook sees it: read its files below `path`; add or
    replace one with `write` only, since a page kept from the site being replaced shares
    that site's file, and writing into it would change the site readers see."""

    path: Path

    def write(self, relative: str, content: str | bytes) -> None:
        target = self.path / relative
        if not target.resolve().is_relative_to(self.path.resolve()):
            raise ValueError(f"{relative!r} is not a path inside the site")
        write_file(target, content)


def copy_folder(source: Path, target: Path) -> None:
    """Copy the files under `source` into `target`, replacing those of the same name. Not
    shutil.copytree, which goes on after a failure and raises a list of them: on a full
    disk, one error naming the file it could not write says enough."""
    for folder, _, names in os.walk(source, followlinks=True):
        into = target / os.path.relpath(folder, source)
        into.mkdir(parents=True, exist_ok=True)
        for name in names:
            with writing(into / name):
                shutil.copy2(os.path.join(folder, name), into / name)


def swap(staging: Path, out: Path, trash: Path) -> None:
    """Replace `out` with `staging`; the replaced site becomes the spare."""
    if spare(out).exists():
        os.rename(spare(out), trash / "old-spare")
    if out.exists():
        os.rename(out, spare(out))
    os.rename(staging, out)


def trash_folder(out: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))


def remove_leftovers(out: Path) -> None:
    """Staging folders of builds that were killed before they could clean up.

    The build lock guarantees that no other build is writing next to `out` right now.
    """
    for prefix in (f".{out.name}.new-", f".{out.name}.old-", f".{out.name}.search-"):
        for folder in out.parent.glob(prefix + "*"):
            shutil.rmtree(folder, ignore_errors=True)


def discard(folder: Path) -> None:
    """Delete a folder without making the author wait for it.

    Deleting a large site (13,000 files at 1,000 lessons) took longer than the rest of a
    prose-edit build, and nothing needs it gone. A detached process deletes it; if that
    process is stopped first, the next build that writes removes what is left
    (`remove_leftovers`).
    """
    if not any(folder.iterdir()):
        folder.rmdir()
        return
    try:
        subprocess.Popen(
            [sys.executable, "-c", _DELETE_FOLDER, str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C in the terminal after the build is not for it
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)


_DELETE_FOLDER = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"


def link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        with writing(target):
            shutil.copy2(source, target)


def link_all(source: Path, target: Path, paths: Iterable[str]) -> None:
    """`link_or_copy` for every one of `paths` (relative to both folders); os.path and one
    mkdir per folder, because a large site keeps ~13,000 files from build to build."""
    made: set[str] = set()
    source_root, target_root = str(source), str(target)
    for path in paths:
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(os.path.join(target_root, folder), exist_ok=True)
            made.add(folder)
        origin, copy = os.path.join(source_root, path), os.path.join(target_root, path)
        try:
            os.link(origin, copy)
        except OSError:  # a file system without hard links
            with writing(copy):
                shutil.copy2(origin, copy)


def _prune(staging: Path, kept: dict[str, int | None], written: set[str], trash: Path) -> set[str]:
    """Leave in the recycled `staging` only the kept files that already are `out`'s (the
    same inode) and the files about to be written; return the kept ones. One pass over
    the folder listings, which give each entry's inode without a stat."""
    folders = {path.rpartition("/")[0] for path in [*kept, *written]}
    for folder in list(folders):
        while (folder := folder.rpartition("/")[0]) and folder not in folders:
            folders.add(folder)
    in_place, pending, discarded = set(), [""], 0
    while pending:
        relative = pending.pop()
        with os.scandir(os.path.join(staging, relative)) as entries:
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if path in folders:
                        pending.append(path)
                    else:  # a whole folder no longer in the site: one rename
                        discarded += 1
                        os.rename(entry.path, trash / str(discarded))
                elif path in written:
                    continue
                elif entry.inode() == kept.get(path, -1) and entry.is_file(follow_symlinks=False):
                    in_place.add(path)
                else:
                    os.unlink(entry.path)
    return in_place


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
