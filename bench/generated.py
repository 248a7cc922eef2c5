"""Generated courses for the benchmarks: many copies of one lesson, in phases."""

from __future__ import annotations

import shutil
from pathlib import Path


def write_manifest(target: Path, slugs: list[str], per_phase: int | None = None) -> None:
    """A lessons.yaml listing content/<slug>.md for every slug: in phases of `per_phase`
    lessons (phase ids 001, 002, ...), or all in one phase."""
    per_phase = per_phase or len(slugs)
    phases = []
    for number, start in enumerate(range(0, len(slugs), per_phase), 1):
        entries = "".join(
            f"      - slug: {slug}\n        source: content/{slug}.md\n"
            for slug in slugs[start : start + per_phase]
        )
        phases.append(
            f"  - id: '{number:03d}'\n    slug: phase-{number:03d}\n"
            f"    title: Phase {number}\n    lessons:\n" + entries
        )
    (target / "lessons.yaml").write_text(
        "course:\n  title: Scale\n  track: Bench\nsettings:\n  record_packages: [numpy]\n"
        "phases:\n" + "".join(phases)
    )


def share_cache_entry(cache: Path, source: str, slugs: list[str]) -> None:
    """Copy lesson `source`'s execution-cache entry to every slug: generated lessons share
    their code, so their entries are the same, and a large course need not run 1,000 times
    to measure everything that follows execution."""
    entry = cache / "records" / f"{source}.json"
    for slug in slugs:
        target = entry.with_name(f"{slug}.json")
        if not target.exists():
            shutil.copy2(entry, target)
