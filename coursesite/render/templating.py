"""The Jinja environment of the site's templates, and the filters Python offers them.

Templates own every piece of markup; these filters turn lesson Markdown into HTML (or
Markdown for the downloads) and highlight code, and `render_page` gives every page the
same context: the course, the page's URL and how to link from it; plugins' on_page hooks
may then change its HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context
from markupsafe import Markup

from coursesite.blocks.registry import run_id, view_of
from coursesite.cache.caches import HighlightCache
from coursesite.config.manifest import Course
from coursesite.hooks import Page, changed_page
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.lesson.links import link_resolver, relative_url
from coursesite.lesson.model import STAGES, Prose
from coursesite.markup.markdown import (
    PageExtras,
    plain_markdown,
    plain_text,
    render_block,
    render_inline,
    slugify,
)


def create_environment(templates: list[Path], compiled: Path | None = None) -> Environment:
    """The Jinja environment; `compiled` caches compiled templates between builds.

    A template is looked up in each of the `templates` folders in turn (the course's, then
    the theme's), so a course overrides one file by having one of that name; an override
    may extend the theme's own as "theme/NAME" and change only a block of it."""
    cache = None
    if compiled is not None:
        compiled.mkdir(parents=True, exist_ok=True)
        cache = FileSystemBytecodeCache(str(compiled))
    # HTML templates are autoescaped; Markdown templates (*.md) produce Markdown.
    autoescape = select_autoescape(enabled_extensions=("html", "xml"), default_for_string=True)
    env = Environment(
        loader=ChoiceLoader(
            [
                FileSystemLoader(templates),
                PrefixLoader({"theme": FileSystemLoader(templates[-1])}),
            ]
        ),
        autoescape=autoescape,
        bytecode_cache=cache,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=without_terminal_controls,
    )
    env.filters["markdown"] = _markdown_filter
    env.filters["inline"] = _inline_filter
    env.filters["text"] = _text_filter
    env.filters["plain"] = plain_text  # titles where no markup may go
    highlighted = HighlightCache(compiled and compiled.parent / "highlight")
    env.filters["python"] = lambda code: Markup(highlighted.python(code))
    # Lesson items are shown by the templates their block kind registered (blocks.py).
    env.filters["html_template"] = lambda item: view_of(item).html
    env.filters["markdown_template"] = lambda item: view_of(item).markdown
    env.filters["run_id"] = run_id  # the key of the item's output in the record
    env.filters["slug"] = slugify
    env.filters["md_alt"] = markdown_alt_text
    # `TODO: ...`, what `build.py import` leaves for the author to write: never shown.
    env.tests["placeholder"] = lambda text: str(text).lstrip().startswith(PLACEHOLDER)
    env.globals["STAGES"] = STAGES
    return env


# A terminal's colour and cursor codes (`\x1b[31m`), which a lesson's libraries print, and
# the other control characters HTML does not allow: a page shows the text without them.
_TERMINAL_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)


def without_terminal_controls(value: object) -> object:
    """What every `{{ }}` of a template shows: a string without terminal controls (a
    Markup stays Markup), anything else as it is."""
    if isinstance(value, str) and _TERMINAL_CONTROLS.search(value):
        cleaned = _TERMINAL_CONTROLS.sub("", value)
        return Markup(cleaned) if isinstance(value, Markup) else cleaned
    return value


def markdown_alt_text(text: str) -> str:
    """Alt text inside `![...]` of a Markdown download: brackets and backslashes escaped."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _extras(context: Context, footnote_prefix: str | None = None) -> PageExtras:
    return PageExtras(context.get("references"), context.get("images"), footnote_prefix)


def _remembered(context: Context, piece: str, convert: Callable[[], str]) -> Markup:
    """`convert()`, or its result from the page's prose memo (caches.ProseMemo)."""
    memo = context.get("prose_memo")
    html = memo.get(piece) if memo is not None else None
    if html is None:
        html = convert()
        if memo is not None:
            memo.put(piece, html)
    return Markup(html)


@pass_context
def _markdown_filter(context: Context, prose: Prose | str | None) -> Markup:
    if prose is None:
        return Markup("")
    text = prose.markdown if isinstance(prose, Prose) else prose
    # A page shows many proses, each with its own footnotes: their ids name the line.
    prefix = f"l{prose.line}" if isinstance(prose, Prose) else None
    return _remembered(
        context,
        f"block\0{prefix}\0{text}",
        lambda: render_block(
            text,
            context["resolve_link"],
            context.get("live_values"),
            context.get("formulas"),
            _extras(context, prefix),
        ),
    )


@pass_context
def _text_filter(context: Context, text: str | None) -> str:
    """Lesson Markdown for Markdown outputs (lesson.md, the notebook)."""
    return plain_markdown(
        text or "",
        context["resolve_link"],
        context.get("live_values"),
        context.get("references"),
        context.get("images"),
    )


@pass_context
def _inline_filter(context: Context, text: str | None) -> Markup:
    return _remembered(
        context,
        f"inline\0{text or ''}",
        lambda: render_inline(
            text or "",
            context["resolve_link"],
            context.get("live_values"),
            context.get("formulas"),
            _extras(context),
        ),
    )


def render_page(env: Environment, template: str, url: str, course: Course, **context: Any) -> str:
    html = env.get_template(template).render(
        course=course,
        page_url=url,
        root=relative_url(url, "index.html").removesuffix("index.html"),
        url_to=lambda target: relative_url(url, target),
        resolve_link=link_resolver(course, url),
        **context,
    )
    return changed_page(html, Page(url, context.get("lesson")))
