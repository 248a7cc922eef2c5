"""Figures read on a phone: their text is page text of at least 11 CSS px at 375 px wide,
in the page's sans-serif, and the full-size link under each figure opens its drawing."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Watcher

LESSON_3 = "recovery/checkpoint-and-resume-a-training-step/index.html"

# Each figure text's rendered size: its computed font size times the drawing's scale.
RENDERED_TEXT = """
() => [...document.querySelectorAll('.figure-svg svg text')].map(text => {
  const scale = text.ownerSVGElement.getScreenCTM().a;
  const style = getComputedStyle(text);
  return {text: text.textContent, px: parseFloat(style.fontSize) * scale,
          family: style.fontFamily};
})
"""


def test_figure_text_is_at_least_11_px_at_375_px(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    page.goto(base_url + LESSON_3)
    texts = page.evaluate(RENDERED_TEXT)
    body_font = page.evaluate("getComputedStyle(document.body).fontFamily")
    context.close()
    assert len(texts) >= 8, texts  # ticks, axis labels and the legend
    small = [t for t in texts if t["px"] < 11]
    assert small == [], small
    assert {t["family"] for t in texts} == {body_font}


def test_full_size_link_opens_the_drawing(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    watcher = Watcher(base_url)
    context.on("page", watcher.attach)
    page = context.new_page()
    page.goto(base_url + LESSON_3)
    page.locator(".figure-block").first.get_by_role(
        "button", name="Show without predicting"
    ).click()
    link = page.locator(".figure-block .figure-full-size").first
    response_url = link.evaluate("a => a.href")
    with page.expect_navigation():
        link.click()
    assert page.url == response_url and page.url.endswith(".svg")
    texts = page.evaluate("[...document.querySelectorAll('text')].map(t => t.textContent)")
    context.close()
    assert "training step" in texts
    # A document that is not a page (no <link rel=icon>) makes the browser ask for the
    # host's /favicon.ico, which is not the site's to serve.
    assert [p for p in watcher.problems if "favicon.ico" not in p and "404" not in p] == []
    assert not any(".svg" in p for p in watcher.problems), watcher.problems


def test_a_figures_code_link_opens_the_code_it_names(page, base_url):
    page.goto(base_url + LESSON_3)
    code = page.locator("details.figure-code").first
    expect(code).not_to_have_attribute("open", "")
    page.locator(".figure-block").first.get_by_role("button", name="Show the figure").click()
    expect(page.locator(".figure-block .gate-status").first).to_contain_text("prediction first")
    page.locator(".figure-block textarea").first.fill("Two curves, one on the other.")
    page.locator(".figure-block").first.get_by_role("button", name="Show the figure").click()
    page.locator(".figure-block .figure-links a[href^='#'][href$='-code']").first.click()
    expect(code).to_have_attribute("open", "")
    expect(code.locator("pre").first).to_be_visible()
    page.goto(base_url + LESSON_3 + "#" + code.get_attribute("id"))  # arriving from elsewhere
    page.reload()
    expect(page.locator("details.figure-code").first).to_have_attribute("open", "")
