"""Every lesson of a course parsed (into its LessonBuild) with its phase guides, and the
links between them checked: the parse stage's work, also what a test or tool calls alone."""

from __future__ import annotations

from pathlib import Path

from coursesite.cache.parsecache import ParseCache
from coursesite.config.manifest import Course
from coursesite.errors import BuildError, BuildErrors
from coursesite.lesson.guide import parse_guide
from coursesite.lesson.lessonbuild import LessonBuild, deferred_prose_problems
from coursesite.lesson.links import check_links, check_references
from coursesite.lesson.model import LessonLink, Prose
from coursesite.lesson.parse import parse_lesson


def parse_course(
    course: Course, lessons: list[LessonBuild] | None = None, cache: ParseCache | None = None
) -> dict[str, Prose]:
    """Parse every lesson (into its LessonBuild) and phase guide, with cross-lesson links
    checked; return the guides. With a `cache`, lessons whose files did not change come from
    earlier builds' parses."""
    lessons = [LessonBuild(ref) for ref in course.lessons] if lessons is None else lessons
    errors: list[BuildError] = []
    guides: dict[str, Prose] = {}
    links: list[tuple[Path, LessonLink]] = []
    for item in lessons:
        try:
            if cache:
                cache.parse(item)
            else:
                item.set_parsed(parse_lesson(item.ref))
        except BuildErrors as problem:
            errors.extend(problem.errors)
            continue
        links.extend((item.path, link) for link in item.outlined().links)
    for phase in course.phases:
        if phase.guide:
            path = course.root / phase.guide
            try:
                formulas = cache.formulas if cache else None
                guides[phase.slug], guide_links = parse_guide(path, formulas)
            except BuildErrors as problem:
                errors.extend(problem.errors)
                continue
            links.extend((path, link) for link in guide_links)
    if not errors:
        anchors = {item.slug: item.outlined().anchors for item in lessons}
        errors.extend(check_links(course, anchors, links))
        errors.extend(check_references([(item.path, item.outlined()) for item in lessons]))
    if errors:  # the build stops here: what the lessons' prose was to say after the run too
        raise BuildErrors(errors + deferred_prose_problems(lessons))
    return guides
