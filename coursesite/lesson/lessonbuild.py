"""One lesson's way through the build.

A LessonBuild is made from the lesson's manifest entry, and each stage fills in its part:
parse adds the lesson's outline, the bytes of the files its code needs and the cache key;
look-up adds a record when one fits; execute adds the fresh record; render adds its files,
which the write stage publishes. Later stages read what they need from it instead of
joining stage outputs by slug.

The full Lesson of an unchanged lesson stays in the parse cache until a stage asks for it
(`parsed()`): the stages that look across the course read only the outline.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.config.manifest import LessonRef
from coursesite.errors import BuildError
from coursesite.execution.dependencies import imported_modules, input_files, run_name
from coursesite.execution.executionkey import CacheKey, code_parts
from coursesite.execution.executionrecord import ExecutionRecord, record_digest
from coursesite.execution.records import FrozenRecord
from coursesite.files import OutputFile, short_digest
from coursesite.lesson.edition import STUDENT, student_lesson, student_record
from coursesite.lesson.model import Lesson, LessonOutline


@dataclass
class LessonBuild:
    ref: LessonRef
    loaded: Lesson | None = None  # the full lesson, once parsed or loaded
    outline: LessonOutline | None = None
    load: Callable[[], Lesson] | None = None  # loads the full lesson from the parse cache
    inputs: dict[str, bytes] = field(default_factory=dict)
    """Data files and local modules, by path relative to the lesson's folder, read once."""
    key: CacheKey | None = None
    record: ExecutionRecord | None = None
    record_digest: str = ""  # of the record, when it came from the execution cache
    state: str = ""
    """How the record came: cached, stale (--lesson), frozen, pending (to run), executed."""
    reason: str = ""  # why it runs: "step 2 changed", "--force", ...
    committed: FrozenRecord | None = None  # records/ already holds this very run
    unsaved: bool = False  # its record is still to be saved to records/
    edition: str = "full"  # what readers get: set by the edition stage
    pages: list[OutputFile] | None = None
    """The lesson's files (page, figures, downloads) the render stage made; None when the
    site already holds them as they would be rendered."""

    @property
    def slug(self) -> str:
        return self.ref.slug

    @property
    def path(self) -> Path:
        return self.ref.source

    def parsed(self) -> Lesson:
        if self.loaded is None:
            assert self.load is not None, f"{self.slug} used before it was parsed"
            self.loaded = self.load()
        return self.loaded

    @property
    def lesson(self) -> Lesson:  # what templates read (item.lesson.front.title)
        return self.parsed()

    def outlined(self) -> LessonOutline:
        assert self.outline is not None, f"{self.slug} used before it was parsed"
        return self.outline

    def set_parsed(self, lesson: Lesson) -> None:
        self.loaded, self.outline = lesson, outline_of(lesson)

    def prose_problems(self) -> list[BuildError]:
        """What the parse deferred (the parse cache keeps no lesson that has any, so an
        unloaded lesson has none)."""
        return self.loaded.prose_problems if self.loaded is not None else []

    def ran(self) -> ExecutionRecord:
        assert self.record is not None, f"{self.slug} used before it has a record"
        return self.record

    def shown(self) -> tuple[Lesson, ExecutionRecord]:
        """The lesson and its record as readers get them, in this build's edition (the
        student edition takes the solutions out: edition.py). What renders reads these."""
        lesson, record = self.parsed(), self.ran()
        if self.edition == STUDENT:
            return student_lesson(lesson), student_record(record, lesson)
        return lesson, record

    def record_key(self) -> str:
        """`execute.record_digest`, for the keys of the lesson's pages.

        A record from the execution cache comes with the digest stored beside it:
        serialising 1,000 records again for their keys cost more than rendering one page.
        """
        if not self.record_digest:
            self.record_digest = record_digest(self.ran())
        return self.record_digest

    def keyed(self) -> CacheKey:
        assert self.key is not None, f"{self.slug} used before it has a cache key"
        return self.key

    def read_inputs(self) -> None:
        """The files the code needs, read once for the cache key, the job and the fingerprint."""
        folder, outline = self.path.parent, self.outlined()
        self.inputs = {}
        for path in input_files(folder, outline.front.declared_files(), outline.modules):
            if path.is_file():
                self.inputs[os.path.relpath(path, folder)] = path.read_bytes()

    def expected_outputs(self) -> bytes | None:
        """The file of outputs the front matter says the lesson reproduces, if any."""
        expected = self.outlined().front.expected_outputs
        return self.inputs.get(os.path.normpath(expected)) if expected else None

    def code_files(self) -> dict[str, bytes]:
        """The files the code reads beside it, by the name its run gives them (execute.py):
        local modules and data files, not the expected-outputs file the build reads."""
        expected = self.outlined().front.expected_outputs
        skipped = os.path.normpath(expected) if expected else None
        return {run_name(name): data for name, data in self.inputs.items() if name != skipped}

    def input_paths(self) -> list[Path]:
        folder = self.path.parent
        return [(folder / name).resolve() for name in self.inputs]


def outline_of(lesson: Lesson) -> LessonOutline:
    return LessonOutline(
        front=lesson.front,
        text_digest=short_digest(lesson.text),
        anchors=lesson.anchors,
        links=lesson.links,
        targets=lesson.targets,
        label_refs=lesson.label_refs,
        images=lesson.images,
        code=code_parts(lesson),
        modules=frozenset(imported_modules(lesson)),
    )


def deferred_prose_problems(lessons: list[LessonBuild]) -> list[BuildError]:
    """Every lesson's prose mistakes the parse deferred, in order: a build reports them in
    the round that stops it, whether the parse, the run or what follows stops it."""
    return [problem for item in lessons for problem in item.prose_problems()]
