"""The build, top to bottom: manifest -> parse -> execute -> render -> write.

Each stage runs to completion for every lesson before the next begins, and all problems of
a stage are reported together; nothing is written unless every stage succeeded.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import BuildError, BuildErrors
from .execute import ExecutionRecord, execute_lesson
from .links import check_links
from .manifest import Course, load_course
from .model import Lesson, Prose
from .parse import parse_guide, parse_lesson
from .render import RenderedLesson, render_site
from .write import write_site

Report = Callable[[str], None]


@dataclass(frozen=True)
class BuildOptions:
    manifest: Path
    out: Path
    templates: Path
    static: Path
    jobs: int = os.cpu_count() or 1


def build(options: BuildOptions, report: Report = print) -> Course:
    """Build the whole site; raise BuildErrors (and leave `out` untouched) on any problem."""
    started = time.perf_counter()
    course = load_course(options.manifest)
    lessons, guides = parse_course(course)
    report(f"parsed {len(lessons)} lesson(s) in {time.perf_counter() - started:.2f} s")
    records = execute_all(course, lessons, options.jobs, report)
    rendered = [RenderedLesson(lesson, records[lesson.ref.slug]) for lesson in lessons]
    try:
        files = render_site(course, rendered, guides, options.templates)
    except BuildError as error:
        raise BuildErrors([error]) from None
    write_site(files, options.static, options.out)
    report(f"wrote {len(files)} files to {options.out} in {time.perf_counter() - started:.2f} s")
    return course


def parse_course(course: Course) -> tuple[list[Lesson], dict[str, Prose]]:
    """Every lesson and phase guide, with cross-lesson links checked."""
    errors: list[BuildError] = []
    lessons: list[Lesson] = []
    guides: dict[str, Prose] = {}
    links = []
    for ref in course.lessons:
        try:
            lesson = parse_lesson(ref)
        except BuildErrors as problem:
            errors.extend(problem.errors)
            continue
        lessons.append(lesson)
        links.extend((lesson.path, link) for link in lesson.links)
    for phase in course.phases:
        if phase.guide:
            path = course.root / phase.guide
            try:
                guides[phase.slug], guide_links = parse_guide(path)
            except BuildErrors as problem:
                errors.extend(problem.errors)
                continue
            links.extend((path, link) for link in guide_links)
    if not errors:
        anchors = {lesson.ref.slug: lesson.anchors for lesson in lessons}
        errors.extend(check_links(course, anchors, links))
    if errors:
        raise BuildErrors(errors)
    return lessons, guides


def execute_all(course: Course, lessons: list[Lesson], jobs: int,
                report: Report) -> dict[str, ExecutionRecord]:
    """Run every lesson (each in its own process, `jobs` at a time); report each result."""
    def run(lesson: Lesson) -> ExecutionRecord | BuildError:
        started = time.perf_counter()
        try:
            record = execute_lesson(lesson, course.settings)
        except BuildError as error:
            report(f"  failed   {lesson.ref.number} {lesson.ref.slug}")
            return error
        report(f"  executed {lesson.ref.number} {lesson.ref.slug} "
               f"({time.perf_counter() - started:.1f} s)")
        return record

    report(f"executing {len(lessons)} lesson(s), {jobs} at a time")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(run, lessons))
    errors = [result for result in results if isinstance(result, BuildError)]
    if errors:
        raise BuildErrors(errors)
    return {lesson.ref.slug: result for lesson, result in zip(lessons, results)}
