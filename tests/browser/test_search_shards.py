"""Search over an index in shards: the search page merges them and finds every lesson."""

from __future__ import annotations

import json
import os
import re
import shutil
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from coursesite.publish.searchindex import OVERLAY_PAGES, SEARCH, SHARD_LIST, index_search

from .conftest import LESSON_1, LESSON_2, Watcher, serving


@pytest.fixture(scope="module")
def sharded_url(built_site, tmp_path_factory):
    """The real course with its index in two shards (a real course shards past 50 lessons)."""
    site = tmp_path_factory.mktemp("sharded") / "course"
    shutil.copytree(built_site, site)
    shutil.rmtree(site / SEARCH)
    index_search(site, shard_pages=2)
    with serving(site) as url:
        yield url


def test_a_query_finds_lessons_in_every_shard(browser, sharded_url):
    site_shards = json.loads(urlopen(sharded_url + f"{SEARCH}/{SHARD_LIST}").read())["shards"]
    # Pages go to shards by a hash of their path: lesson 1 in shards/3/, lesson 2 in shards/2/.
    assert site_shards == ["", "shards/2/", "shards/3/"]
    context = browser.new_context()
    watcher = Watcher(sharded_url)
    context.on("page", watcher.attach)
    page = context.new_page()
    try:
        for query, lesson in (("pipeline", LESSON_1), ("snapshot", LESSON_2)):
            page.goto(sharded_url + "search/index.html?q=" + query)
            result = page.locator(f".search-result-title a[href$='/course/{lesson}']")
            expect(result).to_have_count(1)
        # One query, results from both shards, ranked together.
        page.goto(sharded_url + "search/index.html?q=checkpoint")
        titles = page.locator(".search-result-title a")
        expect(titles.filter(has_text="06.01")).to_have_count(1)
        expect(titles.filter(has_text="06.02")).to_have_count(1)
        expect(page.locator("#search-status")).to_contain_text("lessons match")
    finally:
        context.close()
    assert watcher.problems == [], "\n".join(watcher.problems)


@pytest.fixture(scope="module")
def overlaid_url(built_site, tmp_path_factory):
    """The real course after an edit of lesson 1 (its word "eleven" became "zyzzogeton"),
    the shard keeps the lesson's old entry, and the overlay holds the edited page."""
    holder = tmp_path_factory.mktemp("overlaid")
    old, site, state = holder / "old", holder / "course", holder / "search.json"
    shutil.copytree(built_site, old)
    shutil.rmtree(old / SEARCH)
    index_search(old, state=state)
    # Unchanged pages are hard links to the old site's, as a build keeps them.
    shutil.copytree(old, site, ignore=shutil.ignore_patterns(SEARCH), copy_function=os.link)
    page = site / LESSON_1
    text = page.read_text()
    page.unlink()
    page.write_text(re.sub("eleven", "zyzzogeton", text, flags=re.IGNORECASE))
    index_search(site, previous=old / SEARCH, state=state, overlay_pages=OVERLAY_PAGES)
    assert json.loads((site / SEARCH / SHARD_LIST).read_text())["shards"] == ["", "overlay/"]
    with serving(site) as url:
        yield url


def test_an_overlaid_page_is_found_by_its_new_words_once_and_not_by_its_old(browser, overlaid_url):
    context = browser.new_context()
    watcher = Watcher(overlaid_url)
    context.on("page", watcher.attach)
    page = context.new_page()
    try:
        lesson = page.locator(f".search-result-title a[href$='/course/{LESSON_1}']")
        page.goto(overlaid_url + "search/index.html?q=zyzzogeton")
        expect(lesson).to_have_count(1)
        # Its words in the shard's stale entry find it no more.
        page.goto(overlaid_url + "search/index.html?q=eleven")
        expect(page.locator("#search-status")).to_contain_text("No lesson matches")
        # A word of both versions finds it once, beside the other lessons.
        page.goto(overlaid_url + "search/index.html?q=pipeline")
        expect(lesson).to_have_count(1)
        expect(page.locator(".search-result-title a").filter(has_text="06.05")).to_have_count(1)
    finally:
        context.close()
    assert watcher.problems == [], "\n".join(watcher.problems)
