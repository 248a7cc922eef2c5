"""The Markdown dialect of lessons: CommonMark + tables + colon-fence blocks + $math$, and
the MyST pieces: roles, `(label)=` targets, footnotes, definition lists, `%` comments.

One configured parser serves the parse stage (tokens with line maps) and the render stage
(HTML). Raw HTML never passes through: HTML comments are dropped, and the parse stage
refuses any other HTML (the renderer escapes it, should any reach it).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode
from markdown_it.utils import OptionsDict
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from coursesite.markup.mathml import latex_to_mathml
from coursesite.markup.myst import (
    References,
    api_name,
    plain_roles,
    resolve_roles,
    role_rule,
    split_role_text,
)

if TYPE_CHECKING:
    from pygments.lexer import Lexer


class FormulaMemo(Protocol):
    """Formulas converted before (caches.FormulaMemo, which imports this module)."""

    def convert(self, latex: str, display: bool) -> str: ...


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


def warm_highlighter() -> None:
    """Load Pygments and its Python lexer ahead of highlighting (they take about 20 ms)."""
    _lexer("python")
    _html_formatter()


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


# The element around each kind of token the build renders itself, as markdown-it renders
# tokens: the plugin's math wrappers, except that `$$...$$` inside a paragraph goes in a
# span (a <p> cannot hold a <div>, and browsers and the HTML checker split the paragraph at
# one), and live values.
_WRAPPERS = {  # token type -> element, class
    "math_inline": ("span", "math inline"),
    "math_inline_double": ("span", "math inline"),
    "math_block": ("div", "math block"),
    "live_value": ("span", "live-value"),
}


def wrap_in_elements(state: StateCore) -> None:
    """Give formulas, live values and `(label)=` targets their elements as tokens of their
    own, so that markdown-it writes the markup and our render rules only the content."""
    state.tokens = _wrapped(state.tokens)
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = _wrapped(token.children)


def _wrapped(tokens: list[Token]) -> list[Token]:
    result: list[Token] = []
    for token in tokens:
        if token.type == "myst_target":  # an empty element carrying the label as its id
            attrs = {"class": "target", "id": token.content}
            result += [_element(token, "span", 1, attrs), _element(token, "span", -1)]
        elif token.type in _WRAPPERS:
            tag, css = _WRAPPERS[token.type]
            result += [_element(token, tag, 1, {"class": css}), token, _element(token, tag, -1)]
        else:
            result.append(token)
    return result


def _element(around: Token, tag: str, nesting: Literal[1, -1], attrs: dict | None = None) -> Token:
    kind = "open" if nesting == 1 else "close"
    return Token(f"{tag}_{kind}", tag, nesting, attrs=attrs or {}, block=around.block)


def _render_math(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    """A formula as MathML (allow-listed, mathml.py), converted through the build's memo
    (`env["formulas"]`)."""
    token = tokens[idx]
    display = token.type != "math_inline"
    mathml = math_to_mathml(token.content, display, env.get("formulas"))
    return mathml + "\n" if token.block else mathml


def _highlight_fence(code: str, language: str, _attrs: str) -> str:
    return highlight_code(code, language.split()[0] if language else "text")


def _image(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    """An image whose file the build copied into the site (render.lesson_images)."""
    token = tokens[idx]
    copied = (env.get("images") or {}).get(str(token.attrGet("src") or ""))
    if copied is not None:
        token.attrSet("src", copied)
    return self.image(tokens, idx, options, env)


def _raw_html(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    """HTML comments are dropped; other HTML, which the parse stage refuses, is text."""
    content = tokens[idx].content
    if content.lstrip().startswith("<!--"):
        return ""
    return escapeHtml(content)


def _nothing(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: dict
) -> str:
    return ""


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
    return escapeHtml(env["live_values"][tokens[idx].content])


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


def create_markdown(footnotes_at_end: bool = True) -> MarkdownIt:
    """The lesson dialect. The parse stage's parser leaves footnote definitions where they
    are written (`footnotes_at_end=False`), so that each keeps its line and its prose."""
    md = MarkdownIt("commonmark", {"html": True, "highlight": _highlight_fence})
    md.enable("table")
    md.use(colon_fence_plugin)
    md.use(footnote_plugin, inline=False, move_to_end=footnotes_at_end)
    md.use(deflist_plugin)
    md.use(myst_block_plugin)
    md.use(myst_role_plugin)
    md.inline.ruler.at("myst_role", role_rule)  # the plugin's renderer, our parsing rule
    md.use(
        dollarmath_plugin, renderer=_render_labelled_math, allow_digits=False, double_inline=True
    )
    for token_type in ("math_inline", "math_inline_double", "math_block"):
        md.add_render_rule(token_type, _render_math)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("fence", _fence)
    md.inline.ruler.before("myst_role", "live_value", _live_value_rule)
    md.add_render_rule("live_value", _render_live_value)
    md.core.ruler.after("inline", "resolve_roles", resolve_roles)
    md.add_render_rule("image", _image)
    md.add_render_rule("html_block", _raw_html)
    md.add_render_rule("html_inline", _raw_html)
    md.core.ruler.after("resolve_roles", "wrap_in_elements", wrap_in_elements)
    md.add_render_rule("myst_line_comment", _nothing)
    return md


MARKDOWN = create_markdown()
_PARSER = create_markdown(footnotes_at_end=False).disable(["resolve_roles", "wrap_in_elements"])


MARKUP_DEPTH_LIMIT = 100
"""How deep Markdown's elements may nest in one another (lists, quotes, emphasis)."""


