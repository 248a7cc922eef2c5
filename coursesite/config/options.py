"""Build options: what the command line decides, read by every stage that needs it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from coursesite import DEFAULT_THEME


@dataclass(frozen=True)
class BuildOptions:
    manifest: Path
    out: Path
    templates: Path  # the course's own templates: each file overrides the theme's of its name
    static: Path  # the course's own static files, likewise
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

    theme: Path = DEFAULT_THEME  # a folder holding templates/ and static/

    @property
    def template_folders(self) -> list[Path]:
        """Where templates are looked up, first match wins: the course's, then the theme's."""
        return _layers(self.templates, self.theme / "templates")

    @property
    def static_folders(self) -> list[Path]:
        """The static files published, a course's file replacing the theme's of its name."""
        return _layers(self.static, self.theme / "static")

    @property
    def records(self) -> Path:
        """The committed execution records, next to the manifest."""
        return self.manifest.resolve().parent / "records"


def _layers(course: Path, theme: Path) -> list[Path]:
    return [course, theme] if course.is_dir() and course.resolve() != theme.resolve() else [theme]


def site_path(base_url: str | None) -> str:
    """The path the site is published under: "/course/" for https://example.org/course/,
    "/" without a base URL. Where pages cannot link relatively (the 404 page, served at any
    missing address), their links start from it."""
    return urlsplit(base_url).path or "/" if base_url else "/"
