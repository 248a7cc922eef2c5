"""Which files a lesson may publish as images, judged by where they are and what they hold.

A path inside the course folder is not enough: `![diagram](../.env)` names a file inside it
too, and whatever a page links to is public. An image must be a regular file inside the
course folder, outside every dot-folder and the course's own records, with a suffix of an
image type and bytes of that type. SVG is a document that can run script when opened on
its own, so the site publishes an SVG only as `svgclean` rebuilds it from its allowlist.
These checks run on every build, not only when the lesson text is parsed: a file can be
swapped for a symlink or a FIFO behind an unchanged lesson.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coursesite.config.paths import INSIDE_HINT, is_inside
from coursesite.markup.svgclean import UnsafeSvg, clean_svg

IMAGE_TYPES = {
    ".png": "PNG",
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".gif": "GIF",
    ".webp": "WebP",
    ".svg": "SVG",
}
TYPE_HINT = "images are PNG, JPEG, GIF, WebP or SVG files whose suffix says which"


class RefusedAsset(Exception):
    """A file that may not be published as an image; the message says why, the hint what
    to do."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.message, self.hint = message, hint


class MissingAsset(RefusedAsset):
    """No file where the image path points: refused, but nothing unsafe was asked for."""


def missing(shown: str) -> MissingAsset:
    return MissingAsset(
        f"image file '{shown}' not found",
        "image paths are relative to the folder of the lesson file; list an image the "
        "lesson's code writes under 'writes:' in the front matter",
    )


def check_location(path: Path, course_root: Path, shown: str) -> Path:
    """The resolved `path` if it may hold a published image; RefusedAsset if not. Never
    opens the file (a FIFO would block the build), so its content is checked apart."""
    if not is_inside(path, course_root):
        raise RefusedAsset(f"image '{shown}' is outside the course folder", INSIDE_HINT)
    resolved = path.resolve()
    parts = resolved.relative_to(course_root.resolve()).parts
    if any(part.startswith(".") for part in parts) or parts[:1] == ("records",):
        raise RefusedAsset(
            f"image '{shown}' is a hidden or private file of the course",
            "images may not come from dot-files, dot-folders or records/: "
            "save the image beside the lesson",
        )
    try:
        mode = os.lstat(resolved).st_mode
    except OSError:
        raise missing(shown) from None
    if not stat.S_ISREG(mode):
        raise RefusedAsset(f"image '{shown}' is not a regular file", TYPE_HINT)
    if path.suffix.lower() not in IMAGE_TYPES:
        raise RefusedAsset(f"'{shown}' is not an image file", TYPE_HINT)
    return resolved


def check_image_file(path: Path, course_root: Path, shown: str) -> None:
    """RefusedAsset unless the file at `path` may be published as the image `shown`."""
    resolved = check_location(path, course_root, shown)
    published_image(read_regular(resolved), path.suffix, shown, "check")


def read_regular(path: Path) -> bytes:
    """The bytes of the regular file at `path`; RefusedAsset for anything else, without
    blocking on a FIFO or following a symlink swapped in since `check_location`."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as error:
        raise RefusedAsset(f"cannot read '{path.name}' ({error.strerror})", TYPE_HINT) from None
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise RefusedAsset(f"'{path.name}' is not a regular file", TYPE_HINT)
        return file.read()


def sniffed_type(content: bytes) -> str | None:
    """The image type the bytes are, by their signature (SVG: an <svg> XML document)."""
    if content.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if content.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if content[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return "WebP"
    head = content[:2048].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"<?xml", b"<svg", b"<!--", b"<!DOCTYPE svg")) and b"<svg" in content:
        return "SVG"
    return None


def published_image(content: bytes, suffix: str, shown: str, prefix: str) -> bytes:
    """The bytes the site publishes for an image file of `suffix`: the file's own for a
    raster image of that type, the allowlist's rebuild for an SVG; RefusedAsset if the
    bytes are not an image of that type or the SVG holds what a page must not."""
    expected, found = IMAGE_TYPES.get(suffix.lower()), sniffed_type(content)
    if expected is None:
        raise RefusedAsset(f"'{shown}' is not an image file", TYPE_HINT)
    if found != expected:
        what = f"a {found} image" if found else "not an image"
        raise RefusedAsset(f"image '{shown}' is {what}, though its name says {expected}", TYPE_HINT)
    if found != "SVG":
        return content
    try:
        return clean_svg(content.decode("utf-8-sig"), prefix).encode()
    except (UnsafeSvg, UnicodeDecodeError) as error:
        raise RefusedAsset(
            f"SVG image '{shown}' cannot be published: {error}",
            "an SVG image may hold drawing only (no script, event handlers, links to "
            "other files or embedded HTML); export it again or save it as PNG",
        ) from None
