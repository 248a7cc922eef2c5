"""Parsed lessons kept between builds, so that a rebuild parses only the files that changed.

Parsing is pure: the same lesson file, read by the same parser code with the same library
versions, gives the same Lesson. An entry is keyed by exactly that; where the lesson sits
in the course (its LessonRef) comes from the current manifest, and the one check that
looks beyond the file (declared data files exist) runs again on every build. At 200
lessons, parsing them all took 0.8 s of every rebuild.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pickle
import sys
from pathlib import Path

from .files import short_digest, write_atomically
from .dependencies import distribution_version, installed_signature
from .errors import BuildErrors
from .manifest import LessonRef
from .markdown import FormulaMemo
from .model import Lesson
from .parse import missing_data_files, parse_lesson
from .paths import data_files_outside

GENERATOR = Path(__file__).resolve().parent
# The libraries whose behaviour shapes a parse: Markdown, YAML, validation, math.
PARSING_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "PyYAML", "msgspec", "latex2mathml")


def parser_version() -> str:
    return _parser_version_as_of(installed_signature())


@functools.lru_cache(maxsize=1)
def _parser_version_as_of(signature: tuple[tuple[str, int], ...]) -> str:
    """A digest of everything besides the file that decides what parsing it gives."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(GENERATOR.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for library in PARSING_LIBRARIES:
        digest.update(f"{library}={distribution_version(library)}\0".encode())
    return digest.hexdigest()


class ParseCache:
    """One pickle per lesson in `folder`: the key, the Lesson, and the formulas it uses."""

    def __init__(self, folder: Path, formulas: FormulaMemo):
        self.folder = folder
        self.formulas = formulas  # the build's MathML memo: a cached lesson marks its own

    def parse(self, ref: LessonRef) -> Lesson:
        """The lesson at `ref`, parsed again only if its file or the parser changed."""
        try:
            data = ref.source.read_bytes()
        except OSError:
            return parse_lesson(ref, formulas=self.formulas)  # it reports the problem
        key = short_digest(parser_version().encode() + b"\0" + data)
        path = self.folder / f"{ref.slug}.pickle"
        cached = self._load(path, key)
        if cached is not None:
            lesson, formulas = cached
            problems = missing_data_files(ref.source, lesson.text, lesson.front) + \
                data_files_outside(ref.source, lesson.text, lesson.front.files, ref.course_root)
            if problems:
                raise BuildErrors(problems)
            self.formulas.keep(formulas)
            return dataclasses.replace(lesson, ref=ref, path=ref.source)
        mark = len(self.formulas.converted)
        lesson = parse_lesson(ref, data, self.formulas)
        entry = {"key": key, "lesson": lesson, "formulas": self.formulas.used_since(mark)}
        write_atomically(path, pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
        return lesson

    @staticmethod
    def _load(path: Path, key: str) -> tuple[Lesson, list[str]] | None:
        try:
            entry = pickle.loads(path.read_bytes())
            if entry["key"] == key and isinstance(entry["lesson"], Lesson):
                return entry["lesson"], list(entry["formulas"])
        except Exception:  # missing, damaged or from an older generator: parse again
            pass
        return None
