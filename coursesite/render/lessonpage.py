"""A lesson's page and the files beside it: figures, images, downloads, displayed outputs.

The page plan (pages.py) schedules these; `serve`'s warm preview renders a page with them too.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment

from coursesite.cache.caches import ProseMemo
from coursesite.config.manifest import Course, LessonRef
from coursesite.errors import BuildError
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.installs import install_line, packages_used, reader_distributions
from coursesite.files import OutputFile
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.links import link_resolver, relative_url
from coursesite.lesson.model import Figure, Lesson
from coursesite.markup.markdown import plain_text
from coursesite.outputs.displays import display_files, page_displays, page_printed, printed_files
from coursesite.outputs.downloads import download_list, learner_notebook, lesson_downloads
from coursesite.outputs.images import CopiedImage
from coursesite.outputs.pagefigures import (
    captured_figures,
    data_figure_svg,
    figure_data_cut,
    page_figures,
)
from coursesite.outputs.storedoutputs import stored_files, stored_views
from coursesite.render.launch import launch_links
from coursesite.render.templating import render_page


def figure_paths(lesson: Lesson) -> dict[str, str]:
    return {figure.anchor: f"figures/{figure.anchor}.svg" for figure in lesson.items(Figure)}


def render_lesson_files(
    env: Environment,
    course: Course,
    item: LessonBuild,
    images: dict[str, CopiedImage],
    figure_cache: Path | None = None,
) -> list[OutputFile]:
    """The lesson's figures, images and downloads, next to its page."""
    lesson, record = item.shown()
    folder = f"{lesson.ref.phase.slug}/{lesson.ref.slug}"
    figures = figure_paths(lesson)
    svgs = {
        figure.anchor: data_figure_svg(lesson, record, figure, figure_cache)
        for figure in lesson.items(Figure)
    }
    files = [OutputFile(f"{folder}/{figures[anchor]}", svg) for anchor, svg in svgs.items()]
    # The prose's images: beside the page, and in the zip beside the lesson.md that shows them.
    published = {image.name: image.content for image in images.values()}
    files.extend(OutputFile(f"{folder}/{name}", content) for name, content in published.items())
    context = {
        "resolve_link": link_resolver(course, lesson.ref.url),
        "live_values": record.values,
        "figures": figures,
        "images": {src: image.name for src, image in images.items()},
    }
    captured = captured_figures(lesson, record, figure_cache)
    distributions = reader_distributions(lesson, item.inputs, record)
    context["requirements"] = install_line(distributions, record.packages).split()
    context["imported"] = packages_used(record.packages, distributions, record.devices)
    context["displayed"] = displayed = page_displays(lesson, record)
    context["printed"] = printed = page_printed(lesson, record)
    # Displayed images: beside lesson.md (the page job writes the same files) and in the zip.
    downloads = lesson_downloads(
        env,
        lesson,
        record,
        svgs,
        captured,
        context,
        {**item.code_files(), **published, **display_files(displayed), **printed_files(printed)},
    )
    files.extend(OutputFile(f"{folder}/{name}", content) for name, content in downloads.items())
    return files


def neighbours_of(
    lessons: list[LessonBuild], position: int
) -> tuple[LessonBuild | None, LessonBuild | None]:
    """The lessons before and after the one at `position`: its page's previous and next."""
    return (
        lessons[position - 1] if position else None,
        lessons[position + 1] if position + 1 < len(lessons) else None,
    )


