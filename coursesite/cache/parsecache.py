"""The parse stage's cache, which is also the course's index of lessons.

Each parsed Lesson is pickled on its own, keyed by its file's bytes and the parser's
version; every lesson's outline (model.LessonOutline) sits in one index file that a build
reads at once, so the stages that look across the course never load an unchanged lesson
whole. The index also remembers which lesson text and record last passed validation.
One of the caches listed in caches.py, in a module of its own for its size.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from coursesite import PACKAGE
from coursesite.config.manifest import LessonRef
from coursesite.config.paths import data_files_outside, is_inside
from coursesite.errors import BuildError, BuildErrors
from coursesite.execution.dependencies import distribution_version, installed_signature
from coursesite.files import short_digest, write_atomically
from coursesite.lesson.frontmatter import missing_data_files
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.model import Lesson, LessonOutline
from coursesite.lesson.parse import parse_lesson
from coursesite.plugins import active_plugins_digest

if TYPE_CHECKING:
    from coursesite.cache.caches import FormulaMemo

GENERATOR = PACKAGE
# The libraries whose behaviour shapes a parse: Markdown, YAML, validation, math.
PARSING_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "PyYAML", "msgspec", "latex2mathml")


def parser_version() -> str:
    """What decides the parse a lesson file gives, besides its bytes: the generator's code,
    the parsing libraries and the course's plugins."""
    return _parser_version_as_of(installed_signature()) + active_plugins_digest()


@functools.lru_cache(maxsize=1)
def _parser_version_as_of(signature: tuple[tuple[str, int], ...]) -> str:
    """A digest of everything besides the file that decides what parsing it gives."""
    digest = hashlib.sha256(sys.version.encode())
    # Every module of the package, subpackages included: any of them may change a parse.
    for path in sorted(GENERATOR.rglob("*.py")):
        digest.update(path.relative_to(GENERATOR).as_posix().encode() + b"\0" + path.read_bytes())
    for library in PARSING_LIBRARIES:
        digest.update(f"{library}={distribution_version(library)}\0".encode())
    return digest.hexdigest()


class OutlineEntry(msgspec.Struct):
    key: str  # of the lesson file's bytes and the parser (ParseCache)
    outline: LessonOutline
    formulas: list[str]  # the FormulaMemo keys the lesson uses
    checked: str = ""  # the key of the last validation this lesson and its record passed
    warnings: list[tuple[str, str | None, int | None, str | None, str | None]] = []


class ParseIndex(msgspec.Struct):
    version: str  # parser_version: another parser's outlines are not read
    lessons: dict[str, OutlineEntry]


