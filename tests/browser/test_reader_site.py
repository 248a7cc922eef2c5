"""The reader's site in headless Chromium: navigation, search, tabs, quiz, portfolio, themes,
small screens, accessibility and pages without JavaScript."""

from __future__ import annotations

import json
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from .conftest import LESSON_1, LESSON_2

PAGES = [
    "index.html",
    "recovery/index.html",
    LESSON_1,
    LESSON_2,
    "search/index.html",
    "my-learning/index.html",
]

OPEN_EVERY_DETAILS = "document.querySelectorAll('details').forEach(d => d.open = true)"


def test_every_page_loads_without_errors_or_outside_requests(context, page, base_url, built_site):
    pages = sorted(str(p.relative_to(built_site)) for p in built_site.rglob("*.html"))
    assert set(PAGES) <= set(pages)
    for path in [*pages, "search/index.html?q=iterator"]:
        page.goto(base_url + path)
        page.wait_for_load_state("networkidle")
        assert page.locator("h1").count() == 1, path
    expect(page.locator(".search-result").first).to_be_visible()
    assert context.watcher.problems == []


def test_lesson_navigation(page, base_url):
    page.goto(base_url + LESSON_2)
    sidebar = page.locator("nav.sidebar")
    expect(sidebar.locator("a[aria-current=page]")).to_have_count(1)
    expect(sidebar.locator("a[aria-current=page]")).to_contain_text("06.02")
    expect(sidebar).to_contain_text(re.compile(r"Lesson 2 of \d"))
    expect(page.locator(".breadcrumbs a")).to_have_count(2)
    expect(page.locator(".lesson-pager a[rel=prev]")).to_contain_text("06.01")
    strip = page.locator(".stage-nav")
    expect(strip.locator(".stage-current")).to_have_text("Stage 1 of 5 · Understand")
    page.evaluate("document.getElementById('experiment').scrollIntoView()")
    expect(strip.locator(".stage-current")).to_have_text("Stage 3 of 5 · Experiment")
    expect(strip.locator("a[aria-current=step]")).to_have_attribute("href", "#experiment")
    assert strip.evaluate("nav => nav.getBoundingClientRect().top") == 0  # it follows scrolling
    anchors = page.locator("main h2[id] .heading-anchor")
    assert anchors.count() >= 5
    expect(page.locator("#understand-title .heading-anchor")).to_have_attribute(
        "href", "#understand"
    )
    page.locator(".lesson-pager a[rel=prev]").click()
    expect(page).to_have_url(re.compile(re.escape(LESSON_1) + "$"))


def test_search_finds_lesson_2_and_links_to_its_sections(page, base_url):
    page.goto(base_url + "search/index.html")
    page.get_by_label("Words to find in every lesson").fill("snapshot")
    results = page.locator(".search-result")
    expect(results.first).to_be_visible()
    result = results.filter(has=page.locator(f".search-result-title a[href$='{LESSON_2}']"))
    expect(result).to_have_count(1)
    link = result.locator(".search-result-title a")
    expect(link).to_contain_text("06.02")
    assert link.get_attribute("href").endswith("/course/" + LESSON_2)
    section = result.locator(".search-section a").first
    href = section.get_attribute("href")
    assert re.search(re.escape(LESSON_2) + "#[a-z0-9-]+$", href), href
    section.click()
    expect(page).to_have_url(re.compile(re.escape(LESSON_2) + "#"))
    anchor = page.url.split("#", 1)[1]
    expect(page.locator(f"[id='{anchor}']")).to_have_count(1)


def test_the_404_page_works_for_a_missing_address_at_any_depth(page, context, base_url):
    """Hosts serve 404.html at the missing address itself (GitHub Pages, Netlify): its
    stylesheet, scripts and home link must not depend on how deep that address is."""
    missing = base_url + "recovery/old-lesson/deeper/"
    response = page.goto(missing)
    page.wait_for_load_state("networkidle")
    assert response.status == 404
    # The page itself answers 404, as it should (and Chromium logs that); nothing else may.
    context.watcher.problems.remove(f"HTTP 404: {missing}")
    context.watcher.problems.remove(
        "console error: Failed to load resource: the server responded with a status of 404 "
        "(Not Found)"
    )
    expect(page.locator("h1")).to_have_text("Page not found")
    sheets = page.evaluate(
        "[...document.styleSheets].filter(s => s.href).map(s => [s.href, s.cssRules.length])"
    )
    assert [base_url + "static/style.css", True] in [[h, n > 0] for h, n in sheets], sheets
    page.get_by_role("link", name="Go to the course home page").click()
    expect(page).to_have_url(base_url + "index.html")


