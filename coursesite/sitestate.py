"""What the last build of an output folder left behind, in one file in the cache.

The page stage records which page jobs made which files and whether the search index is
current; the save stage adds the fingerprint of the inputs the build started from, which
lets the next build stop early when nothing changed. Both live in the same file, named
after the output folder, so "is this site current?" has one answer, and forgetting a
folder (as `build.py check` does with its temporary site) leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from .files import short_digest, write_atomically
from .options import BuildOptions


def state_path(options: BuildOptions) -> Path:
    return options.cache / "site" / f"{short_digest(str(options.out.resolve()))}.json"


def load_state(options: BuildOptions) -> dict:
    """The state, or {} when there is none or it is unreadable (then everything is redone)."""
    try:
        state = json.loads(state_path(options).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def update_state(options: BuildOptions, **fields: object) -> None:
    """Set `fields` (a None value removes the field), keeping the others."""
    state = load_state(options)
    state.update(fields)
    state = {name: value for name, value in state.items() if value is not None}
    write_atomically(state_path(options), json.dumps(state, indent=1))


def file_stamps(out: Path, paths: list[str]) -> dict[str, list[int]]:
    """Size and modification time of each file the build wrote: the next build re-renders
    a page whose file was damaged or deleted since, without reading any file."""
    stamps = {}
    for path in paths:
        with contextlib.suppress(OSError):
            status = (out / path).stat()
            stamps[path] = [status.st_size, status.st_mtime_ns]
    return stamps


def files_intact(out: Path, paths: list[str], stamps: object) -> bool:
    """Whether every one of `paths` is as `file_stamps` found it."""
    if not isinstance(stamps, dict):
        return False
    for path in paths:
        try:
            status = (out / path).stat()
        except OSError:
            return False
        if stamps.get(path) != [status.st_size, status.st_mtime_ns]:
            return False
    return True


def forget_state(options: BuildOptions) -> None:
    state_path(options).unlink(missing_ok=True)
