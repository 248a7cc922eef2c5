"""Build options: what the command line decides, read by every stage that needs it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BuildOptions:
    manifest: Path
    out: Path
    templates: Path
    static: Path
    cache: Path
    jobs: int = os.cpu_count() or 1
    force: bool = False
    only: str | None = None  # build just this lesson (others come from the cache)
    frozen: bool = False  # publish from records/ without running any code
    base_url: str | None = None  # where the site will be published, for sitemap and canonical
    edition: str = "full"  # "student": no reference solution anywhere in the output
    cluster: str | None = None  # a Dask scheduler's address: run lessons there, not here
    # `serve` publishes pages first and the search index right after (searchindex.refresh_search)
    defer_search_index: bool = False

    @property
    def records(self) -> Path:
        """The committed execution records, next to the manifest."""
        return self.manifest.resolve().parent / "records"
