"""The live preview's page script in Chromium: a build's warnings show over the page and
stay dismissed until they change."""

from __future__ import annotations

import threading

from playwright.sync_api import expect

from conftest import RecordingProgress, authoring_example
from coursesite.serve import ServeState, make_server, rebuild

LONG = "ids = np.arange(11)  # " + "the eleven record IDs, in their stored order " * 2


def test_warnings_show_over_the_page_and_stay_dismissed(browser, course_folder):
    course_folder.write(authoring_example().replace("ids = np.arange(11)\n", LONG + "\n", 1))
    options = course_folder.options()
    state = ServeState()
    assert rebuild(options, state, RecordingProgress())
    server = make_server(options.out, state, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{server.server_port}/basics/count-batches/index.html")
        panel = page.locator("#build-warnings")
        expect(panel).to_be_visible()
        expect(panel).to_contain_text("1 warning(s) from the last build")
        expect(panel).to_contain_text("lesson.md:")
        panel.get_by_role("button", name="Dismiss").click()
        expect(panel).to_have_count(0)
        page.reload()
        page.wait_for_timeout(300)
        expect(page.locator("#build-warnings")).to_have_count(0)
        page.close()
    finally:
        server.shutdown()
        server.server_close()