class MarkupTooDeep(Exception):
    """Markdown nested past MARKUP_DEPTH_LIMIT, from the 0-based line `line` of its text."""

    def __init__(self, line: int):
        super().__init__(f"Markdown nested more than {MARKUP_DEPTH_LIMIT} deep")
        self.line = line


def parse_nodes(text: str) -> list[SyntaxTreeNode]:
    """The top-level nodes of `text`, each with its 0-based line map. Roles stay role
    tokens here (the parse stage checks them) and footnote definitions stay in place.

    Raises MarkupTooDeep rather than build a tree whose depth would exhaust the stack
    (the tree and its walk recurse once a level): markdown-it bounds how deep blocks nest,
    but not emphasis (2,000 `*` around a word make 1,000 levels)."""
    tokens = _PARSER.parse(text)
    _check_depth(tokens)
    return SyntaxTreeNode(tokens).children


def _check_depth(tokens: list[Token]) -> None:
    depth = 0
    line = 0
    for token in tokens:
        depth += token.nesting
        line = token.map[0] if token.map else line
        inner = depth
        for child in token.children or ():
            inner += child.nesting
            if inner > MARKUP_DEPTH_LIMIT:
                raise MarkupTooDeep(line)
        if depth > MARKUP_DEPTH_LIMIT:
            raise MarkupTooDeep(line)


def plain_text(markdown: str, keep_code: bool = False) -> str:
    """One line of inline Markdown (a title, a summary) as the text it shows, for where no
    markup may go: a page's <title>, a sidebar, a link preview. Code keeps its text; with
    `keep_code`, code and math keep their markup too (`x`, $x$), for inline Markdown."""
    pieces = []
    for token in _PARSER.parseInline(markdown)[0].children or []:
        if keep_code and token.type in ("code_inline", "math_inline"):
            pieces.append(f"{token.markup}{token.content}{token.markup}")
        elif token.type in ("text", "code_inline", "math_inline"):
            pieces.append(token.content)
        elif token.type == "myst_role":
            pieces.append(_role_text(token.content))
        elif token.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
    return " ".join("".join(pieces).split())


def _role_text(content: str) -> str:
    """The words a role shows: {ref}`its text <label>`, {func}`~jax.jit` as jit."""
    text, target = split_role_text(content)
    return text or api_name(target)[0]


# `[text](lesson:…)` with or without a title, and a reference definition `[ref]: lesson:…`.
_LESSON_LINK = re.compile(r"(\]\(|^ {0,3}\[[^\]\n]+\]:[ \t]*)(lesson:[^)\s]+)", re.M)


# An image `![alt](src)` (its src is what the page's images map knows).
_IMAGE = re.compile(r"(!\[[^\]\n]*\]\()([^)\s]+)")
# An HTML comment, which readers of the Markdown never saw on the page either.
# A comment alone on its lines goes with its lines.
_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n|<!--.*?-->", re.S | re.M)


def plain_markdown(
    markdown: str,
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None = None,
    references: References | None = None,
    images: dict[str, str] | None = None,
) -> str:
    """Lesson Markdown as a reader's Markdown: live values filled in, roles and lesson links
    resolved, images pointing at their copies beside the download, comments removed."""
    values = live_values or {}
    text = _LIVE_VALUE.sub(lambda m: values.get(m.group(1).strip(), m.group(0)), markdown)
    text = plain_roles(_COMMENT.sub("", text), references or References())
    if images:
        text = _IMAGE.sub(lambda m: m.group(1) + images.get(m.group(2), m.group(2)), text)
    return _LESSON_LINK.sub(lambda m: m.group(1) + resolve_link(m.group(2)), text)


@dataclass(frozen=True)
class PageExtras:
    """What prose on one page may point at, besides lesson links and live values."""

    references: References | None = None
    images: dict[str, str] | None = None  # an image's src -> its URL from the page
    footnote_prefix: str | None = None  # keeps footnote ids of the page's proses apart


def _env(
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None,
    formulas: FormulaMemo | None,
    extras: PageExtras | None,
) -> dict[str, object]:
    extras = extras or PageExtras()
    env: dict[str, object] = {
        "resolve_link": resolve_link,
        "formulas": formulas,
        "live_values": live_values or {},
        "course_references": extras.references,
        "images": extras.images,
    }
    if extras.footnote_prefix is not None:
        env["docId"] = extras.footnote_prefix  # the footnote plugin's id prefix
    return env


def render_block(
    markdown: str,
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None = None,
    formulas: FormulaMemo | None = None,
    extras: PageExtras | None = None,
) -> str:
    return MARKDOWN.render(markdown, _env(resolve_link, live_values, formulas, extras))


def render_inline(
    markdown: str,
    resolve_link: LinkResolver,
    live_values: dict[str, str] | None = None,
    formulas: FormulaMemo | None = None,
    extras: PageExtras | None = None,
) -> str:
    return MARKDOWN.renderInline(markdown, _env(resolve_link, live_values, formulas, extras))
