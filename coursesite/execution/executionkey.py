"""What a lesson's record depends on: the key of the execution cache and of records/.

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

from coursesite.config.manifest import Settings
from coursesite.execution.dependencies import distribution_version, input_files, is_local_module
from coursesite.execution.execute import RUNNER
from coursesite.execution.probes import probes_digest
from coursesite.files import short_digest
from coursesite.lesson.model import Lesson, LessonOutline


@dataclass(frozen=True)
class CacheKey:
    parts: dict[str, str]

    @property
    def digest(self) -> str:
        return short_digest(json.dumps(self.parts, sort_keys=True))


def code_parts(lesson: Lesson) -> dict[str, str]:
    """The parts of the key that come from the lesson's text: each block's code and the
    live values' expressions (kept in the lesson's outline, model.LessonOutline)."""
    parts = {
        f"code:{block.id}": short_digest(
            f"{block.code.source}\0{block.code.raises}\0{block.is_figure}"
        )
        for block in lesson.runnable_blocks()
    }
    for attempt in lesson.attempts:  # proved on every run: passes after the solution only
        parts[f"code:{attempt.check_id}"] = short_digest(
            f"{attempt.starter.source}\0{attempt.check.source}"
        )
    parts["values"] = short_digest("\0".join(sorted({v.expression for v in lesson.values})))
    if lesson.front.writes:  # a record keeps the images its run wrote, and only those
        parts["writes"] = short_digest("\0".join(sorted(lesson.front.writes)))
    return parts


def execution_key(
    outline: LessonOutline,
    folder: Path,
    settings: Settings,
    inputs: dict[str, bytes] | None = None,
    installed: tuple[tuple[str, int], ...] | None = None,
) -> CacheKey:
    """The key of the record of the lesson whose file is in `folder`; `inputs` are its
    files by relative path, when already read (LessonBuild.inputs), and `installed` the
    build's `installed_signature()`."""
    parts = dict(outline.code)
    parts["python"] = f"{sys.version.split()[0]} ({sys.executable})"
    parts["settings"] = settings.execution_json()
    # The declared hardware decides where a cluster runs the lesson and what its run must
    # have seen, so a lesson moved from cpu to tpu runs again.
    parts["hardware"] = outline.front.hardware
    parts["runner"] = _runner_digest()
    parts["probes"] = probes_digest()
    for module in sorted(outline.modules | set(settings.record_packages)):
        if not is_local_module(module, folder):
            parts[f"package:{module}"] = distribution_version(module, installed) or "not installed"
    if inputs is None:
        declared = outline.front.declared_files()
        inputs = {
            os.path.relpath(path, folder): path.read_bytes()
            for path in input_files(folder, declared, outline.modules)
            if path.is_file()
        }
    for name, content in sorted(inputs.items()):
        parts[f"file:{name}"] = short_digest(content)
    return CacheKey(parts)


# The runner and the companions it loads from beside it: what a block shows comes from them.
RUNNER_FILES = (
    RUNNER,
    # and main.py's sitecustomize, which decides what its record's install line adds
    *(
        RUNNER.with_name(f"{name}.py")
        for name in (
            "lessonoutputs",
            "fdcapture",
            "lessondisplays",
            "networkerrors",
            "lessonreceipt",
            "failingcall",
            "wholeprints",
            "programlimits",
            "importguard",
        )
    ),
)


@functools.cache
def _runner_digest() -> str:
    return short_digest(b"".join(path.read_bytes() for path in RUNNER_FILES))


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
            reasons.append(
                f"{what} {old.get(name, 'not imported')} → {new.get(name, 'not imported')}"
            )
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
