"""Stage 4: turn parsed lessons and their execution records into site files.

Python prepares the data (HTML of prose, highlighted code, figure SVGs); the Jinja templates
in `templates/` own every piece of page markup.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jinja2 import (
    Environment,
)

from coursesite.cache.caches import FormulaMemo, ImageDigests, ProseMemo
from coursesite.cache.parsecache import parser_version
from coursesite.config.manifest import Course, LessonRef, PhaseEntry
from coursesite.config.options import site_path
from coursesite.errors import BuildError, BuildErrors
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.installs import install_line, packages_used, reader_distributions
from coursesite.files import OutputFile, short_digest
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.links import link_resolver, relative_url
from coursesite.lesson.model import Figure, Lesson, Prose
from coursesite.markup.markdown import plain_text
from coursesite.markup.myst import References
from coursesite.outputs.displays import display_files, page_displays, page_printed, printed_files
from coursesite.outputs.downloads import download_list, learner_notebook, lesson_downloads
from coursesite.outputs.images import CopiedImage, lesson_images
from coursesite.outputs.pagefigures import (
    captured_figures,
    data_figure_svg,
    figure_data_cut,
    page_figures,
)
from coursesite.outputs.storedoutputs import stored_files, stored_views
from coursesite.render.launch import launch_links
from coursesite.render.templating import create_environment, render_page


@dataclass(frozen=True)
class PageJob:
    """Pages that render together, with a key covering everything their rendering reads."""

    name: str
    key: str
    render: Callable[[], list[OutputFile]]


def digest(*parts: object) -> str:
    return short_digest(json.dumps(parts, sort_keys=True, default=str))


def folder_digest(*folders: Path) -> str:
    """A digest of every file below the `folders` (names and bytes)."""
    hasher = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            hasher.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
        hasher.update(b"\1")
    return hasher.hexdigest()[:16]


def _effective_templates(folders: list[Path], pattern: str) -> dict[str, str]:
    """Name -> text of each template matching `pattern` that the first of `folders` holding
    it gives: what the environment loads, wherever it comes from."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted(folder.rglob(pattern)):
            found.setdefault(path.relative_to(folder).as_posix(), path.read_text(encoding="utf-8"))
    return found


@dataclass(frozen=True)
class Publication:
    """How the site will be published: every template can read it as `publication`."""

    base_url: str | None = None  # absolute address of the site root, ending in '/'
    student: bool = False  # the student edition (applied by the edition stage); in every key


def page_environment(
    course: Course,
    lessons: list[LessonBuild],
    templates: list[Path],
    cache: Path | None = None,
    publication: Publication = Publication(),
    formulas: FormulaMemo | None = None,
) -> Environment:
    """The templates' environment, with what every page reads: the publication, the MathML
    memo and the course's references."""
    env = create_environment(templates, cache and cache / "templates")
    env.globals["publication"] = publication
    env.globals["formulas"] = formulas
    env.globals["references"] = course_references(course, lessons)
    return env


