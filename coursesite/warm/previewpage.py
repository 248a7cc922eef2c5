"""The preview page of a lesson whose edited blocks ran warm: its page as a build renders
it, from the edited lesson and the warm interpreter's outputs, marked as a preview.

The files stay in memory (serve answers with them until the clean run's page replaces
them): nothing is written to the site, the caches or records/.
"""

from __future__ import annotations

from coursesite.cache.caches import FormulaMemo
from coursesite.cache.parsecache import ParseCache
from coursesite.config.manifest import Course
from coursesite.config.options import BuildOptions
from coursesite.execution.dependencies import distribution_version
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.model import Lesson
from coursesite.outputs.images import lesson_images
from coursesite.pipeline import template_folders
from coursesite.plugins import load_plugins
from coursesite.render.lessonpage import neighbours_of, render_lesson
from coursesite.render.pages import Publication, page_environment


def formula_memo(options: BuildOptions) -> FormulaMemo:
    """The build's MathML memo, read (a preview never saves it)."""
    formulas = FormulaMemo()
    formulas.load(options.cache / "mathml", distribution_version("latex2mathml"))
    return formulas


def preview_files(
    options: BuildOptions,
    course: Course,
    lesson: Lesson,
    record: ExecutionRecord,
    note: str,
) -> dict[str, bytes]:
    """The lesson's page and the figures it shows, by their path in the site."""
    formulas = formula_memo(options)
    parses = ParseCache(options.cache / "parsed", formulas)  # read, never saved here
    items = [LessonBuild(ref) for ref in course.lessons]
    for item in items:
        if item.slug == lesson.ref.slug:
            item.set_parsed(lesson)
            edited = item
        else:
            parses.parse(item)
    edited.record, edited.edition = record, options.edition
    edited.read_inputs()
    plugins = load_plugins(course, options.manifest)
    env = page_environment(
        course,
        items,
        template_folders(options, plugins),
        publication=Publication(options.base_url, options.edition == "student"),
        formulas=formulas,
    )
    neighbours = neighbours_of(items, items.index(edited))
    phase_refs = [item.ref for item in items if item.ref.phase.slug == lesson.ref.phase.slug]
    images = lesson_images(lesson.path, lesson.ref.course_root, lesson.images, record=record)
    titles = {item.slug: item.outlined().front.title for item in items}
    files = render_lesson(env, course, edited, neighbours, titles, phase_refs, images, preview=note)
    return {
        file.path: file.content.encode() if isinstance(file.content, str) else file.content
        for file in files
    }