class ParseCache:
    """Parsed lessons in `folder`: each Lesson in a pickle of its own, with the key and the
    formulas it uses, and every lesson's outline in one index file.

    A build reads the index at once; it unpickles a lesson only when a stage needs it in
    full (LessonBuild.parsed): at 1,000 lessons unpickling them all took 0.15 s of a prose
    edit. The index also remembers which lesson and record last passed validation
    (`checked`), with the warnings it gave.
    """

    def __init__(
        self,
        folder: Path,
        formulas: FormulaMemo,
        warn: Callable[[str], None] = lambda _: None,
        defer_prose: bool = False,
    ):
        self.folder = folder
        self.defer_prose = defer_prose  # parse_lesson's: a build reports them after the run
        self.formulas = formulas  # the build's MathML memo: a cached lesson marks its own
        self.warn = warn  # says which damaged entries were discarded
        self.version = parser_version()  # once: it stats every folder on sys.path
        self.index = self._read_index()
        self.changed = False

    def parse(self, item: LessonBuild) -> None:
        """Give `item` its outline, and its lesson if it had to be parsed: again only if
        its file or the parser changed. Raise BuildErrors for a lesson in error."""
        ref = item.ref
        try:
            data = ref.source.read_bytes()
        except OSError:
            item.set_parsed(parse_lesson(ref, formulas=self.formulas))  # it says what is wrong
            return
        key = short_digest(self.version.encode() + b"\0" + data)
        entry = self.index.get(ref.slug)
        if entry is not None and entry.key == key:
            item.outline, item.load = entry.outline, functools.partial(self._load, ref, key)
            self.formulas.keep(entry.formulas)
            if _declared_files_missing(ref, entry.outline):
                _check_declared_files(item.parsed())  # the full lesson knows their lines
            return
        cached = self._unpickle(self._path(ref), key)  # the index lost, or from before it
        if cached is None:
            lesson, formulas = self._parse(ref, key, data)  # which checks the declared files
        else:
            formulas = cached[1]
            self.formulas.keep(formulas)
            lesson = dataclasses.replace(cached[0], ref=ref, path=ref.source)
            _check_declared_files(lesson)
        item.set_parsed(lesson)
        if lesson.prose_problems:
            return  # parsed again next time, until they are mended: they stop every build
        self.index[ref.slug] = OutlineEntry(key, item.outlined(), formulas)
        self.changed = True

    def checked(self, slug: str, key: str) -> list[BuildError] | None:
        """The warnings of the lesson's last validation if it had this key, else None."""
        entry = self.index.get(slug)
        if entry is None or entry.checked != key:
            return None
        return [BuildError(*fields) for fields in entry.warnings]

    def remember_check(self, slug: str, key: str, warnings: list[BuildError]) -> None:
        entry = self.index.get(slug)
        if entry is not None and entry.checked != key:
            entry.checked = key
            entry.warnings = [
                (w.message, None if w.path is None else str(w.path), w.line, w.hint, w.detail)
                for w in warnings
            ]
            self.changed = True

    def save(self, slugs: list[str]) -> None:
        """Write the index, keeping the lessons of the course (`slugs`) only."""
        kept = {slug: self.index[slug] for slug in slugs if slug in self.index}
        if self.changed or len(kept) != len(self.index):
            encoded = msgspec.msgpack.encode(ParseIndex(self.version, kept))
            write_atomically(self.folder / INDEX_FILE, encoded)
            self.index, self.changed = kept, False

    def _read_index(self) -> dict[str, OutlineEntry]:
        try:
            index = msgspec.msgpack.decode((self.folder / INDEX_FILE).read_bytes(), type=ParseIndex)
        except (OSError, msgspec.DecodeError):  # none yet, damaged, or of another format
            return {}
        return index.lessons if index.version == self.version else {}

    def _path(self, ref: LessonRef) -> Path:
        return self.folder / f"{ref.slug}.pickle"

    def _load(self, ref: LessonRef, key: str) -> Lesson:
        """The full lesson whose outline the index gave: from its pickle, or parsed again
        if that is gone."""
        cached = self._unpickle(self._path(ref), key)
        lesson = cached[0] if cached else self._parse(ref, key, ref.source.read_bytes())[0]
        return dataclasses.replace(lesson, ref=ref, path=ref.source)

    def _parse(self, ref: LessonRef, key: str, data: bytes) -> tuple[Lesson, list[str]]:
        mark = len(self.formulas.converted)
        lesson = parse_lesson(ref, data, self.formulas, self.defer_prose)
        formulas = self.formulas.used_since(mark)
        if lesson.prose_problems:
            return lesson, formulas
        pickled = {"key": key, "lesson": lesson, "formulas": formulas}
        write_atomically(self._path(ref), pickle.dumps(pickled, pickle.HIGHEST_PROTOCOL))
        return lesson, formulas

    def _unpickle(self, path: Path, key: str) -> tuple[Lesson, list[str]] | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None  # not parsed before
        try:
            entry = pickle.loads(data)
            if entry["key"] == key and isinstance(entry["lesson"], Lesson):
                return entry["lesson"], list(entry["formulas"])
            return None  # the file or the parser changed since
        except Exception:  # damaged, or written by a generator too old to unpickle
            self.warn(
                f"warning: {path}: damaged parse cache entry discarded; the lesson was parsed again"
            )
            return None


INDEX_FILE = "outlines.msgpack"


def _declared_files_missing(ref: LessonRef, outline: LessonOutline) -> bool:
    """Whether a declared data file is gone or outside the course: a cheap test, before
    loading the full lesson for the lines of the errors."""
    folder = ref.source.parent
    return any(
        not (folder / name).is_file() or not is_inside(folder / name, ref.course_root)
        for name in outline.front.declared_files()
    )


def _check_declared_files(lesson: Lesson) -> None:
    ref = lesson.ref
    problems = missing_data_files(ref.source, lesson.text, lesson.front) + data_files_outside(
        ref.source, lesson.text, lesson.front.declared_files(), ref.course_root
    )
    if problems:
        raise BuildErrors(problems)
