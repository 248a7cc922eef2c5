"""A lesson's image files, as the site holds them: copied beside the lesson page.

The parse stage checked each image (a file inside the course folder, with alt text) and
kept its path; here the render stage reads it again, so a file changed since then is the
one published, and one removed since is an error at the line that shows it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import BuildError
from .model import LessonImage

if TYPE_CHECKING:
    from .caches import ImageDigests


@dataclass(frozen=True)
class CopiedImage:
    """A lesson's image file as the site holds it: under a name that changes with its
    content, so that a browser never shows a stale copy from its cache."""

    name: str  # relative to the lesson page: images/<stem>-<digest><suffix>
    digest: str
    source: Path

    @property
    def content(self) -> bytes:
        return self.source.read_bytes()


def lesson_images(
    lesson_path: Path, images: list[LessonImage], digests: ImageDigests | None = None
) -> dict[str, CopiedImage]:
    """The `images` of the lesson file at `lesson_path` by their src in the Markdown; a file
    gone since the lesson was parsed (its parse came from the cache) is an error at the
    line that shows it. `digests` keeps each file's digest while the file is unchanged: the
    plan stage names every image of the course on every build."""
    copied: dict[str, CopiedImage] = {}
    for image in images:
        path = lesson_path.parent / image.path
        try:
            digest = digests.digest(path) if digests else image_digest(path.read_bytes())
        except OSError:
            raise BuildError(
                f"image file '{image.path}' not found",
                lesson_path,
                image.line,
                hint="image paths are relative to the folder of the lesson file",
            ) from None
        name = f"images/{path.stem}-{digest}{path.suffix.lower()}"
        copied[image.src] = CopiedImage(name, digest, path)
    return copied


def image_digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:12]
