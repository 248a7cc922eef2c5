"""The execution cache: reuse a lesson's record while nothing that could change it changed.

The key is built from named parts (each block's code, each imported package's version, the
interpreter, the declared data files, the execution settings, the runner itself), so that a
miss can say *why*: "step 2 changed", "grain 0.2.18 → 0.2.19". Prose is not part of the key.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from .files import short_digest, write_atomically
from .dependencies import (distribution_version, imported_modules, lesson_inputs,
                           local_module_file)
from .execute import RUNNER, ExecutionRecord, record_from_json, record_to_json
from .manifest import Settings
from .model import Lesson

FORMAT = 3  # 2: blocks kept in execution order; 3: blocks keep their display output


@dataclass(frozen=True)
class CacheKey:
    parts: dict[str, str]

    @property
    def digest(self) -> str:
        return short_digest(json.dumps(self.parts, sort_keys=True))


@dataclass(frozen=True)
class Lookup:
    record: ExecutionRecord | None  # None: a miss
    reason: str  # why it missed (empty on a hit)
    stale: ExecutionRecord | None = None  # on a miss, the last record if it was readable
    recorded: bool = True  # False: kept by a build that failed, not yet saved to records/


def execution_key(lesson: Lesson, settings: Settings,
                  inputs: dict[str, bytes] | None = None) -> CacheKey:
    """The key of a lesson's record; `inputs` are its files by relative path, when already
    read (LessonBuild.inputs)."""
    parts = {f"code:{block.id}": short_digest(f"{block.code.source}\0{block.code.raises}\0"
                                      f"{block.is_figure}")
             for block in lesson.runnable_blocks()}
    parts["values"] = short_digest("\0".join(sorted({v.expression for v in lesson.values})))
    parts["python"] = f"{sys.version.split()[0]} ({sys.executable})"
    parts["settings"] = settings.execution_json()
    # The declared hardware decides where a cluster runs the lesson and what its run must
    # have seen, so a lesson moved from cpu to tpu runs again.
    parts["hardware"] = lesson.front.hardware
    parts["runner"] = _runner_digest()
    folder = lesson.path.parent
    for module in sorted(imported_modules(lesson) | set(settings.record_packages)):
        if local_module_file(module, folder) is None:
            parts[f"package:{module}"] = distribution_version(module) or "not installed"
    if inputs is None:
        inputs = {os.path.relpath(path, folder): path.read_bytes()
                  for path in lesson_inputs(lesson) if path.is_file()}
    for name, content in sorted(inputs.items()):
        parts[f"file:{name}"] = short_digest(content)
    return CacheKey(parts)


@functools.cache
def _runner_digest() -> str:
    return short_digest(RUNNER.read_bytes())


def explain_miss(old: dict[str, str], new: dict[str, str]) -> str:
    """The first few differences between two keys, in an author's words."""
    reasons = []
    for name in sorted(set(old) | set(new)):
        if old.get(name) == new.get(name):
            continue
        kind, _, what = name.partition(":")
        label = what.replace("-", " ", 1) if what.startswith("step-") else f"'{what}'"
        if kind == "code":
            change = "added" if name not in old else "removed" if name not in new else "changed"
            reasons.append(f"{label} {change}")
        elif kind == "package":
            reasons.append(f"{what} {old.get(name, 'not imported')} → "
                           f"{new.get(name, 'not imported')}")
        elif kind == "file":
            reasons.append(f"file {what} changed")
        elif kind == "python":
            reasons.append(f"Python {old.get(name)} → {new.get(name)}")
        elif kind == "values":
            reasons.append("live values changed")
        else:
            reasons.append(f"{kind} changed")
    more = f" (+{len(reasons) - 3} more)" if len(reasons) > 3 else ""
    return ", ".join(reasons[:3]) + more


class ExecutionCache:
    """One JSON file per lesson in `folder`; unreadable entries count as misses."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, slug: str) -> Path:
        return self.folder / f"{slug}.json"

    def lookup(self, slug: str, key: CacheKey) -> Lookup:
        path = self._path(slug)
        if not path.is_file():
            return Lookup(None, "not run before")
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("format") != FORMAT:
                return Lookup(None, "cache format changed")
            record = record_from_json(entry["record"])
            if entry["key"] == key.digest:
                return Lookup(record, "", recorded=entry.get("recorded", True))
            return Lookup(None, explain_miss(entry["parts"], key.parts) or "key changed", record)
        except (ValueError, KeyError, TypeError) as problem:
            return Lookup(None, f"cache entry unreadable ({type(problem).__name__}), re-running")

    def store(self, slug: str, key: CacheKey, record: ExecutionRecord,
              recorded: bool) -> None:
        """Keep `record`; `recorded` says whether records/ holds it too (see Lookup)."""
        entry = {"format": FORMAT, "key": key.digest, "parts": key.parts,
                 "record": record_to_json(record), "recorded": recorded}
        write_atomically(self._path(slug), json.dumps(entry, indent=1))
