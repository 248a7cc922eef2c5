"""Writing files so that no reader, and no later build, ever sees half of one; naming
cache files by a digest of what they hold."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from coursesite.errors import writing


def short_digest(data: str | bytes) -> str:
    """The name every cache and state file is keyed by: 16 hex digits of SHA-256."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def write_in_place(path: Path, content: str | bytes) -> None:
    """Write `path` directly, for a file nothing reads until it is written; an error that
    names no file (a full disk) names it."""
    with writing(path):
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write through a temporary file and a rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        if isinstance(content, str):
            content = content.encode("utf-8")
        with writing(path), os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class OutputFile:
    """One file of the site: its path relative to the site root and its content."""

    path: str
    content: str | bytes
