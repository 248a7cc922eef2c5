"""Generated courses for the benchmarks: many lessons in one phase."""

from __future__ import annotations

from pathlib import Path


def write_manifest(target: Path, slugs: list[str]) -> None:
    """A lessons.yaml listing content/<slug>.md for every slug, in one phase."""
    entries = "".join(f"      - slug: {slug}\n        source: content/{slug}.md\n"
                      for slug in slugs)
    (target / "lessons.yaml").write_text(
        "course:\n  title: Scale\n  track: Bench\nsettings:\n  record_packages: [numpy]\n"
        "phases:\n  - id: '01'\n    slug: scale\n    title: Scale\n    lessons:\n" + entries)