def test_setup_tabs_switch_and_the_choice_persists_across_pages(page, base_url):
    page.goto(base_url + LESSON_1)
    page.locator("details.setup-help > summary").click()
    posix = page.get_by_role("tab", name="macOS / Linux terminal")
    powershell = page.get_by_role("tab", name="Windows PowerShell")
    # The labels are the headings' words, without the "#" link every heading gets.
    expect(page.get_by_role("tab")).to_have_text(
        ["macOS / Linux terminal", "Windows PowerShell", "Jupyter"]
    )
    expect(posix).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel")).to_contain_text("source .venv/bin/activate")
    powershell.click()
    expect(powershell).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel")).to_contain_text(r".\.venv\Scripts\python.exe")
    expect(page.get_by_text("source .venv/bin/activate")).to_be_hidden()
    powershell.press("ArrowLeft")  # keyboard: arrows move between tabs
    expect(posix).to_be_focused()
    expect(posix).to_have_attribute("aria-selected", "true")
    page.keyboard.press("End")
    jupyter = page.get_by_role("tab", name="Jupyter")
    expect(jupyter).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel")).to_contain_text("jupyter lab lesson.ipynb")
    notebook = page.get_by_role("tabpanel").get_by_role("link", name=re.compile("notebook"))
    expect(notebook).to_have_attribute("href", "lesson.ipynb")
    jupyter.press("ArrowLeft")
    expect(powershell).to_have_attribute("aria-selected", "true")

    page.goto(base_url + LESSON_2)
    page.locator("details.setup-help > summary").click()
    expect(page.get_by_role("tab", name="Windows PowerShell")).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.get_by_role("tabpanel")).to_contain_text(r".\.venv\Scripts\python.exe")