def render_lesson(
    env: Environment,
    course: Course,
    item: LessonBuild,
    neighbours: tuple[LessonBuild | None, LessonBuild | None],
    titles: dict[str, str],
    phase_refs: list[LessonRef],
    images: dict[str, CopiedImage],
    figure_cache: Path | None = None,
    prose: ProseMemo | None = None,
    preview: str = "",
) -> list[OutputFile]:
    """The lesson's page, and the full-size file of each figure it shows; `prose` keeps
    the HTML of its prose between builds. `preview` says how `serve`'s warm preview made
    the record (coursesite/warm): the page says it is a preview; "" for every built page."""
    lesson, record = item.shown()
    figures = figure_paths(lesson)
    shown = page_figures(lesson, record, figure_cache)
    displayed = page_displays(lesson, record)
    printed = page_printed(lesson, record)  # values display() showed within a block's stdout
    stored = stored_views(lesson, record, item.expected_outputs())
    step_ids = lesson.program_ids()
    # Steps tagged nbval-ignore-output: the main.py check matched their lines to any.
    varying = lesson.output_varies()
    varying_steps = [b.label for b in lesson.runs if b.program and b.id in varying]
    # The record names the versions of every package in `settings.record_packages`; the
    # page lists only those the lesson used (the setup help: installs.py).
    installs = reader_distributions(lesson, item.inputs, record)
    imported = packages_used(record.packages, installs, record.devices)
    page = render_page(
        env,
        "lesson.html",
        lesson.ref.url,
        course,
        lesson=lesson,
        record=record,
        figures=figures,
        images={src: image.name for src, image in images.items()},
        drawn=shown.drawn,
        captured=shown.captured,
        displayed=displayed,
        printed=printed,
        stored=stored,
        live_values=record.values,
        main_py=lesson.main_py(),
        main_output=record.output_of(step_ids),
        varying_steps=varying_steps,
        main_stderr="".join(record.blocks[i].stderr for i in step_ids if i in record.blocks),
        imported=imported,
        install=install_line(installs, record.packages),
        previous=neighbours[0] and neighbours[0].lesson,
        next=neighbours[1] and neighbours[1].lesson,
        titles=titles,
        downloads=download_list(lesson),
        launch=launch_links(course.repository, learner_notebook(lesson)),
        page_title=plain_text(lesson.front.title),
        page_description=plain_text(lesson.front.summary),
        phase_url=relative_url(lesson.ref.url, f"{lesson.ref.phase.slug}/index.html"),
        sidebar=sidebar_window(phase_refs, lesson.ref),
        prose_memo=prose and prose.load(),
        preview=preview,
    )
    if prose is not None:
        prose.save()
    folder = lesson.ref.url.rpartition("/")[0]
    files = [OutputFile(path, svg) for path, svg in shown.files(folder).items()]
    published = {**display_files(displayed), **printed_files(printed), **stored_files(stored)}
    files += [OutputFile(f"{folder}/{name}", data) for name, data in published.items()]
    return [OutputFile(lesson.ref.url, page), *files]


SIDEBAR_ALL = 15  # a phase with at most this many lessons lists them all in the sidebar
SIDEBAR_AROUND = 5  # otherwise: this many lessons before the current one and after it


@dataclass(frozen=True)
class SidebarWindow:
    """The lessons a lesson page's sidebar lists: all of its phase's, or in a large phase
    a window around the current one (the phase page lists them all), so that a page's size,
    and rendering the whole phase, stay linear in its number of lessons."""

    lessons: list[LessonRef]
    earlier: int  # lessons of the phase before the window, not listed
    later: int  # lessons after it


def sidebar_window(phase_refs: list[LessonRef], current: LessonRef) -> SidebarWindow:
    if len(phase_refs) <= SIDEBAR_ALL:
        return SidebarWindow(phase_refs, 0, 0)
    position = current.index - 1
    size = 2 * SIDEBAR_AROUND + 1
    start = min(max(position - SIDEBAR_AROUND, 0), len(phase_refs) - size)
    return SidebarWindow(phase_refs[start : start + size], start, len(phase_refs) - start - size)


def prerender_figures(lesson: Lesson, record: ExecutionRecord, cache: Path) -> None:
    """Draw a lesson's valid figures into the figure cache ahead of rendering its page, and
    measure the text they cut ahead of the validate stage."""
    for figure in lesson.items(Figure):
        with contextlib.suppress(BuildError):  # reported when the page is rendered
            data_figure_svg(lesson, record, figure, cache)
            figure_data_cut(lesson, record, figure, cache)
