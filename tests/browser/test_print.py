"""Printing a lesson: a document without navigation, every folded block printed, headings
and labels kept with what follows them, and a page count measured on 06.02 at A4.

06.02 printed to 20 A4 pages in Chromium 156 before static/print.css was reworked, with
stage headings stranded at page bottoms and empty copy-button bars above the setup code;
it prints to 15 since.
"""

from __future__ import annotations

import re

from .conftest import LESSON_2

MAX_PAGES_06_02 = 17  # measured 15, plus room for a font or a line of prose

PRINT_LAYOUT = """() => {
  const style = (el, pseudo) => getComputedStyle(el, pseudo);
  const shown = el => el.getClientRects().length > 0 && style(el).visibility !== "hidden";
  const all = selector => [...document.querySelectorAll(selector)];
  return {
    headings: all("main h2, main h3, main h4, main summary, .code-label, .output-label")
      .filter(shown)
      .map(el => ({text: el.textContent.trim().slice(0, 40), after: style(el).breakAfter,
                   inside: style(el).breakInside})),
    chrome: all(".site-search, .site-nav, .breadcrumbs, .sidebar, .stage-nav, .page-contents, " +
                ".lesson-pager, .site-footer, .copy-button, .tablist")
      .map(el => ({cls: el.className, shown: shown(el)})),
    // What is printed right above each code or output box: nothing, or a label with words.
    above: all("main pre").filter(shown).map(pre => {
      const bar = pre.previousElementSibling;
      return bar && shown(bar) ? bar.textContent.trim() : null;
    }),
    details: all("main details").filter(shown).map(d => ({
      cls: d.className, open: d.open,
      content: [...d.children].filter(c => c.tagName !== "SUMMARY")
        .map(c => ({tag: c.tagName, shown: shown(c), height: c.getBoundingClientRect().height})),
    })),
    setupPanels: all(".setup-tabs section").map(s => shown(s) && shown(s.querySelector("pre"))),
    proseLinkAfter: all("main .prose a[href^='http'], main .lesson-header a[href^='http']")
      .map(a => style(a, "::after").content),
    referenceAfter: all(".references a[href^='http']").map(a => style(a, "::after").content),
  };
}"""


def test_print_layout_keeps_headings_with_their_content_and_prints_every_fold(page, base_url):
    page.goto(base_url + LESSON_2)
    page.wait_for_selector(
        ".setup-tabs.is-tabbed", state="attached"
    )  # site.js added its tabs and copy bars
    page.emulate_media(media="print")
    layout = page.evaluate(PRINT_LAYOUT)

    stage_titles = [h for h in layout["headings"] if h["text"].startswith("Stage ")]
    assert len(stage_titles) == 5, layout["headings"]
    stranded = [h for h in layout["headings"] if h["after"] != "avoid" or h["inside"] != "avoid"]
    assert stranded == [], stranded

    assert layout["chrome"], "the page has navigation to hide"
    assert [c for c in layout["chrome"] if c["shown"]] == []

    # No empty bar above code: the screen's copy-button bars are not printed.
    assert layout["above"], "the page has code"
    assert "" not in layout["above"], layout["above"]

    # Every <details> prints its content, open or not (print.css, before any beforeprint).
    folded = [d for d in layout["details"] if not d["open"]]
    assert len(folded) >= 8, layout["details"]  # setup help, scaffolds, hints, solutions, ...
    unprinted = [
        d
        for d in layout["details"]
        if not d["content"] or not all(c["shown"] for c in d["content"])
    ]
    assert unprinted == [], unprinted
    assert sum(c["height"] for d in folded for c in d["content"]) > 1000

    # Both shells' setup lines print, not only the selected tab.
    assert layout["setupPanels"] and all(layout["setupPanels"]), layout["setupPanels"]

    # Addresses print after references only, not after every link in the prose.
    assert layout["referenceAfter"] and all("http" in c for c in layout["referenceAfter"])
    assert all("http" not in c for c in layout["proseLinkAfter"]), layout["proseLinkAfter"]


def test_06_02_prints_to_few_a4_pages(page, base_url):
    page.goto(base_url + LESSON_2)
    page.wait_for_load_state("networkidle")
    pdf = page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))
    assert 8 <= pages <= MAX_PAGES_06_02, f"06.02 printed to {pages} A4 pages"