def test_copy_button_copies_the_code_alone(context, page, base_url):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(base_url + LESSON_1)
    step = page.locator(".step").first
    step.locator(".copy-button").click()
    expect(step.locator(".copy-button")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == step.locator("pre code").inner_text().rstrip("\n")
    assert "Recorded output" not in copied and not copied.startswith((">>>", "$"))


def test_quiz_gives_feedback(page, base_url):
    page.goto(base_url + LESSON_1)
    check = page.locator("section.check")
    answer = check.locator("details.answer")
    wrong = check.locator("input[type=radio]:not([data-correct])").first
    right = check.locator("input[type=radio][data-correct]")
    check.get_by_role("button", name="Check my answer").click()
    expect(check.locator(".quiz-feedback")).to_have_text("Pick an answer first.")
    check.locator(f"label[for='{wrong.get_attribute('id')}']").click()
    check.get_by_role("button", name="Check my answer").click()
    expect(check.locator(".quiz-feedback")).to_contain_text("Not quite")
    assert not answer.evaluate("d => d.open")
    # The picked answer's own note says why it is not it; the others' notes stay hidden.
    why = wrong.locator("xpath=ancestor::li[1]").locator(".choice-feedback")
    expect(why).to_be_visible()
    expect(why).to_contain_text("only counts rows")
    expect(check.locator(".choices .choice-feedback:visible")).to_have_count(1)
    right.check()  # by keyboard-reachable radio, as a screen reader would
    page.keyboard.press("Enter")
    expect(check.locator(".quiz-feedback")).to_contain_text("Correct")
    expect(answer).to_have_attribute("open", "")
    expect(answer.locator(".correct-answer")).to_be_visible()


def test_an_experiment_asks_for_a_prediction_before_it_shows_the_output(page, base_url):
    page.goto(base_url + LESSON_1)
    experiment = page.locator("section.experiment").first
    output = experiment.locator(".gated .output").first
    expect(output).to_be_hidden()
    show = experiment.get_by_role("button", name="Show what it printed")
    show.focus()
    page.keyboard.press("Enter")  # with nothing written, it asks for a prediction first
    expect(experiment.locator(".gate-status")).to_contain_text("Write your prediction first")
    expect(output).to_be_hidden()
    box = experiment.locator(".portfolio textarea")
    expect(box).to_be_focused()
    page.keyboard.type("The same eleven IDs, in another order.")
    show.focus()
    page.keyboard.press("Enter")
    expect(output).to_be_visible()
    expect(experiment.locator(".takeaway")).to_be_visible()
    expect(experiment.locator(".gated")).to_be_focused()  # a screen reader lands on it
    expect(show).to_be_hidden()
    page.reload()
    expect(box).to_have_value("The same eleven IDs, in another order.")
    expect(output).to_be_visible()  # opened once, open after a reload
    # The other gates stay closed: opening one opens only that one.
    expect(page.locator("section.experiment").nth(1).locator(".gated .output").first).to_be_hidden()
    printed = experiment.locator(".gated .output-stdout pre").inner_text()
    page.goto(base_url + "my-learning/index.html")
    note = page.locator(".saved-note", has_text="The same eleven IDs")
    # Beside the prediction, what the lesson printed.
    expect(note.locator(".saved-note-observed pre")).to_have_text(printed.strip())


def test_a_figure_can_be_shown_without_predicting_and_stays_visible_without_javascript(
    page, base_url, browser
):
    page.goto(base_url + LESSON_1)
    figure = page.locator("section.figure-block").first
    drawing = figure.locator(".gated .figure-svg")
    expect(drawing).to_be_hidden()
    figure.get_by_role("button", name="Show without predicting").click()
    expect(drawing).to_be_visible()
    page.emulate_media(media="print")
    expect(page.locator("section.experiment .gated .output").first).to_be_visible()
    page.emulate_media(media="screen")
    context = browser.new_context(java_script_enabled=False)
    plain = context.new_page()
    plain.goto(base_url + LESSON_1)
    expect(plain.locator("section.figure-block .gated .figure-svg").first).to_be_visible()
    expect(plain.locator("section.experiment .gated .output").first).to_be_visible()
    expect(plain.locator(".gate-actions").first).to_be_hidden()
    context.close()


def test_a_prediction_can_be_picked_from_the_authors_choices(page, base_url):
    page.goto(base_url + "recovery/run-a-preemption-drill/index.html")
    figure = page.locator("section.figure-block").first
    choices = figure.locator(".prediction-choices")
    box = figure.locator(".portfolio textarea")
    choices.get_by_label("exactly on it", exact=True).check()
    expect(box).to_have_value("Picked: exactly on it")
    box.fill("Picked: exactly on it\nThe same steps on the same state.")
    choices.get_by_label("above it", exact=True).check()  # a new pick keeps the reasoning
    expect(box).to_have_value("Picked: above it\nThe same steps on the same state.")
    figure.get_by_role("button", name="Show the figure").click()
    expect(figure.locator(".gated .figure-svg")).to_be_visible()
    page.reload()
    expect(choices.get_by_label("above it", exact=True)).to_be_checked()
    expect(choices.get_by_label("exactly on it", exact=True)).not_to_be_checked()


def test_portfolio_saves_lists_exports_and_imports(page, base_url, tmp_path):
    page.goto(base_url + LESSON_2)
    exercise = page.locator("section.exercise").first
    exercise_title = exercise.locator("h3").inner_text().rstrip("#").strip()
    box = exercise.locator(".portfolio textarea")
    box.fill("Prediction: the third batch comes back.\nassert replay == batches[2]")
    expect(exercise.locator(".portfolio-status")).to_contain_text("Saved in this browser,")
    evidence = page.locator(".note-evidence .portfolio textarea")
    evidence.fill("PASS: recovery-02 and the restored IDs.")
    expect(page.locator(".note-evidence .portfolio-status")).to_contain_text("Saved")

    page.reload()
    expect(box).to_have_value(
        "Prediction: the third batch comes back.\nassert replay == batches[2]"
    )
    expect(evidence).to_have_value("PASS: recovery-02 and the restored IDs.")
    keys = page.evaluate("Object.keys(localStorage)")
    anchor = exercise.get_attribute("id")
    assert f"coursesite:jax-pathways:load-batch-and-checkpoint-order-with-grain:{anchor}" in keys

    page.get_by_role("link", name="My learning").first.click()
    notes = page.locator(".saved-note")
    expect(notes).to_have_count(2)
    lesson = page.locator(
        "section.saved-lesson[data-lesson='load-batch-and-checkpoint-order-with-grain']"
    )
    expect(lesson).to_contain_text("the third batch comes back")
    link = lesson.get_by_role("link", name=exercise_title)
    assert link.get_attribute("href").endswith(f"{LESSON_2}#{anchor}")

    with page.expect_download() as download_info:
        page.get_by_role("button", name="Export to a JSON file").click()
    exported = tmp_path / "export.json"
    download_info.value.save_as(exported)
    data = json.loads(exported.read_text())
    assert data["format"] == "coursesite-my-learning" and len(data["notes"]) == 2
    assert {note["anchor"] for note in data["notes"]} == {anchor, "keep-your-evidence"}

    lesson.get_by_role("button", name="Clear this lesson’s notes").click()
    expect(notes).to_have_count(0)
    expect(page.locator("#portfolio-empty")).to_be_visible()
    page.locator("#portfolio-import").set_input_files(exported)
    expect(page.locator("#portfolio-message")).to_contain_text("Imported 2 notes")
    expect(notes).to_have_count(2)

    link.click()
    expect(page.locator("section.exercise").first.locator("textarea")).to_have_value(
        re.compile("the third batch comes back")
    )
    # Clearing from the lesson page, with an undo.
    page.get_by_role("button", name="Clear this lesson’s notes").click()
    expect(page.locator(".portfolio-clear-status")).to_contain_text("Cleared 2 notes")
    expect(page.locator("section.exercise").first.locator("textarea")).to_have_value("")
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("section.exercise").first.locator("textarea")).to_have_value(
        re.compile("the third batch comes back")
    )


