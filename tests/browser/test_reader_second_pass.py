"""The reader's second pass (issue #13) in headless Chromium: quiz verdict colours, the theme
toggle's visible state, the lesson's "On this page" contents and the phase page's lessons."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from .conftest import LESSON_1, ROOT

CHOICE_LOOK = "li => { const s = getComputedStyle(li); return [s.borderColor, s.backgroundColor]; }"


def _choice_looks(page) -> dict[str, list[str]]:
    """The picked option's border and background: neutral checked, after a wrong check and
    after a right one."""
    check = page.locator("section.check").first
    button = check.get_by_role("button", name="Check my answer")
    wrong = check.locator("input[type=radio]:not([data-correct])").first
    right = check.locator("input[type=radio][data-correct]")
    looks = {}

    def answer(choice, verdict: str) -> None:
        choice.check()
        item = choice.locator("xpath=ancestor::li[1]")
        if verdict == "wrong":
            looks["checked"] = item.evaluate(CHOICE_LOOK)  # picked, not yet checked
        button.click()
        expect(item).to_have_class(re.compile(rf"\bis-{verdict}\b"))
        looks[verdict] = item.evaluate(CHOICE_LOOK)
        looks[f"{verdict}_text"] = [
            check.locator(".quiz-feedback").inner_text(),
            item.evaluate("li => getComputedStyle(li, '::after').content"),
        ]

    answer(wrong, "wrong")
    answer(right, "right")
    return looks


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_quiz_colours_the_picked_option_right_or_wrong(browser, base_url, scheme):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(base_url + LESSON_1)
    looks = _choice_looks(page)
    context.close()
    checked, wrong, right = looks["checked"], looks["wrong"], looks["right"]
    for verdict in (wrong, right):  # border and background both change
        assert verdict[0] != checked[0] and verdict[1] != checked[1], looks
    assert wrong[0] != right[0] and wrong[1] != right[1], looks
    # Said in words as well as in colour: in the status line and on the option itself.
    assert looks["wrong_text"][0].startswith("Not quite")
    assert "Not quite" in looks["wrong_text"][1]
    assert looks["right_text"][0].startswith("Correct")
    assert "Right" in looks["right_text"][1]


def test_quiz_verdict_colours_follow_the_chosen_theme(page, base_url):
    page.goto(base_url + LESSON_1)
    light = _choice_looks(page)
    page.get_by_role("button", name="Dark theme").click()
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = _choice_looks(page)
    for key in ("checked", "wrong", "right"):
        assert light[key] != dark[key], key


def test_theme_toggle_shows_its_state_and_works_from_the_keyboard(page, base_url):
    page.goto(base_url + "index.html")
    toggle = page.get_by_role("button", name="Dark theme", exact=True)
    expect(toggle).to_have_attribute("aria-pressed", "false")
    look = (
        "b => { const s = getComputedStyle(b); return [s.backgroundColor, s.borderColor, "
        "getComputedStyle(b, '::after').content]; }"
    )
    off = toggle.evaluate(look)
    assert "Off" in off[2]
    toggle.focus()
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.mouse.move(0, 0)
    on = toggle.evaluate(look)
    assert "On" in on[2]
    assert on[0] != off[0] and on[1] != off[1], (on, off)
    # The On/Off word is decoration: the button's name stays what it switches.
    expect(page.get_by_role("button", name="Dark theme", exact=True)).to_have_count(1)
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")


def stage_of(page, href: str) -> str:
    """'#stage-key' of the stage that holds the element `href` names (or is it)."""
    return page.evaluate(
        "id => { const e = document.getElementById(id); const s = e.closest('section.stage');"
        " return '#' + (s ? s.id : e.id); }",
        href[1:],
    )


def test_on_this_page_lists_every_stage_and_section_and_marks_the_current_one(page, base_url):
    page.goto(base_url + LESSON_1)
    side = page.locator("nav.page-contents-side")
    expect(side).to_be_visible()
    expect(page.locator("details.page-contents-compact")).to_be_hidden()
    hrefs = side.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    stages = page.locator("section.stage").evaluate_all("s => s.map(e => '#' + e.id)")
    sections = page.locator("section.stage > h3[id]").evaluate_all("h => h.map(e => '#' + e.id)")
    assert len(stages) == 5 and len(sections) >= 5
    # Every stage and, in page order, everything of it a reader jumps to: its sections, and
    # its blocks (steps, the whole program, experiments, figures, exercises, the check, the
    # notes) and the recorded execution; nothing else.
    readable = (
        "section.stage, section.stage > h3[id], section.stage > section[id], "
        "section.recorded-run > h3[id]:not([id$='-title'])"
    )
    assert hrefs == page.locator(readable).evaluate_all("e => e.map(x => '#' + x.id)")
    assert "#run-the-program" in hrefs and "#recorded-execution" in hrefs
    labels = side.locator("a").all_inner_texts()
    assert "Recorded execution" in labels and "Check your understanding" in labels
    assert any(label.startswith("Exercise: ") for label in labels)
    assert any(label.startswith("Experiment: ") for label in labels)
    for href in hrefs:
        expect(page.locator(f"[id='{href[1:]}']")).to_have_count(1)
    target = sections[3]
    page.evaluate(f"document.getElementById('{target[1:]}').scrollIntoView()")
    expect(side.locator("a[aria-current=location]")).to_have_attribute("href", target)
    expect(side.locator("a[aria-current]")).to_have_count(1)
    # A stage jumped to is what is read: its title, or what follows it, is marked.
    page.evaluate("document.getElementById('experiment').scrollIntoView()")
    page.wait_for_timeout(100)
    marked = side.locator("a[aria-current=location]").get_attribute("href")
    assert stage_of(page, marked) == "#experiment", marked
    # Wherever the page is, the stage strip and the list name the same stage.
    strip = page.locator(".stage-nav a[aria-current=step]")
    for fraction in (0.1, 0.25, 0.4, 0.55, 0.7, 0.85):
        page.evaluate(f"window.scrollTo(0, document.documentElement.scrollHeight * {fraction})")
        page.wait_for_timeout(100)
        stage = strip.get_attribute("href")
        current = side.locator("a[aria-current=location]").get_attribute("href")
        assert stage_of(page, current) == stage, (fraction, current, stage)
    # Where the strip already names a stage whose title is still well below it.
    page.evaluate(
        """() => {
          const strip = document.querySelector('.stage-nav').getBoundingClientRect().height;
          const title = document.getElementById('exercise-check-title');
          window.scrollTo(0, title.getBoundingClientRect().top + scrollY - strip - 120);
        }"""
    )
    expect(strip).to_have_attribute("href", "#exercise-check")
    current = side.locator("a[aria-current=location]").get_attribute("href")
    assert stage_of(page, current) == "#exercise-check", current
    side.get_by_role("link", name="Evidence", exact=True).click()
    expect(page).to_have_url(re.compile("#evidence$"))


def test_on_this_page_is_a_collapsed_list_on_phones_even_without_javascript(browser, base_url):
    for javascript in (True, False):
        context = browser.new_context(
            viewport={"width": 375, "height": 812}, java_script_enabled=javascript
        )
        page = context.new_page()
        page.goto(base_url + LESSON_1)
        expect(page.locator("nav.page-contents-side")).to_be_hidden()
        compact = page.locator("details.page-contents-compact")
        expect(compact).to_be_visible()
        link = compact.get_by_role("link", name="Experiment", exact=True)
        expect(link).to_be_hidden()
        compact.locator("summary").click()
        expect(link).to_be_visible()
        assert compact.locator("a").count() == page.locator("nav.page-contents-side a").count()
        link.click()
        expect(page).to_have_url(re.compile("#experiment$"))
        if javascript:
            page.wait_for_timeout(100)
            marked = compact.locator("a[aria-current=location]").get_attribute("href")
            assert stage_of(page, marked) == "#experiment", marked
        context.close()


def _manifest_lessons() -> list[dict]:
    """Every lesson of lessons.yaml with its number, URL and front matter, read directly."""
    manifest = yaml.safe_load((ROOT / "lessons.yaml").read_text(encoding="utf-8"))
    lessons = []
    for phase in manifest["phases"]:
        for index, entry in enumerate(phase["lessons"], start=1):
            text = (ROOT / entry["source"]).read_text(encoding="utf-8")
            front = yaml.safe_load(text.split("---", 2)[1])
            lessons.append(
                {
                    "phase": phase["slug"],
                    "number": f"{phase['id']}.{index:02d}",
                    "url": f"{phase['slug']}/{entry['slug']}/index.html",
                    **front,
                }
            )
    return lessons


def test_phase_page_lists_every_manifest_lesson(page, base_url):
    lessons = _manifest_lessons()
    assert len(lessons) >= 3
    for phase in sorted({lesson["phase"] for lesson in lessons}):
        page.goto(base_url + f"{phase}/index.html")
        cards = page.locator(".phase-lessons > li")
        members = [lesson for lesson in lessons if lesson["phase"] == phase]
        expect(cards).to_have_count(len(members))
        for card, lesson in zip(cards.all(), members, strict=True):
            link = card.locator(".phase-lesson-title a")
            expect(link).to_have_text(f"{lesson['number']} {lesson['title']}")
            assert link.get_attribute("href").endswith(lesson["url"].split("/", 1)[1])
            expect(card.locator(".lesson-facts")).to_contain_text(
                f"about {lesson['minutes']} minutes"
            )
            expect(card.locator(".lesson-facts")).to_contain_text(lesson["hardware"].upper())
            expect(card.locator(".phase-outcomes li")).to_have_count(len(lesson["outcomes"]))
        link.click()
        expect(page).to_have_url(re.compile(re.escape(members[-1]["url"]) + "$"))


def test_home_page_phase_link_looks_like_a_link(page, base_url):
    page.goto(base_url + "index.html")
    link = page.locator(".phase-summary h2 a").first
    style = link.evaluate(
        "a => { const s = getComputedStyle(a); return [s.textDecorationLine, s.color]; }"
    )
    body = page.evaluate("getComputedStyle(document.body).color")
    assert "underline" in style[0] and style[1] != body, style
    link.click()
    first = yaml.safe_load((ROOT / "lessons.yaml").read_text(encoding="utf-8"))["phases"][0]
    expect(page.locator("h1")).to_have_text(first["title"])
