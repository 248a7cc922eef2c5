"""Stage 4: turn parsed lessons and their execution records into site files.

Python prepares the data (HTML of prose, highlighted code, figure SVGs); the Jinja templates
in `templates/` own every piece of page markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from markupsafe import Markup

from .errors import BuildError
from .execute import ExecutionRecord
from .figures import figure_problems, render_svg
from .links import link_resolver, relative_url
from .manifest import Course
from .markdown import highlight_code, render_block, render_inline
from .model import STAGES, Figure, Lesson, Prose


@dataclass(frozen=True)
class OutputFile:
    """One file of the site: its path relative to the site root and its content."""

    path: str
    content: str


@dataclass(frozen=True)
class RenderedLesson:
    lesson: Lesson
    record: ExecutionRecord


def create_environment(templates: Path) -> Environment:
    env = Environment(loader=FileSystemLoader(templates), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters["markdown"] = _markdown_filter
    env.filters["inline"] = _inline_filter
    env.filters["python"] = lambda code: Markup(highlight_code(code, "python"))
    env.filters["kind"] = lambda item: type(item).__name__.lower()
    env.globals["STAGES"] = STAGES
    return env


@pass_context
def _markdown_filter(context, prose: Prose | str | None) -> Markup:
    if prose is None:
        return Markup("")
    text = prose.markdown if isinstance(prose, Prose) else prose
    return Markup(render_block(text, context["resolve_link"]))


@pass_context
def _inline_filter(context, text: str | None) -> Markup:
    return Markup(render_inline(text or "", context["resolve_link"]))


def render_site(course: Course, lessons: list[RenderedLesson],
                guides: dict[str, Prose], templates: Path) -> list[OutputFile]:
    """Every page and generated file of the site (static assets are copied by `write`)."""
    env = create_environment(templates)
    files = [OutputFile("index.html", _render_page(env, "index.html", "index.html", course,
                                                   lessons=lessons, phases=course.phases))]
    for phase in course.phases:
        url = f"{phase.slug}/index.html"
        members = [item for item in lessons if item.lesson.ref.phase.slug == phase.slug]
        files.append(OutputFile(url, _render_page(env, "phase.html", url, course, phase=phase,
                                                  lessons=members,
                                                  guide=guides.get(phase.slug))))
    titles = {item.lesson.ref.slug: item.lesson.front.title for item in lessons}
    for position, item in enumerate(lessons):
        neighbours = (lessons[position - 1] if position else None,
                      lessons[position + 1] if position + 1 < len(lessons) else None)
        files.extend(render_lesson(env, course, item, neighbours, titles))
    return files


def render_lesson(env: Environment, course: Course, item: RenderedLesson,
                  neighbours: tuple[RenderedLesson | None, RenderedLesson | None],
                  titles: dict[str, str]) -> list[OutputFile]:
    lesson, record = item.lesson, item.record
    folder = f"{lesson.ref.phase.slug}/{lesson.ref.slug}"
    figures = {figure.anchor: f"figures/{figure.anchor}.svg" for figure in lesson.items(Figure)}
    files = [OutputFile(f"{folder}/{path}", _figure_svg(lesson, record, figure))
             for figure in lesson.items(Figure) for path in [figures[figure.anchor]]]
    files.append(OutputFile(f"{folder}/main.py", lesson.main_py()))
    step_ids = [f"step-{step.number}" for step in lesson.steps]
    page = _render_page(
        env, "lesson.html", lesson.ref.url, course,
        lesson=lesson, record=record, figures=figures,
        main_py=lesson.main_py(), main_output=record.output_of(step_ids),
        main_stderr="".join(record.blocks[i].stderr for i in step_ids if i in record.blocks),
        install=" ".join(f"{name}=={version}" for name, version in record.packages.items()
                         if version),
        previous=neighbours[0] and neighbours[0].lesson,
        next=neighbours[1] and neighbours[1].lesson,
        titles=titles,
        phase_url=relative_url(lesson.ref.url, f"{lesson.ref.phase.slug}/index.html"),
    )
    files.append(OutputFile(lesson.ref.url, page))
    return files


def _render_page(env: Environment, template: str, url: str, course: Course, **context) -> str:
    return env.get_template(template).render(
        course=course, page_url=url,
        root=relative_url(url, "index.html").removesuffix("index.html"),
        url_to=lambda target: relative_url(url, target),
        resolve_link=link_resolver(course, url), **context)


def _figure_svg(lesson: Lesson, record: ExecutionRecord, figure: Figure) -> str:
    data = record.blocks[figure.anchor].figure or {}
    problems = figure_problems(data)
    if problems:
        raise BuildError(f"figure '{figure.title}' has unusable data: " + "; ".join(problems),
                         lesson.path, figure.code.line,
                         hint="see 'Figures' in docs/authoring.md for the expected keys")
    return render_svg(data, figure.alt)

