"""The live preview: the rebuild step it runs on every change, and a real HTTP round trip."""

import dataclasses
import json
import threading
import urllib.request

import pytest

from conftest import RecordingProgress, authoring_example, line_of
from coursesite import serve
from coursesite.pipeline import build
from coursesite.publish import searchindex
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


def test_every_response_forbids_content_sniffing(served):
    _, _, _, base = served
    for path in (PAGE, "basics/count-batches/main.py", "static/site.js", "__status"):
        with urllib.request.urlopen(f"{base}/{path}", timeout=10) as response:
            assert response.headers["X-Content-Type-Options"] == "nosniff", path


def test_pages_are_served_with_the_reload_script(served):
    _, _, _, base = served
    page = fetch(f"{base}/{PAGE}")
    assert "Count what a batch holds" in page
    assert page.count('<script src="/__livereload.js"') == 1
    assert 'fetch("/__status"' in fetch(f"{base}/__livereload.js")


def test_an_edit_rebuilds_and_bumps_the_generation(served):
    folder, options, state, base = served
    assert json.loads(fetch(f"{base}/__status")) == {
        "generation": 1,
        "error": None,
        "warnings": [],
    }
    text = folder.lesson_path.read_text().replace(
        "Eleven records do not divide", "Eleven records will not divide"
    )
    folder.lesson_path.write_text(text)
    assert rebuild(options, state, RecordingProgress())
    assert json.loads(fetch(f"{base}/__status"))["generation"] == 2
    assert "Eleven records will not divide" in fetch(f"{base}/{PAGE}")


def test_a_broken_edit_reports_the_error_and_keeps_the_last_good_page(served):
    folder, options, state, base = served
    broken = folder.lesson_path.read_text().replace("# Evidence", "# Evidenc")
    folder.lesson_path.write_text(broken)
    assert not rebuild(options, state, RecordingProgress())
    status = json.loads(fetch(f"{base}/__status"))
    assert status["generation"] == 1
    assert f"lesson.md:{line_of(broken, '# Evidenc')}: unknown stage 'Evidenc'" in status["error"]
    assert "Count what a batch holds" in fetch(f"{base}/{PAGE}")


def test_a_build_warning_reaches_the_terminal_and_the_open_pages(served, capsys):
    """serve reports what build.py reports: a warning is printed and shown over the page."""
    folder, options, state, base = served
    long_line = "ids = np.arange(11)  # " + "the eleven record IDs, in their stored order " * 2
    text = folder.lesson_path.read_text().replace("ids = np.arange(11)\n", long_line + "\n", 1)
    folder.lesson_path.write_text(text)
    assert rebuild(options, state, RecordingProgress())
    [warning] = json.loads(fetch(f"{base}/__status"))["warnings"]
    assert f"lesson.md:{line_of(text, long_line)}: " in warning
    assert f"warning: {warning}" in capsys.readouterr().err
    assert "showWarnings(status.warnings" in fetch(f"{base}/__livereload.js")


def search_fragments(site) -> set[str]:
    """The names of the index's page fragments: each is named by the hash of its content."""
    return {path.name for path in (site / "pagefind" / "fragment").iterdir()}


def test_pages_reload_before_the_search_index_is_rebuilt(served, monkeypatch):
    folder, options, state, base = served
    options = dataclasses.replace(options, defer_search_index=True)
    before = search_fragments(options.out)
    seen_when_reloaded = []
    monkeypatch.setattr(
        serve,
        "refresh_search",
        lambda opts: (
            seen_when_reloaded.append(
                (state.generation, search_fragments(opts.out), fetch(f"{base}/{PAGE}"))
            )
            or searchindex.refresh_search(opts)
        ),
    )
    folder.lesson_path.write_text(
        folder.lesson_path.read_text().replace(
            "Eleven records do not divide", "Eleven records will not divide"
        )
    )
    assert rebuild(options, state, RecordingProgress())
    [(generation, fragments, page)] = seen_when_reloaded
    assert generation == 2 and "Eleven records will not divide" in page
    assert fragments == before  # the page was served while the previous index stood
    after = search_fragments(options.out)
    assert after != before and len(after) == len(before)


def test_a_build_after_an_unrefreshed_preview_indexes_the_site(course_folder):
    course_folder.write(authoring_example())
    build(course_folder.options(), RecordingProgress())
    before = search_fragments(course_folder.root / "site")
    course_folder.lesson_path.write_text(
        course_folder.lesson_path.read_text().replace(
            "Eleven records do not divide", "Eleven records will not divide"
        )
    )
    build(course_folder.options(defer_search_index=True), RecordingProgress())
    assert search_fragments(course_folder.root / "site") == before  # as if stopped here
    result = build(course_folder.options(), RecordingProgress())  # no input changed since
    assert result.written and search_fragments(course_folder.root / "site") != before


def test_a_bug_in_the_generator_shows_in_the_overlay_and_the_preview_lives_on(served, monkeypatch):
    _, options, state, base = served

    def broken_build(*args, **kwargs):
        raise RuntimeError("something the generator did not expect")

    monkeypatch.setattr(serve, "build", broken_build)
    assert not rebuild(options, state, RecordingProgress())
    status = json.loads(fetch(f"{base}/__status"))
    assert status["generation"] == 1
    assert status["error"].startswith("internal error: RuntimeError: something the generator")
    assert "Traceback" in (options.cache / "internal-error.txt").read_text()
    assert "Count what a batch holds" in fetch(f"{base}/{PAGE}")  # the last good site
    monkeypatch.undo()
    assert rebuild(options, state, RecordingProgress())  # and it recovers