def plan_site(
    course: Course,
    lessons: list[LessonBuild],
    guides: dict[str, Prose],
    templates: list[Path],
    cache: Path | None = None,
    publication: Publication = Publication(),
    formulas: FormulaMemo | None = None,
) -> list[PageJob]:
    """One job per page group; a job whose key is unchanged need not render again.

    `cache` holds drawn figures and compiled templates between builds; `formulas` is the
    build's MathML memo.
    """
    env = page_environment(course, lessons, templates, cache, publication, formulas)
    references = env.globals["references"]
    assert isinstance(references, References)
    figure_cache = cache and cache / "figures"
    image_digests = ImageDigests(cache / "images.json") if cache else None
    refusals: list[BuildError] = []
    # Every page shows the course title and navigation, so all keys include them.
    # The generator's own code draws figures and prepares what templates show: a new
    # version of it renders every page again (parser_version covers plugins too).
    generator = parser_version()
    shared = digest(
        folder_digest(*templates),
        generator,
        course.manifest_text,
        [
            (
                i.slug,
                i.outlined().front.title,
                i.outlined().front.summary,
                i.outlined().front.minutes,
                i.outlined().front.hardware,
            )
            for i in lessons
        ],
        publication,
        references,
    )
    downloads_key = digest(
        generator,
        sorted(_effective_templates(templates, "*.md").items()),
        course.manifest_text,
        publication,
        references,
    )
    # What every lesson page's prose HTML depends on besides the lesson itself.
    prose_base = digest(course.manifest_text, references, generator)
    # Grouped once: selecting each phase's lessons from all of them was quadratic.
    members_of: dict[str, list[LessonBuild]] = {phase.slug: [] for phase in course.phases}
    for item in lessons:
        members_of[item.ref.phase.slug].append(item)
    jobs = [
        PageJob(
            "index",
            shared,
            lambda: [
                OutputFile(
                    "index.html",
                    render_page(
                        env,
                        "index.html",
                        "index.html",
                        course,
                        lessons=lessons,  # what a course's own copy of index.html may use
                        phases=course.phases,
                        phase_members=members_of,
                    ),
                )
            ],
        )
    ]
    for phase in course.phases:
        members = members_of[phase.slug]
        guide = guides.get(phase.slug)
        # The phase page also lists each lesson's outcomes, which `shared` leaves out.
        outcomes = [i.outlined().front.outcomes for i in members]
        jobs.append(
            PageJob(
                f"phase:{phase.slug}",
                digest(shared, guide and guide.markdown, outcomes),
                functools.partial(_render_phase, env, course, phase, members, guide),
            )
        )
    titles = references.lessons
    phase_refs = {slug: [item.ref for item in items] for slug, items in members_of.items()}
    # Reader pages filled in the browser: saved notes (localStorage) and search (Pagefind).
    for name, url in (("my-learning", "my-learning/index.html"), ("search", "search/index.html")):
        jobs.append(
            PageJob(
                name,
                shared,
                functools.partial(_render_reader_page, env, course, f"{name}.html", url, titles),
            )
        )
    for position, item in enumerate(lessons):
        neighbours = neighbours_of(lessons, position)
        try:
            images = lesson_images(
                item.path, item.ref.course_root, item.outlined().images, image_digests, item.ran()
            )
        except BuildError as refused:
            refusals.append(refused)
            continue
        inputs = (
            item.outlined().text_digest,
            item.record_key(),
            [(image.name, image.digest) for image in images.values()],
            short_digest(item.expected_outputs() or b""),  # the stored outputs a page shows
        )
        jobs.append(
            PageJob(
                f"lesson:{item.slug}",
                digest(shared, *inputs),
                functools.partial(
                    render_lesson,
                    env,
                    course,
                    item,
                    neighbours,
                    titles,
                    phase_refs[item.ref.phase.slug],
                    images,
                    figure_cache,
                    ProseMemo(
                        cache and cache / "prose",
                        item.slug,
                        digest(prose_base, item.ref.url, *inputs),
                    ),
                ),
            )
        )
        # The downloads do not depend on the HTML templates: a new page design keeps them.
        jobs.append(
            PageJob(
                f"downloads:{item.slug}",
                digest(downloads_key, *inputs),
                functools.partial(
                    render_lesson_files,
                    env,
                    course,
                    item,
                    images,
                    figure_cache,
                ),
            )
        )
    jobs.append(
        PageJob("publishing", shared, functools.partial(_render_publishing, env, course, lessons))
    )
    if image_digests:
        image_digests.save()
    if refusals:
        raise BuildErrors(refusals)
    return jobs


def _render_publishing(
    env: Environment, course: Course, lessons: list[LessonBuild]
) -> list[OutputFile]:
    """Files static hosts look for: 404 page, robots.txt, sitemap (with a base URL)."""
    publication = env.globals["publication"]  # set by create_jobs
    assert isinstance(publication, Publication)
    base_url = publication.base_url
    urls = (
        ["index.html"]
        + [f"{phase.slug}/index.html" for phase in course.phases]
        + [item.ref.url for item in lessons]
    )
    # A 404 page is served at any missing address, at any depth, so its links cannot be
    # relative: they start from the site's own path ("/course/" for a base URL of
    # https://example.org/course/, "/" without one), and work on any host and port.
    root = site_path(base_url)
    files = [
        OutputFile(
            "404.html",
            env.get_template("404.html").render(
                course=course,
                page_url="404.html",
                root=root,
                url_to=lambda target: root + target,
                resolve_link=link_resolver(course, "404.html"),
            ),
        ),
        OutputFile("robots.txt", env.get_template("robots.txt").render(base_url=base_url)),
        OutputFile(".nojekyll", ""),  # GitHub Pages: publish folders as they are
    ]
    if base_url:
        files.append(
            OutputFile(
                "sitemap.xml", env.get_template("sitemap.xml").render(base_url=base_url, urls=urls)
            )
        )
    return files


def _render_phase(
    env: Environment,
    course: Course,
    phase: PhaseEntry,
    members: list[LessonBuild],
    guide: Prose | None,
) -> list[OutputFile]:
    url = f"{phase.slug}/index.html"
    return [
        OutputFile(
            url,
            render_page(env, "phase.html", url, course, phase=phase, lessons=members, guide=guide),
        )
    ]


def _render_reader_page(
    env: Environment, course: Course, template: str, url: str, titles: dict[str, str]
) -> list[OutputFile]:
    return [OutputFile(url, render_page(env, template, url, course, titles=titles))]


def _figure_paths(lesson: Lesson) -> dict[str, str]:
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
    figures = _figure_paths(lesson)
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
    figures = _figure_paths(lesson)
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


def course_references(course: Course, lessons: list[LessonBuild]) -> References:
    """What `{ref}`, `{doc}` and the API roles point at, for every page."""
    return References(
        {
            target.label: (item.slug, target.title)
            for item in lessons
            for target in item.outlined().targets
        },
        {item.slug: item.outlined().front.title for item in lessons},
        dict(course.settings.api_docs),
    )


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