def test_theme_toggle_is_remembered(page, base_url):
    page.goto(base_url + "index.html")
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    toggle.click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light
    page.goto(base_url + LESSON_2)
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.get_by_role("button", name="Dark theme").click()
    page.goto(base_url + "index.html")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")


def test_dark_system_theme_is_followed(browser, base_url):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(base_url + "index.html")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 21, 26)"
    context.close()


def test_no_horizontal_overflow_at_375_px(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    for path in PAGES:
        page.goto(base_url + path)
        page.evaluate(OPEN_EVERY_DETAILS)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"{path} is {width} px wide at 375 px"
    context.close()


def test_setup_tabs_stay_one_row_of_tabs_at_375_px(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    page.goto(base_url + LESSON_1)
    page.locator("details.setup-help > summary").click()
    tops = page.get_by_role("tab").evaluate_all("tabs => tabs.map(t => t.offsetTop)")
    assert len(tops) == 3 and len(set(tops)) == 1, tops
    context.close()


def serious_violations(page) -> list[str]:
    page.evaluate(OPEN_EVERY_DETAILS)  # collapsed content is checked too
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:5])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_serious_violations(context, page, base_url, theme):
    page.goto(base_url + "index.html")
    if theme == "dark":
        page.get_by_role("button", name="Dark theme").click()
    for path in ("index.html", LESSON_2):
        page.goto(base_url + path)
        assert page.locator("html").get_attribute("data-theme") == (
            "dark" if theme == "dark" else None
        )
        assert serious_violations(page) == [], path


def test_without_javascript_content_and_details_work(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url + LESSON_2)
    expect(page.locator("h1")).to_be_visible()
    expect(page.locator("#build-run .step").first).to_be_visible()
    expect(page.locator(".recorded-run .output pre").first).to_contain_text("PASS: recovery-02")
    # Solutions, hints and the quiz answer are reachable through <details>.
    solution = page.locator("details.solution").first
    expect(solution.locator(".code-block")).to_be_hidden()
    solution.locator("summary").click()
    expect(solution.locator(".code-block")).to_be_visible()
    answer = page.locator("details.answer")
    answer.locator("summary").click()
    expect(answer.locator(".correct-answer")).to_be_visible()
    # Controls that need JavaScript are not offered; both shells' commands are shown.
    expect(page.locator(".portfolio").first).to_be_hidden()
    expect(page.locator(".theme-toggle")).to_be_hidden()
    page.locator("details.setup-help > summary").click()
    expect(page.get_by_text("source .venv/bin/activate")).to_be_visible()
    expect(page.get_by_text(r".\.venv\Scripts\python.exe main.py")).to_be_visible()
    context.close()


def test_print_expands_every_collapsed_block(page, base_url):
    page.goto(base_url + LESSON_2)
    solution = page.locator("details.solution .code-block").first
    expect(solution).to_be_hidden()
    page.emulate_media(media="print")
    expect(solution).to_be_visible()
    expect(page.locator("nav.sidebar")).to_be_hidden()
