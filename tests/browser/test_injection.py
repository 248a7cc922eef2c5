"""A lesson full of payloads (tests/hostile/), built and served by a plain static server
without `nosniff`, opened in Chromium: nothing the author wrote runs or becomes markup."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import CourseFolder, write_hostile_course

from .conftest import ROOT, Watcher, serving

PAGES = ["basics/count-batches/index.html", "basics/index.html", "index.html"]

# Run before any page script: counts what the Content-Security-Policy had to stop.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  event => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
"""

WHAT_RAN = """() => ({
  injected: window.__injected ?? null,
  violations: window.__violations,
  scripts: [...document.scripts].map(s => s.getAttribute('src')),
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
      .filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name)),
  javascriptLinks: [...document.querySelectorAll('[href], [src]')]
      .map(e => e.getAttribute('href') || e.getAttribute('src'))
      .filter(url => /^\\s*(javascript|data):/i.test(url)),
  // figures are inline SVG, allow-listed by svgclean; no other SVG may appear
  foreign: [...document.querySelectorAll('iframe, svg, object, embed')]
      .filter(e => !e.matches('.figure-svg > svg')).length,
})"""


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory):
    folder = CourseFolder(tmp_path_factory.mktemp("hostile"))
    write_hostile_course(folder)
    out = folder.root / "course"
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "--out", str(out), "-q"],
        cwd=folder.root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    with serving(out) as url:
        yield url


@pytest.mark.parametrize("path", PAGES)
def test_no_payload_runs_or_becomes_markup(browser, hostile_url, path):
    context = browser.new_context()
    watcher = Watcher(hostile_url)
    context.on("page", watcher.attach)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.goto(hostile_url + path)
    page.wait_for_load_state("networkidle")
    seen = page.evaluate(WHAT_RAN)
    text = page.locator("main").inner_text()
    context.close()
    assert seen["injected"] is None
    assert seen["violations"] == []  # nothing even tried to run
    assert all(
        src.startswith(("static/", "../static/", "../../static/")) for src in seen["scripts"]
    ), seen["scripts"]
    assert seen["handlers"] == [] and seen["javascriptLinks"] == [] and seen["foreign"] == 0
    assert watcher.problems == []
    if path != "index.html":
        assert "<script" in text  # the payload is on the page, as text
