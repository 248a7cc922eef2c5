"""The Markdown dialect of lessons: CommonMark + tables + colon-fence blocks + $math$.

One configured parser serves the parse stage (tokens with line maps) and the render stage
(HTML). Raw HTML in lesson Markdown is escaped, never passed through.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode
from markdown_it.utils import OptionsDict
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .mathml import latex_to_mathml

if TYPE_CHECKING:  # the memo's module imports this one
    from pygments.lexer import Lexer

    from .caches import FormulaMemo

# latex2mathml and Pygments are imported on first use: formulas and highlighted code
# usually come from caches kept between builds (caches.FormulaMemo, caches.HighlightCache).

LinkResolver = Callable[[str], str]
"""Maps a `lesson:slug#anchor` href to a relative URL."""


def slugify(text: str) -> str:
    """An anchor id from a heading: lowercase words joined by hyphens."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def math_to_mathml(latex: str, display: bool, formulas: FormulaMemo | None = None) -> str:
    """MathML for a LaTeX formula, from the build's memo when it has one; raises on LaTeX
    that latex2mathml cannot read or that asks for markup outside the allowlist."""
    if formulas is not None:
        return formulas.convert(latex, display)
    return latex_to_mathml(latex.strip(), display)


def highlight_code(code: str, language: str) -> str:
    """Pygments-highlighted HTML spans for `code` (escaped plain text if no lexer fits)."""
    from pygments import highlight

    return highlight(code, _lexer(language or "text"), _html_formatter())


@functools.cache
def _lexer(language: str) -> Lexer:
    """Pygments' lexer for `language` (plain text if it has none); finding one by name
    scans Pygments' whole lexer table, which cost more than highlighting a short fence."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return get_lexer_by_name("text")


@functools.cache
def _html_formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def _render_labelled_math(content: str, options: dict) -> str:
    return math_to_mathml(content, bool(options.get("display_mode")))


# The plugin's wrappers, except that `$$...$$` inside a paragraph goes in a span: a <p>
# cannot hold a <div>, and browsers and the HTML checker split the paragraph at one.
_MATH_WRAPPERS = {  # token type -> element, class, display mode, what follows
    "math_inline": ("span", "math inline", False, ""),
    "math_inline_double": ("span", "math inline", True, ""),
    "math_block": ("div", "math block", True, "\n"),
}


def _render_math(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    """A formula as MathML, converted through the build's memo (`env["formulas"]`)."""
    token = tokens[idx]
    tag, css, display, gap = _MATH_WRAPPERS[token.type]
    mathml = math_to_mathml(token.content, display, env.get("formulas"))
    return f'<{tag} class="{css}">{gap}{mathml}{gap}</{tag}>{gap}'


def _highlight_fence(code: str, language: str, _attrs: str) -> str:
    return highlight_code(code, language.split()[0] if language else "text")


def _link_open(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if href.startswith("lesson:"):
        token.attrSet("href", env["resolve_link"](href))
    return self.renderToken(tokens, idx, options, env)


_LIVE_VALUE = re.compile(r"\{value\}`([^`\n]+)`")


def _live_value_rule(state: StateInline, silent: bool) -> bool:
    """Inline `{value}`expression``: a value the lesson's code computed, shown in prose."""
    if not state.src.startswith("{value}`", state.pos):
        return False
    match = _LIVE_VALUE.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("live_value", "", 0)
        token.content = match.group(1).strip()
    state.pos = match.end()
    return True


def _render_live_value(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    value = env["live_values"][tokens[idx].content]
    return f'<span class="live-value">{escapeHtml(value)}</span>'


def _fence(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    """Code fences; a ```python norun fence is marked, so the page can say it is not run."""
    token = tokens[idx]
    if "norun" in token.info.split()[1:]:
        token.attrJoin("class", "not-run")
    return self.fence(tokens, idx, options, env)


def _heading_open(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    token = tokens[idx]
    if token.tag in ("h2", "h3") and idx + 1 < len(tokens):
        token.attrSet("id", slugify(tokens[idx + 1].content))
    return self.renderToken(tokens, idx, options, env)


def create_markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight_fence})
    md.enable("table")
    md.use(colon_fence_plugin)
    md.use(
        dollarmath_plugin, renderer=_render_labelled_math, allow_digits=False, double_inline=True
    )
    for token_type in _MATH_WRAPPERS:
        md.add_render_rule(token_type, _render_math)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("fence", _fence)
    md.inline.ruler.before("backticks", "live_value", _live_value_rule)
    md.add_render_rule("live_value", _render_live_value)
    return md


MARKDOWN = create_markdown()


def parse_nodes(text: str) -> list[SyntaxTreeNode]:
    """The top-level nodes of `text`, each with its 0-based line map."""
    return SyntaxTreeNode(MARKDOWN.parse(text)).children


# `[text](lesson:…)` with or without a title, and a reference definition `[ref]: lesson:…`.
_LESSON_LINK = re.compile(r"(\]\(|^ {0,3}\[[^\]\n]+\]:[ \t]*)(lesson:[^)\s]+)", re.M)


def plain_markdown(
    markdown: str, resolve_link: LinkResolver, live_values: dict[str, str] | None = None
) -> str:
    """Lesson Markdown as a reader's Markdown: live values filled in, lesson links resolved."""
    values = live_values or {}
    text = _LIVE_VALUE.sub(lambda m: values.get(m.group(1).strip(), m.group(0)), markdown)
    return _LESSON_LINK.sub(lambda m: m.group(1) + resolve_link(m.group(2)), text)


def render_block(
    markdown: str,
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None = None,
    formulas: FormulaMemo | None = None,
) -> str:
    return MARKDOWN.render(
        markdown,
        {"resolve_link": resolve_link, "formulas": formulas, "live_values": live_values or {}},
    )


def render_inline(
    markdown: str,
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None = None,
    formulas: FormulaMemo | None = None,
) -> str:
    return MARKDOWN.renderInline(
        markdown,
        {"resolve_link": resolve_link, "formulas": formulas, "live_values": live_values or {}},
    )
