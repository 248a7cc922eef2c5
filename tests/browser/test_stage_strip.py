"""The sticky stage strip: names where they fit, numbers when narrow, and the stage whose
title is near the top marked; stage 1's sections nest under its title; inline math in the
body font."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import LESSON_1, LESSON_2

NAME_SHOWN = (
    "e => getComputedStyle(e).position !== 'absolute' && e.getBoundingClientRect().width > 1"
)


@pytest.mark.parametrize(("width", "names"), [(1280, True), (1000, False), (375, False)])
def test_strip_shows_stage_names_where_they_fit(browser, base_url, width, names):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(base_url + LESSON_2)
    strip = page.locator(".stage-nav")
    shown = strip.locator(".stage-name").evaluate_all(f"all => all.map({NAME_SHOWN})")
    fits = strip.evaluate("n => n.scrollWidth <= n.clientWidth")
    label = strip.locator(".stage-current").is_visible()
    context.close()
    assert shown == [names] * 5
    assert fits
    assert label is not names  # the "Stage 1 of 5 · Understand" label only with numbers


@pytest.mark.parametrize("width", [1280, 375])
def test_strip_marks_the_stage_whose_title_is_near_the_top(browser, base_url, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(base_url + LESSON_1)
    strip = page.locator(".stage-nav")
    # Stage 4's title a little below the strip, stage 3's text above it.
    page.evaluate(
        """() => {
          const strip = document.querySelector('.stage-nav').getBoundingClientRect().height;
          const title = document.getElementById('exercise-check-title');
          window.scrollTo(0, title.getBoundingClientRect().top + scrollY - strip - 120);
        }"""
    )
    expect(strip.locator("a[aria-current=step]")).to_have_attribute("href", "#exercise-check")
    expect(strip.locator(".stage-current")).to_have_text("Stage 4 of 5 · Exercise & Check")
    context.close()


def test_stage_1_sections_nest_under_its_title(page, base_url):
    page.goto(base_url + LESSON_1)
    for stage in ("understand", "evidence"):
        levels = page.locator(f"#{stage} > :is(h2, h3)[id]").evaluate_all(
            "hs => hs.map(h => h.tagName)"
        )
        assert levels[0] == "H2" and set(levels[1:]) == {"H3"}, (stage, levels)
    assert page.locator("#understand > h3[id]").count() >= 3


def test_inline_math_uses_the_body_font(page, base_url):
    page.goto(base_url + LESSON_1)
    fonts = page.evaluate(
        """() => {
          const math = document.querySelector('main p math:not([display=block]) mn');
          return [getComputedStyle(math).fontFamily, getComputedStyle(document.body).fontFamily];
        }"""
    )
    assert fonts[0] == fonts[1]
