"""Every lesson page, at phone and desktop width, in both themes, with every collapsed
block open: no serious or critical accessibility violation (code that scrolls sideways
must be reachable by keyboard)."""

from __future__ import annotations

import pytest

from .conftest import LESSON_1, LESSON_2
from .test_reader_site import OPEN_EVERY_DETAILS, serious_violations

LESSON_3 = "recovery/checkpoint-and-resume-a-training-step/index.html"


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_lesson_with_blocks_open_has_no_serious_violation(browser, base_url, width, theme):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=theme, reduced_motion="reduce"
    )
    page = context.new_page()
    problems = {}
    for path in (LESSON_1, LESSON_2, LESSON_3):
        page.goto(base_url + path)
        page.evaluate(OPEN_EVERY_DETAILS)
        page.wait_for_timeout(100)  # the enhancement reacts to the blocks opening
        found = serious_violations(page)
        if found:
            problems[path] = found
    context.close()
    assert problems == {}


def test_code_that_scrolls_sideways_takes_keyboard_focus(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 900})
    page = context.new_page()
    page.goto(base_url + LESSON_2)
    page.evaluate(OPEN_EVERY_DETAILS)
    page.wait_for_timeout(100)
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('pre')]
            .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
            .map(pre => pre.getAttribute('tabindex'))"""
    )
    context.close()
    assert overflowing and set(overflowing) == {"0"}


def test_a_block_that_scrolls_sideways_shows_it_at_the_cut_edge(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 900})
    page = context.new_page()
    page.goto(base_url + LESSON_2)
    wide = page.locator("pre.scrolls").first
    assert "scrolls-right" in wide.get_attribute("class")
    assert wide.evaluate("pre => getComputedStyle(pre).maskImage") != "none"
    wide.evaluate("pre => { pre.scrollLeft = pre.scrollWidth; }")
    page.wait_for_timeout(100)
    classes = wide.get_attribute("class").split()
    context.close()
    assert "scrolls-left" in classes and "scrolls-right" not in classes


def test_before_you_start_gives_its_values_the_whole_width_on_a_phone(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 900})
    page = context.new_page()
    page.goto(base_url + LESSON_2)
    box = page.locator(".before-you-start").bounding_box()
    downloads = page.locator(".before-you-start dd details").first.bounding_box()
    context.close()
    assert downloads["width"] > 0.85 * (box["width"] - 40), (downloads, box)
