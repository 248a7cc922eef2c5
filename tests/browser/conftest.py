"""Browser tests: the real course, built once, served on 127.0.0.1, driven in Chromium.

The site is served from a sub-folder (`/course/`), as on a host that does not put it at
the root, so every link, script and search URL must be relative. Chromium is Debian's
(`/usr/bin/chromium`, or $CHROMIUM); Playwright never downloads a browser.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SUBPATH = "course"

LESSON_1 = "recovery/design-an-input-pipeline/index.html"
LESSON_2 = "recovery/load-batch-and-checkpoint-order-with-grain/index.html"


def _chromium_missing() -> str | None:
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return None
    return f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)"


def pytest_collection_modifyitems(config, items):
    """Without a browser, skip these tests on a workstation; in CI a missing browser fails."""
    problem = _chromium_missing()
    if problem is None or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason=problem)
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """A skipped browser hides among the dots of `make test`: say so where it shows."""
    problem = _chromium_missing()
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if problem and problem in str(report.longrepr)
    ]
    if skipped:
        terminalreporter.write_sep(
            "!", f"{len(skipped)} browser tests did not run", red=True, bold=True
        )
        terminalreporter.write_line(f"{problem}, then run the tests again", red=True)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:
        pass


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real course built with the real command line into <tmp>/course/, for a host
    that publishes it under /course/ (which the 404 page's links start from)."""
    holder = tmp_path_factory.mktemp("served")
    out = holder / SUBPATH
    site_address = f"http://127.0.0.1/{SUBPATH}/"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "--out",
            str(out),
            "--base-url",
            site_address,
            "-q",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "pagefind" / "pagefind.js").is_file(), "the search index was not built"
    return out


class NotFoundPageHandler(QuietHandler):
    """Answers a missing address with the site's 404.html, as GitHub Pages and Netlify do."""

    site: Path

    def send_error(self, code: int, message: str | None = None, explain: str | None = None):
        page = self.site / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def serving(folder: Path):
    """http://127.0.0.1:<port>/<folder name>/ serving `folder`, as a plain static host
    would (no X-Content-Type-Options header), with its 404.html for missing addresses."""
    handler_class = type("Handler", (NotFoundPageHandler,), {"site": folder})
    handler = functools.partial(handler_class, directory=str(folder.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/{folder.name}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(built_site: Path) -> str:
    """http://127.0.0.1:<port>/course/ serving the built site."""
    with serving(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    problem = _chromium_missing()
    if problem:
        pytest.fail(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


class Watcher:
    """Everything a page did that a reader should never see: errors and stray requests."""

    def __init__(self, base_url: str):
        self.origin = "{0.scheme}://{0.netloc}".format(urlsplit(base_url))
        self.problems: list[str] = []

    def attach(self, page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("requestfailed", self._failed)
        page.on(
            "response",
            lambda response: (
                response.status >= 400
                and self.problems.append(f"HTTP {response.status}: {response.url}")
            ),
        )
        page.on("request", self._request)

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _failed(self, request) -> None:
        # A load cancelled because the test moved on to the next page is not a failure.
        if request.failure != "net::ERR_ABORTED" or not request.url.startswith(self.origin + "/"):
            self.problems.append(f"failed request: {request.url} ({request.failure})")

    def _request(self, request) -> None:
        url = request.url
        if url.startswith(("data:", "blob:")):
            return
        if not url.startswith(self.origin + "/"):
            self.problems.append(f"off-site request: {url}")


@pytest.fixture
def context(browser, base_url):
    """A fresh browser profile (empty localStorage) whose pages are all watched."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    watcher = Watcher(base_url)
    context.on("page", watcher.attach)
    # Anything that would leave the machine is stopped here, and reported by the watcher.
    context.route(lambda url: not url.startswith(watcher.origin + "/"), lambda route: route.abort())
    context.watcher = watcher
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    yield page
    assert context.watcher.problems == [], "\n".join(context.watcher.problems)
