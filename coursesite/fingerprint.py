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
from dataclasses import dataclass
from pathlib import Path

import yaml

from .options import BuildOptions
from .sitestate import files_intact, load_state, update_state

GENERATOR = Path(__file__).resolve().parent


def _input_folders(options: BuildOptions) -> set[Path]:
    root = options.manifest.resolve().parent
    folders = {options.templates.resolve(), options.static.resolve(), GENERATOR}
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    manifest = yaml.load(options.manifest.read_text(encoding="utf-8"), Loader=loader)
    for phase in manifest["phases"]:
        if phase.get("guide"):
            folders.add((root / phase["guide"]).resolve().parent)
        for lesson in phase["lessons"]:
            folders.add((root / lesson["source"]).resolve().parent)
    return folders


def compute(options: BuildOptions, extra_inputs: list[str]) -> str | None:
    """The fingerprint of everything the build would read; None if it cannot be known."""
    digest = hashlib.sha256()
    try:
        paths = {options.manifest.resolve(), *map(Path, extra_inputs)}
        for folder in _input_folders(options):
            paths.update(p for p in folder.rglob("*")
                         if p.is_file() and "__pycache__" not in p.parts)
        for path in sorted(paths):
            digest.update(f"{path}\0".encode() + path.read_bytes())
    except (OSError, ValueError, KeyError, TypeError, AttributeError, yaml.YAMLError):
        return None  # a manifest too broken to read: let the full build explain
    distributions = sorted(name for entry in sys.path if os.path.isdir(entry)
                           for name in os.listdir(entry) if name.endswith(".dist-info"))
    digest.update(json.dumps([sys.version, sys.executable, distributions,
                              str(options.out.resolve()), options.frozen, options.base_url,
                              options.edition]).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """The inputs' fingerprint, taken before a build reads anything: an edit made while it
    runs is then seen by the next build."""

    fingerprint: str | None
    extra_inputs: list[str]  # the data files lessons declared last time


def take(options: BuildOptions) -> Snapshot:
    extra = load_state(options).get("extra_inputs")
    extra = [str(path) for path in extra] if isinstance(extra, list) else []
    return Snapshot(compute(options, extra), extra)


def site_is_current(options: BuildOptions, snapshot: Snapshot) -> bool:
    if options.force or options.only or options.frozen or snapshot.fingerprint is None:
        return False
    state = load_state(options)
    stamps = state.get("stamps")
    if snapshot.fingerprint != state.get("fingerprint") or not isinstance(stamps, dict):
        return False
    return files_intact(options.out, list(stamps), stamps)


def save(options: BuildOptions, fingerprint: str | None, extra_inputs: list[str]) -> None:
    """Remember the fingerprint taken when the (now finished) build started; None forgets
    it, so that the next build does the full work. The files it wrote, and their stamps,
    are in the same state (see write.write_changed)."""
    update_state(options, fingerprint=fingerprint, extra_inputs=extra_inputs)
