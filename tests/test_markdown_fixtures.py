"""Golden HTML for every construct of the lesson Markdown dialect (coursesite/markup/markdown.py).

Each file in tests/fixtures/ holds cases in markdown-it-py's fixture format: a title line,
a line with a single `.`, the Markdown, `.`, the expected output, `.`; cases are separated
by blank lines. The title is the test id. Which public function renders a file:

- `markdown.md`: `render_block` (the page's HTML);
- `inline.md`: `render_inline` (titles, options); the one newline that ends the Markdown
  and the expected HTML in the file is not part of the case;
- `plain.md`: `plain_markdown` (the reader's Markdown: live values filled, links resolved).

Every case uses the fake `resolve_link`, `LIVE_VALUES`, `REFERENCES` (targets, lessons and
API docs of a course) and `IMAGES` (image sources -> their copies in the site) below.

After an intended change of the output, rewrite the expected blocks with
`UPDATE_FIXTURES=1 .venv/bin/python -m pytest -q tests/test_markdown_fixtures.py`,
then read the diff of tests/fixtures/ before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from coursesite.markup.markdown import PageExtras, plain_markdown, render_block, render_inline
from coursesite.markup.mathml import UnsafeMath
from coursesite.markup.myst import References

FIXTURES = Path(__file__).parent / "fixtures"

LIVE_VALUES = {
    "total": "42",
    "shape": "(8, 128)",
    "hostile": "<b>&\"'</b>",
    'batch["id"].tolist()': "[3, 1, 2]",
}


REFERENCES = References(
    labels={"batch-sizes": ("count-batches", "Batch sizes"), "untitled": ("other", "")},
    lessons={"count-batches": "Count what a batch holds", "other": "Another lesson"},
    api_docs={"jax": "https://docs.jax.dev/en/latest/_autosummary/{name}.html"},
)
IMAGES = {"images/batches.png": "images/batches-0123456789ab.png"}


def resolve_link(href: str) -> str:
    """Like links.link_resolver seen from a page one folder deep."""
    slug, _, anchor = href[len("lesson:") :].partition("#")
    return f"../{slug}/index.html" + (f"#{anchor}" if anchor else "")


RENDERERS = {  # file -> (render function, whether a case is one fragment without its "\n")
    "markdown.md": (render_block, False),
    "inline.md": (render_inline, True),
    "plain.md": (plain_markdown, False),
}


def render(name: str, markdown: str) -> str:
    if name == "plain.md":
        return plain_markdown(markdown, resolve_link, LIVE_VALUES, REFERENCES, IMAGES)
    function, fragment = RENDERERS[name]
    # The footnote prefix stands for the prose's line, as the page's filter gives it.
    extras = PageExtras(REFERENCES, IMAGES, None if fragment else "l7")
    if fragment:
        return function(markdown.removesuffix("\n"), resolve_link, LIVE_VALUES, None, extras) + "\n"
    return function(markdown, resolve_link, LIVE_VALUES, None, extras)


def rewrite_expected(path: Path) -> None:
    """Replace each case's expected block with what the code renders now."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for first, _title, markdown, _expected in reversed(read_fixture_file(path)):
        dots = [i for i in range(first + 1, len(lines)) if lines[i].rstrip() == "."][:2]
        lines[dots[0] + 1 : dots[1]] = [render(path.name, markdown)]
    path.write_text("".join(lines), encoding="utf-8")


if os.environ.get("UPDATE_FIXTURES") == "1":
    for _name in RENDERERS:
        rewrite_expected(FIXTURES / _name)

CASES = [
    (name, line + 1, title, markdown, expected)
    for name in RENDERERS
    for line, title, markdown, expected in read_fixture_file(FIXTURES / name)
]


def test_every_case_has_its_own_title():
    titles = [title for _name, _line, title, _markdown, _expected in CASES]
    assert len(CASES) > 50
    assert sorted({t for t in titles if titles.count(t) > 1}) == []
    assert all(titles)


@pytest.mark.parametrize(
    "name, line, title, markdown, expected", CASES, ids=[case[2] for case in CASES]
)
def test_fixture(name, line, title, markdown, expected):
    assert render(name, markdown) == expected, f"tests/fixtures/{name}:{line}: {title}"


@pytest.mark.parametrize(
    "render_function, markdown",
    [
        (render_block, "See $\\href{javascript:alert(1)}{x}$ here.\n"),
        (render_block, "$$\n\\href{https://example.com}{x}\n$$\n"),
        (render_inline, "See $$\\href{javascript:alert(1)}{x}$$"),
    ],
)
def test_math_with_a_link_is_refused(render_function, markdown):
    with pytest.raises(UnsafeMath, match="href"):
        render_function(markdown, resolve_link, LIVE_VALUES)


def test_a_norun_fence_is_marked_for_the_page():
    html = render_block(
        "```python norun\nimport antigravity\n```\n", resolve_link=lambda href: href
    )
    assert '<code class="not-run language-python">' in html
    assert "not-run" not in render_block("```python\nx = 1\n```\n", resolve_link=lambda h: h)
