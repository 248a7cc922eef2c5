"""Links where the reader needs them: the evidence template and the notes' export under
"Keep your evidence", the record and run time under "Recorded execution", the essential
downloads at the top; and on a phone, the lesson's text within the first screen and a half."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import LESSON_1, LESSON_2

LESSON_3 = "recovery/checkpoint-and-resume-a-training-step/index.html"


def test_keep_your_evidence_links_the_template_and_the_export(page, base_url):
    page.goto(base_url + LESSON_1)
    evidence = page.locator("section.note-evidence")
    template = evidence.get_by_role("link", name="Download the evidence template")
    expect(template).to_have_attribute("href", "evidence.md")
    with page.expect_download() as download:
        template.click()
    assert download.value.suggested_filename == "evidence.md"
    export = evidence.get_by_role("link", name="Export them to a file")
    expect(export).to_be_visible()
    export.click()
    expect(page).to_have_url(re.compile(r"my-learning/index\.html#portfolio-export$"))
    expect(page.locator("#portfolio-export")).to_be_visible()


def test_recorded_execution_gives_the_run_time_the_record_and_only_imported_packages(
    page, base_url
):
    page.goto(base_url + LESSON_1)  # imports numpy only
    run = page.locator("section.recorded-run")
    environment = run.locator(".environment")
    expect(environment).to_contain_text(re.compile(r"ran in \d+(\.\d)? m?s · Python"))
    expect(environment).to_contain_text(re.compile(r"numpy \d"))
    expect(environment).not_to_contain_text("jax 0")
    expect(environment).not_to_contain_text("grain")
    expect(run.get_by_role("link", name="Download the record of this run")).to_have_attribute(
        "href", "record.json"
    )
    setup = page.locator("details.setup-help")
    setup.locator("summary").click()
    expect(setup).to_contain_text(re.compile(r"pip install numpy==[\d.]+\n"))
    page.goto(base_url + LESSON_3)  # imports jax, grain and numpy
    environment = page.locator("section.recorded-run .environment")
    expect(environment).to_contain_text(re.compile(r"jax \d.* grain \d.* numpy \d"))


def test_lesson_top_lists_the_essential_downloads_and_folds_the_rest(page, base_url):
    page.goto(base_url + LESSON_2)
    essentials = page.locator(".before-you-start .downloads-essential a")
    hrefs = [link.get_attribute("href") for link in essentials.all()]
    assert hrefs == ["main.py", "lesson.ipynb", "load-batch-and-checkpoint-order-with-grain.zip"]
    folded = page.locator("details.all-downloads")
    expect(folded).not_to_have_attribute("open", re.compile(".*"))
    expect(folded.get_by_role("link", name="record.json")).to_be_hidden()
    folded.locator("summary").click()
    expect(folded.get_by_role("link", name="record.json")).to_be_visible()
    expect(folded.get_by_role("link", name="evidence.md")).to_be_visible()


@pytest.mark.parametrize("lesson", [LESSON_1, LESSON_2, LESSON_3])
def test_on_a_phone_the_lesson_text_starts_within_a_screen_and_a_half(browser, base_url, lesson):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    page.goto(base_url + lesson)
    top = page.evaluate(
        "document.getElementById('understand-title').getBoundingClientRect().top + scrollY"
    )
    context.close()
    assert top <= 1.5 * 812, f"the Understand stage starts at {top}px"
