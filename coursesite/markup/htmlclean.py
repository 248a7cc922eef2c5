"""HTML that a lesson's code displayed (`_repr_html_`, `text/html`), reduced to an allowlist.

What a lesson's process hands back is untrusted: it reaches readers inside the lesson page,
on the course's own origin. The allowlist keeps what data displays are made of (tables,
lists, basic inline markup) and drops everything that could run, load or restyle anything:
scripts, styles and `style` attributes, event handlers, forms, frames, images and classes
(a class could borrow the theme's). Links keep only web and mail addresses, and open no
window that could reach back. The sanitising is ammonia's (nh3), a maintained HTML5 parser
and cleaner: a hand-written filter is how such lists usually fail.
"""

from __future__ import annotations

import nh3

TAGS = frozenset(
    """
    table caption colgroup col thead tbody tfoot tr th td
    p br hr div span pre code samp kbd var blockquote
    b strong i em u s del ins mark small sub sup abbr q cite dfn
    ul ol li dl dt dd
    a
    """.split()
)
ATTRIBUTES = {
    "th": {"colspan", "rowspan", "scope", "align"},
    "td": {"colspan", "rowspan", "align"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start"},
    "a": {"href", "title"},
    "abbr": {"title"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


def clean_html(html: str) -> str:
    """`html` with only allow-listed elements and attributes left; the text of any other
    element is kept as text, except a script's or style's, which goes with it."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
