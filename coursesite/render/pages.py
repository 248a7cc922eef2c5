"""Stage 4: turn parsed lessons and their execution records into site files.

Python prepares the data (HTML of prose, highlighted code, figure SVGs); the Jinja templates
in `templates/` own every piece of page markup.
"""

from __future__ import annotations

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
from coursesite.config.manifest import Course, PhaseEntry
from coursesite.config.options import site_path
from coursesite.errors import BuildError, BuildErrors
from coursesite.files import OutputFile, short_digest
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.links import link_resolver
from coursesite.lesson.model import Prose
from coursesite.markup.myst import References
from coursesite.outputs.images import lesson_images
from coursesite.render.lessonpage import neighbours_of, render_lesson, render_lesson_files
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
