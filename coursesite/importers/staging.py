"""An import is written whole into `.cache/import/` and moved into place at the end,
lessons.yaml last: until then content/ and lessons.yaml are untouched, so an import killed
at any point (SIGKILL too) leaves nothing an author sees.

The staging folder is inside the course so that each move is a rename on one file system.
It holds `tree/` (the new files at their paths in the course) and, once they are all
written, `moves.json`: what is about to be moved, with each staged file's inode. One import
runs at a time (a lock in `.cache/`), so a staging folder the next import finds was left by
one that died: when its lessons.yaml was never moved, whatever it did move is taken back
(only if it is still the file it staged, by inode); then the folder goes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.files import write_atomically
from coursesite.publish.lock import import_lock

_JOURNAL = "moves.json"


@contextmanager
def staged_import(root: Path, manifest: Path) -> Iterator[Staging]:
    """A staging folder for an import into the course at `root`, for the block: left
    behind by nobody, whatever the block does (a dead import's is cleared first)."""
    cache = root / ".cache"
    with import_lock(cache):
        folder = cache / "import"
        clear_abandoned(folder, root)
        try:
            yield Staging(root, folder, manifest)
        finally:
            _remove(folder)


class Staging:
    def __init__(self, root: Path, folder: Path, manifest: Path):
        self.root, self.folder, self.manifest = root, folder, manifest
        self.tree = folder / "tree"
        self.tree.mkdir(parents=True)
        self.written: list[Path] = []  # course paths, in the order they were staged

    def write(self, path: Path, content: str | bytes) -> None:
        """Stage `content` to become the file `path` of the course."""
        staged = self.tree / path.relative_to(self.root)
        staged.parent.mkdir(parents=True, exist_ok=True)
        _store(staged, content.encode("utf-8") if isinstance(content, str) else content)
        self.written.append(path)

    def commit(self, manifest_text: str, check: Callable[[], object]) -> None:
        """Move every staged file into place, then lessons.yaml, and `check` the course so
        made; on any failure (an interrupt too), put back what was moved and raise."""
        self.write(self.manifest, manifest_text)
        staged_manifest = self.tree / self.manifest.relative_to(self.root)
        shutil.copymode(self.manifest, staged_manifest)
        before = self.folder / "lessons.yaml.before"
        shutil.copy2(self.manifest, before)
        moves = self._moves()
        journal = [{"path": path, **_identity(self.tree / path)} for path in moves]
        write_atomically(self.folder / _JOURNAL, json.dumps(journal))
        try:
            for path in moves:
                target = self.root / path
                if os.path.lexists(target) and target != self.manifest:
                    raise BuildError(
                        "a file appeared there during the import", target, hint="import again"
                    )
                os.replace(self.tree / path, target)
            check()
        except BaseException:
            if not staged_manifest.exists():  # it was moved: put the author's back
                os.replace(before, self.manifest)
            _take_back(self.root, self.tree, journal)
            raise

    def _moves(self) -> list[str]:
        """The paths to rename, relative to the course: for each new file, its highest
        folder the course lacks (one rename brings a new phase's folder whole), or itself;
        lessons.yaml last, the move that makes the import happen."""
        moves: list[str] = []
        for path in self.written:
            relative = path.relative_to(self.root)
            for depth in range(1, len(relative.parts) + 1):
                top = Path(*relative.parts[:depth])
                if not os.path.lexists(self.root / top) or depth == len(relative.parts):
                    if top.as_posix() not in moves:
                        moves.append(top.as_posix())
                    break
        manifest = self.manifest.relative_to(self.root).as_posix()
        return [path for path in moves if path != manifest] + [manifest]


def clear_abandoned(folder: Path, root: Path) -> None:
    """Remove the staging folder of an import that died, taking back what it had moved
    into the course unless it had got as far as moving lessons.yaml (then it is done)."""
    if not folder.exists():
        return
    try:
        journal = json.loads((folder / _JOURNAL).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        journal = None  # written before the first move: without it, nothing was moved
    if isinstance(journal, list) and journal:
        manifest = folder / "tree" / journal[-1]["path"]
        if manifest.exists():
            _take_back(root, folder / "tree", journal)
    _remove(folder)


def _take_back(root: Path, tree: Path, journal: list[dict]) -> None:
    """Remove from the course each path the journal moved out of `tree`, if it is still
    the file or folder that was staged (its inode): never anything of the author's."""
    for entry in journal[:-1]:  # the last is lessons.yaml, restored by its caller
        target = root / entry["path"]
        if os.path.lexists(tree / entry["path"]) or not os.path.lexists(target):
            continue  # never moved
        if _identity(target) != {"device": entry["device"], "inode": entry["inode"]}:
            continue
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()


def _identity(path: Path) -> dict[str, int]:
    status = path.lstat()
    return {"device": status.st_dev, "inode": status.st_ino}


def _store(path: Path, content: bytes) -> None:
    # On disk before the moves that make it part of the course: after a power cut, a
    # file renamed into place before its data was written can come back empty.
    with open(path, "xb") as stream:
        stream.write(content)
        stream.flush()
        os.fsync(stream.fileno())


def _remove(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(folder)
