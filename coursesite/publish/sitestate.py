"""What the last build of an output folder left behind, in one file in the cache.

The page stage records which page jobs made which files and whether the search index is
current; the save stage adds the fingerprint of the inputs the build started from, which
lets the next build stop early when nothing changed. Both live in the same file, named
after the output folder, so "is this site current?" has one answer, and forgetting a
folder (as `build.py check` does with its temporary site) leaves nothing behind.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from coursesite.config.options import BuildOptions
from coursesite.files import short_digest, write_atomically


def state_path(options: BuildOptions) -> Path:
    return options.cache / "site" / f"{short_digest(str(options.out.resolve()))}.json"


def load_state(options: BuildOptions) -> dict:
    """The state, or {} when there is none or it is unreadable (then everything is redone)."""
    # msgspec, not json: at 1,000 lessons the state holds ~11,000 file stamps, and a build
    # reads it three times and writes it twice.
    try:
        state = msgspec.json.decode(state_path(options).read_bytes())
    except (OSError, msgspec.DecodeError):
        return {}
    return state if isinstance(state, dict) else {}


def update_state(options: BuildOptions, base: dict | None = None, **fields: object) -> dict:
    """Set `fields` (a None value removes the field), keeping the others; return the state.

    `base` is the state as the caller last loaded or wrote it (while holding the output
    lock, nothing else writes it), saving a read of a file that grows with the site.
    """
    state = dict(load_state(options) if base is None else base)
    state.update(fields)
    state = {name: value for name, value in state.items() if value is not None}
    write_atomically(state_path(options), msgspec.json.encode(state))
    return state


def file_stamps(out: Path, paths: list[str]) -> dict[str, list[int]]:
    """Size, modification time and inode of each file the build wrote: the next build
    re-renders a page whose file was damaged or deleted since, without reading any file,
    and finds which files of the spare site are still the same (sitefolder.py)."""
    stamps = {}
    folder = str(out)  # os.path, not pathlib: this runs for every file of a large site
    for path in paths:
        stamp = _stamp(os.path.join(folder, path))
        if stamp is not None:
            stamps[path] = stamp
    return stamps


def files_intact(out: Path, paths: list[str], stamps: object) -> bool:
    """Whether every one of `paths` is as `file_stamps` found it."""
    if not isinstance(stamps, dict):
        return False
    folder = str(out)
    return all(
        (stamp := _stamp(os.path.join(folder, path))) is not None and stamps.get(path) == stamp
        for path in paths
    )


def _stamp(path: str) -> list[int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns, status.st_ino]


def search_state(options: BuildOptions) -> Path:
    """What the search index of the site `options.out` was built from (searchindex.py).

    It may describe a newer index than the site's, if a build failed after indexing: the
    pages it names then exist nowhere, so no shard is reused on its word."""
    return options.cache / "search" / f"{short_digest(str(options.out.resolve()))}.json"


def forget_state(options: BuildOptions) -> None:
    """Remove what the cache holds about the output folder, which is going away (as
    `build.py check`'s temporary site does), and the search states of folders forgotten
    before this one learnt to remove them: a search state outlives its site's state only
    when forgotten, since a build that indexes a site always records the site's state."""
    state_path(options).unlink(missing_ok=True)
    search_state(options).unlink(missing_ok=True)
    sites = options.cache / "site"
    for path in (options.cache / "search").glob("*.json"):
        if not (sites / path.name).exists():
            path.unlink(missing_ok=True)
