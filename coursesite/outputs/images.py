"""A lesson's image files, as the site holds them: copied beside the lesson page.

The parse stage checked each image (where it is, and its alt text) and kept its path; here
the plan stage checks the file again, where it is and what it holds, on every build, and
the write stage publishes what the checks allow: a file changed, swapped or removed since
the lesson was parsed is an error at the line that shows it.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from coursesite.errors import BuildError
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.lesson.frontmatter import written_name
from coursesite.lesson.model import LessonImage
from coursesite.outputs.assets import (
    RefusedAsset,
    check_location,
    missing,
    published_image,
    read_regular,
)

if TYPE_CHECKING:
    from coursesite.cache.caches import ImageDigests


@dataclass(frozen=True)
class CopiedImage:
    """A lesson's image file as the site holds it: under a name that changes with its
    content, so that a browser never shows a stale copy from its cache."""

    name: str  # relative to the lesson page: images/<stem>-<digest><suffix>
    digest: str
    source: Path | None  # resolved, checked by assets.check_location; None: `written`
    lesson_path: Path
    image: LessonImage
    written: bytes | None = None  # the bytes the lesson's run wrote (front matter `writes:`)

    @property
    def content(self) -> bytes:
        """The bytes the site publishes, read and checked again as they are published."""
        with _refusal_at(self.lesson_path, self.image):
            if self.source is None:
                assert self.written is not None, "an image is a file or what the run wrote"
                return _checked(self.written, self.image, self.digest)
            return _checked(read_regular(self.source), self.image, self.digest)


def lesson_images(
    lesson_path: Path,
    course_root: Path,
    images: list[LessonImage],
    digests: ImageDigests | None = None,
    record: ExecutionRecord | None = None,
) -> dict[str, CopiedImage]:
    """The `images` of the lesson file at `lesson_path` by their src in the Markdown, each
    checked where it is and what it holds (assets.py) on every build; a refused or missing
    file is an error at the line that shows it. `digests` keeps each file's digest (and so
    its verdict) while the file is unchanged: the plan stage names every image of the
    course on every build. An image the code writes comes from the `record` of its run."""
    copied: dict[str, CopiedImage] = {}
    for image in images:
        if image.written:
            copied[image.src] = _written_copy(lesson_path, image, record)
            continue
        with _refusal_at(lesson_path, image):
            source = check_location(lesson_path.parent / image.path, course_root, image.path)
            checked = functools.partial(_checked_digest, image=image)
            digest = digests.digest(source, checked) if digests else checked(source)
        suffix = Path(image.path).suffix.lower()
        name = f"images/{Path(image.path).stem}-{digest}{suffix}"
        copied[image.src] = CopiedImage(name, digest, source, lesson_path, image)
    return copied


def missing_images(lesson_path: Path, images: list[LessonImage]) -> list[BuildError]:
    """An error for each image of the lesson file (not one its code writes) with no file
    where its path points. The parse keeps such images, so that the build runs the code
    first and names them with what else failed, in one round."""
    return [
        _error_at(lesson_path, image, missing(image.path))
        for image in images
        if not image.written and not os.path.lexists(lesson_path.parent / image.path)
    ]


def image_digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:12]


def _written_copy(
    lesson_path: Path, image: LessonImage, record: ExecutionRecord | None
) -> CopiedImage:
    """The image the lesson's run wrote, as its record keeps it (writtenimages.py)."""
    encoded = record.written.get(written_name(image.path) or "") if record else None
    if encoded is None:  # a record made before the image was listed under `writes:`
        raise BuildError(
            f"the record of the lesson's run holds no image '{image.path}'",
            lesson_path,
            image.line,
            hint="build the lesson again (--force) so that its run writes the image",
        )
    content = base64.b64decode(encoded)
    digest = image_digest(content)
    with _refusal_at(lesson_path, image):
        _checked(content, image, digest)
    name = f"images/{Path(image.path).stem}-{digest}{Path(image.path).suffix.lower()}"
    return CopiedImage(name, digest, None, lesson_path, image, written=content)


def _checked_digest(source: Path, image: LessonImage) -> str:
    content = read_regular(source)
    digest = image_digest(content)
    _checked(content, image, digest)
    return digest


def _checked(content: bytes, image: LessonImage, digest: str) -> bytes:
    """What the site publishes of `content`, or RefusedAsset (assets.published_image)."""
    return published_image(content, Path(image.path).suffix, image.path, digest)


@contextlib.contextmanager
def _refusal_at(lesson_path: Path, image: LessonImage) -> Iterator[None]:
    try:
        yield
    except OSError:  # gone since it was checked
        raise _error_at(lesson_path, image, missing(image.path)) from None
    except RefusedAsset as refused:
        raise _error_at(lesson_path, image, refused) from None


def _error_at(lesson_path: Path, image: LessonImage, refused: RefusedAsset) -> BuildError:
    return BuildError(refused.message, lesson_path, image.line, hint=refused.hint)
