"""Distributions a reader needs that no line of the lesson imports: an installed library
imported them itself while `python main.py` ran (JAX's `visualize_array_sharding` imports
rich, an optional dependency it does not declare, so pip would not install it).

The import guard (importguard.py) lets such an import through and writes it down; here the
record of the run gets those distributions, pinned to the versions installed, and the setup
help's install line lists them after the lesson's own (installs.py, render/lessonpage.py). The
build says so: it is the lesson's code that needs them, through the library.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from importlib import metadata
from pathlib import Path

from coursesite.execution.dependencies import normalized_name
from coursesite.execution.environment import RUN_TIME_IMPORTS
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.installs import with_dependencies


def with_run_time_installs(
    record: ExecutionRecord, guard: Path, optional: Iterable[str] = ()
) -> ExecutionRecord:
    """`record`, with the distributions that libraries imported while main.py ran (the
    guard's folder holds the list), and the `optional` ones a library failed without, in
    its `run_time_installs` and their versions in its `packages`. Only those that none of
    the others requires: pip installs those with it."""
    try:
        lines = (guard / RUN_TIME_IMPORTS).read_text(encoding="utf-8").splitlines()
    except OSError:  # nothing was imported so
        lines = []
    found = {json.loads(line)[1] for line in lines if line.strip()} | set(optional)
    if not found:
        return record
    pulled = {name: with_dependencies((name,)) - {normalized_name(name)} for name in found}
    needed = [name for name in found if not any(normalized_name(name) in pulled[o] for o in found)]
    needed = sorted(needed or found, key=str.lower)
    versions: dict[str, str | None] = {}
    for name in needed:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return replace(record, run_time_installs=needed, packages={**record.packages, **versions})


def run_time_note(record: ExecutionRecord) -> str:
    """What the build says of a record with run-time installs; '' for one without."""
    if not record.run_time_installs:
        return ""
    names = ", ".join(record.run_time_installs)
    it = "them" if len(record.run_time_installs) > 1 else "it"
    return (
        f"note: {record.lesson}: the setup help's install line adds {names}: an installed "
        f"library imported {it} while main.py ran, though no line of the lesson imports {it}"
    )
