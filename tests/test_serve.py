"""The live preview: the rebuild step it runs on every change, and a real HTTP round trip."""

import json
import threading
import urllib.request

import pytest

from conftest import RecordingProgress, authoring_example
from coursesite.serve import ServeState, make_server, rebuild

PAGE = "basics/count-batches/index.html"


@pytest.fixture
def served(course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options()
    state = ServeState()
    assert rebuild(options, state, RecordingProgress())
    server = make_server(options.out, state, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield course_folder, options, state, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def test_pages_are_served_with_the_reload_script(served):
    _, _, _, base = served
    page = fetch(f"{base}/{PAGE}")
    assert "Count what a batch holds" in page
    assert page.count('<script src="/__livereload.js"') == 1
    assert "fetch(\"/__status\"" in fetch(f"{base}/__livereload.js")


def test_an_edit_rebuilds_and_bumps_the_generation(served):
    folder, options, state, base = served
    assert json.loads(fetch(f"{base}/__status")) == {"generation": 1, "error": None}
    text = folder.lesson_path.read_text().replace("Eleven records do not divide",
                                                  "Eleven records will not divide")
    folder.lesson_path.write_text(text)
    assert rebuild(options, state, RecordingProgress())
    assert json.loads(fetch(f"{base}/__status"))["generation"] == 2
    assert "Eleven records will not divide" in fetch(f"{base}/{PAGE}")


def test_a_broken_edit_reports_the_error_and_keeps_the_last_good_page(served):
    folder, options, state, base = served
    folder.lesson_path.write_text(folder.lesson_path.read_text().replace("# Evidence", "# Evidenc"))
    assert not rebuild(options, state, RecordingProgress())
    status = json.loads(fetch(f"{base}/__status"))
    assert status["generation"] == 1
    assert "unknown stage 'Evidenc'" in status["error"] and "lesson.md:" in status["error"]
    assert "Count what a batch holds" in fetch(f"{base}/{PAGE}")
