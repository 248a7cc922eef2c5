"""Search over an index in shards: the search page merges them and finds every lesson."""

from __future__ import annotations

import json
import shutil
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from coursesite.publish.searchindex import SEARCH, SHARD_LIST, index_search

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
