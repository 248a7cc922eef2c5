"""The search box in every page's header: a plain GET form that opens the search page with
the query, which runs it; and an index that holds the lessons' words, not their metadata."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import LESSON_1, LESSON_2


def test_header_box_opens_the_search_page_with_the_query_and_runs_it(page, base_url):
    page.goto(base_url + LESSON_1)
    box = page.locator("header.site-header").get_by_role("searchbox", name="Search the lessons")
    box.fill("snapshot")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/course/search/index\.html\?q=snapshot$"))
    expect(page.locator("#search-input")).to_have_value("snapshot")
    result = page.locator(f".search-result-title a[href$='{LESSON_2}']")
    expect(result).to_have_count(1)


@pytest.mark.parametrize("query", ["xyzzyqq", "checkpont"])
def test_a_word_the_lessons_never_use_finds_nothing(page, base_url, query):
    """Pagefind answers an unknown word with its longest indexed prefix ("x", "check")."""
    page.goto(base_url + f"search/index.html?q={query}")
    expect(page.locator("#search-status")).to_have_text(f"No lesson matches “{query}”.")
    expect(page.locator(".search-result")).to_have_count(0)


@pytest.mark.parametrize(
    ("query", "lesson"),
    [
        ("iterator state", LESSON_2),
        ("grain iterator", LESSON_2),
        ("preemption", "recovery/run-a-preemption-drill/index.html"),
    ],
)
def test_the_lesson_about_a_topic_ranks_above_those_that_mention_it(page, base_url, query, lesson):
    """Several lessons use these words; the one whose summary and outcomes are about them
    comes first, because those weigh more than body text (data-pagefind-weight)."""
    page.goto(base_url + f"search/index.html?q={query}")
    first = page.locator(".search-result-title a").first
    expect(first).to_have_attribute("href", re.compile(re.escape(lesson) + "$"))
    expect(page.locator(".search-result")).not_to_have_count(1)  # others mention it too


def test_a_stemmed_form_still_finds_its_word(page, base_url):
    page.goto(base_url + "search/index.html?q=batching")
    expect(page.locator(".search-result-title a").first).to_be_visible()


def test_header_box_works_without_javascript(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url + "recovery/index.html")
    page.locator(".site-search input[name=q]").fill("grain order")
    page.locator(".site-search button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/course/search/index\.html\?q=grain\+order$"))
    context.close()


INDEXED_TEXT = """async () => {
  const pagefind = await import(new URL("../pagefind/pagefind.js", location.href).href);
  const search = await pagefind.search("the");
  return Promise.all(search.results.map(async result => (await result.data()).content));
}"""


def test_search_indexes_the_lessons_words_not_their_metadata_downloads_or_provenance(
    page, base_url
):
    page.goto(base_url + "search/index.html")
    texts = page.evaluate(INDEXED_TEXT)
    assert len(texts) == 6
    for text in texts:
        assert "Understand" in text
        for ignored in (
            "Revision v",
            "Lesson 1 of 3",
            "lesson.ipynb",
            "main.py download",
            "PowerShell",
            "Jupyter",
            "CPU practice",
            # A figure's provenance line and its links: the same on every figure.
            "Drawn from data recorded",
            "Python 3.",
            "Open full size",
            "Data and provenance",
        ):
            assert ignored not in text
    # The caption itself is the lesson's words: it stays.
    page.goto(base_url + LESSON_2)
    caption = page.locator(".figure-block figcaption").first.evaluate(
        "c => [...c.childNodes].filter(n => !(n.classList && n.classList.contains("
        "'figure-provenance'))).map(n => n.textContent).join('').trim()"
    )
    assert len(caption) > 10 and "Drawn from" not in caption
    assert sum(caption in text for text in texts) == 1, caption
    page.goto(base_url + "search/index.html?q=grain")
    excerpt = page.locator(".search-result .search-excerpt").first
    expect(excerpt).not_to_be_empty()
    expect(excerpt).not_to_contain_text(re.compile(r"Lesson \d of \d|Revision v|built \d"))


def test_only_the_pagefind_files_pages_load_are_published(built_site):
    published = sorted(path.name for path in (built_site / "pagefind").iterdir())
    assert not [name for name in published if "-ui" in name or "highlight" in name], published
    assert {"pagefind.js", "pagefind-worker.js", "pagefind-entry.json"} <= set(published)
