"""The page does not jump while it loads: cumulative layout shift at most 0.05 (Web Vitals'
"good" is 0.1) on every kind of page, at phone and desktop width, measured in Chromium."""

from __future__ import annotations

import pytest

from .conftest import LESSON_1, LESSON_2

LESSON_3 = "recovery/checkpoint-and-resume-a-training-step/index.html"
PAGES = [
    "index.html",
    "recovery/index.html",
    LESSON_1,
    LESSON_2,
    LESSON_3,
    "search/index.html",
    "my-learning/index.html",
    "404.html",
]

# Every layout shift from the first paint on, as the browser reports them.
RECORD_SHIFTS = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (!entry.hadRecentInput) window.__shifts.push(entry.value);
  }
}).observe({type: "layout-shift", buffered: true});
"""


@pytest.mark.parametrize("width", [375, 1280])
def test_no_page_shifts_its_layout_while_it_loads(browser, base_url, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    context.add_init_script(RECORD_SHIFTS)
    page = context.new_page()
    shifts = {}
    for path in PAGES:
        page.goto(base_url + path, wait_until="load")
        page.wait_for_timeout(500)  # what the scripts change after load
        shifts[path] = round(page.evaluate("window.__shifts.reduce((a, b) => a + b, 0)"), 3)
    context.close()
    assert {path: cls for path, cls in shifts.items() if cls > 0.05} == {}, shifts
