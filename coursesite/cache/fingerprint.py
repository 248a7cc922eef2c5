"""The no-op fast path: know that nothing changed without parsing or importing anything heavy.

A fingerprint covers every input a build reads: the manifest, every file in the folders
holding lessons, guides, templates and static assets, the data files lessons declared last
time, the generator's own code, the interpreter and the installed distributions. When it
equals the one stored by the last successful build and that build's files are all present,
the site is current. Any difference falls back to the full, incremental build.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from coursesite import PACKAGE
from coursesite.config.options import BuildOptions
from coursesite.publish.sitestate import files_intact, load_state, update_state

GENERATOR = PACKAGE


def compute(
    options: BuildOptions, extra_inputs: list[str], content_folders: list[str]
) -> str | None:
    """The fingerprint of everything the build would read; None if it cannot be known.

    `content_folders` hold the lessons and guides, as the last build's validated manifest
    named them: the manifest is an input too, so a change to it changes the fingerprint
    without being parsed here.
    """
    if not content_folders:
        return None  # no build has said where the lessons are: build in full
    digest = hashlib.sha256()
    folders = {
        *(folder.resolve() for folder in options.template_folders + options.static_folders),
        GENERATOR,
        *map(Path, content_folders),
    }
    try:
        paths = {options.manifest.resolve(), *map(Path, extra_inputs)}
        for folder in folders:
            paths.update(
                p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
        for path in sorted(paths):
            digest.update(f"{path}\0".encode() + path.read_bytes())
    except OSError:
        return None  # something moved meanwhile: let the full build find out
    distributions = sorted(
        name
        for entry in sys.path
        if os.path.isdir(entry)
        for name in os.listdir(entry)
        if name.endswith(".dist-info")
    )
    digest.update(
        json.dumps(
            [
                sys.version,
                sys.executable,
                distributions,
                str(options.out.resolve()),
                options.frozen,
                options.base_url,
                options.edition,
            ]
        ).encode()
    )
    return digest.hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """The inputs' fingerprint, taken before a build reads anything: an edit made while it
    runs is then seen by the next build."""

    fingerprint: str | None
    extra_inputs: list[str]  # the data files lessons declared last time
    content_folders: list[str]  # the folders of its lessons and guides
    site_state: dict = field(default_factory=dict)  # as the snapshot read it


def take(options: BuildOptions) -> Snapshot:
    state = load_state(options)
    extra, folders = (_paths(state.get(name)) for name in ("extra_inputs", "content_folders"))
    return Snapshot(compute(options, extra, folders), extra, folders, state)


def _paths(value: object) -> list[str]:
    return [str(path) for path in value] if isinstance(value, list) else []


def site_is_current(options: BuildOptions, snapshot: Snapshot) -> bool:
    if options.force or options.only or options.frozen or snapshot.fingerprint is None:
        return False
    state = snapshot.site_state
    stamps = state.get("stamps")
    if snapshot.fingerprint != state.get("fingerprint") or not isinstance(stamps, dict):
        return False
    return files_intact(options.out, list(stamps), stamps)


def save(
    options: BuildOptions,
    fingerprint: str | None,
    extra_inputs: list[str],
    content_folders: list[str],
    site_state: dict | None = None,
) -> None:
    """Remember the fingerprint taken when the (now finished) build started; None forgets
    it, so that the next build does the full work. The files it wrote, and their stamps,
    are in the same state (see render/changed.py)."""
    update_state(
        options,
        site_state,
        fingerprint=fingerprint,
        extra_inputs=extra_inputs,
        content_folders=content_folders,
    )
