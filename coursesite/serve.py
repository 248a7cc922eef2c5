"""`build.py serve`: build, serve on 127.0.0.1, rebuild on change, reload open pages.

The server injects one script into HTML responses (never into site/ itself); the script
polls /__status and reloads the page after each successful rebuild, or shows the build
error over the page while the last good site stays served.
"""

from __future__ import annotations

import dataclasses
import json
import mimetypes
import sys
import threading
import traceback
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from coursesite.config.options import BuildOptions
from coursesite.errors import BuildErrors, report_warnings
from coursesite.files import write_atomically
from coursesite.pipeline import build
from coursesite.progress import PlainProgress, Progress
from coursesite.publish.lock import build_lock, output_lock
from coursesite.publish.searchindex import refresh_search
from coursesite.warm.warmpreview import WarmPreviews, read_or_none

PREVIEW = Path(__file__).with_name("preview")  # what previews add; never part of site/
RELOAD_SCRIPT = PREVIEW / "livereload.js"
SCRIPT_TAG = (PREVIEW / "livereload.html").read_bytes().strip()  # the markup injected


@dataclass
class ServeState:
    """What the open pages poll: a counter of good builds, the current error, if any, and
    the last good build's warnings (the same the command line prints)."""

    generation: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    previews: dict[str, bytes] = field(default_factory=dict)
    """Files of the warm preview (coursesite/warm) by site path, served instead of the
    site's until the clean build replaces them; never written to the site."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def show_preview(self, files: dict[str, bytes], generation: int) -> None:
        """Serve `files` instead of the site's, unless a build finished since
        `generation`: its pages are the clean record of the edit."""
        with self.lock:
            if self.generation == generation:
                self.previews = files
                self.generation += 1

    def preview_of(self, route: str) -> bytes | None:
        path = route.lstrip("/")
        if path == "" or path.endswith("/"):
            path += "index.html"
        with self.lock:
            return self.previews.get(path)

    def as_json(self) -> bytes:
        with self.lock:
            status = {"generation": self.generation, "error": self.error}
            return json.dumps({**status, "warnings": self.warnings}).encode()


def rebuild(options: BuildOptions, state: ServeState, progress: Progress | None = None) -> bool:
    """One build; records success (pages reload) or the error (pages show it).

    With `options.defer_search_index`, open pages reload as soon as the pages are written,
    and the search index (Pagefind re-reads every page: 0.6 s at 200 lessons) follows.
    """
    try:
        result = build(options, progress or PlainProgress())
        report_warnings(result.warnings)  # as `build.py` prints them: one reporting path
        with state.lock:
            state.generation += 1
            state.error = None
            state.warnings = [str(warning) for warning in result.warnings]
            state.previews = {}  # the clean run's pages replace them
        with build_lock(options.cache), output_lock(options.out):
            refresh_search(options)
    except BuildErrors as problems:
        problems.report()
        with state.lock:
            state.error = str(problems)
            _drop_preview(state)
        return False
    except Exception as problem:  # a bug of ours: the preview must outlive it
        report = options.cache / "internal-error.txt"
        write_atomically(report, traceback.format_exc())
        message = (
            f"internal error: {type(problem).__name__}: {problem}\n  hint: this is a "
            f"bug in the generator; the details are in {report}. Edit and save to "
            "build again."
        )
        print(f"error: {message}", file=sys.stderr)
        with state.lock:
            state.error = message
            _drop_preview(state)
        return False
    return True


def _drop_preview(state: ServeState) -> None:
    """After a failed build, open pages go back to the last good build (which the error
    shows over): a preview of code that does not build is no page to keep."""
    if state.previews:
        state.previews = {}
        state.generation += 1


class PreviewHandler(SimpleHTTPRequestHandler):
    state: ServeState

    def do_GET(self) -> None:
        route = self.path.split("?", 1)[0]
        if route == "/__status":
            return self._send(self.state.as_json(), "application/json")
        if route == "/__livereload.js":
            return self._send(RELOAD_SCRIPT.read_bytes(), "text/javascript")
        path = Path(self.translate_path(route))
        if path.is_dir():
            path = path / "index.html"
        preview = self.state.preview_of(route)
        if preview is not None and path.suffix != ".html":
            return self._send(preview, mimetypes.guess_type(path.name)[0] or "text/plain")
        if path.suffix == ".html" and (preview is not None or path.is_file()):
            page = path.read_bytes() if preview is None else preview
            return self._send(page.replace(b"</body>", SCRIPT_TAG + b"</body>", 1), "text/html")
        return super().do_GET()

    def end_headers(self) -> None:
        # Without it a browser may sniff a download (main.py, a .txt) as a script and run
        # it from a <script> tag; docs/publishing.md asks hosts to send it too.
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not worth a terminal line each while authoring."""


def make_server(out: Path, state: ServeState, port: int) -> ThreadingHTTPServer:
    handler = type("Handler", (PreviewHandler,), {"state": state})
    return ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(out)))


def watched_paths(options: BuildOptions) -> list[Path]:
    root = options.manifest.resolve().parent
    paths = [
        options.manifest.resolve(),
        *options.template_folders,
        *options.static_folders,
        root / "content",
    ]
    return [path for path in paths if path.exists()]


def show_warm_preview(
    warm: WarmPreviews, paths: set[Path], state: ServeState, generation: int
) -> None:
    try:
        if preview := warm.preview(paths):
            state.show_preview(preview, generation)
    except Exception as problem:  # a bug of ours: the full run still shows the edit
        print(f"preview: none, after an internal error: {type(problem).__name__}: {problem}")


def keep_warm(warm: WarmPreviews, paths: set[Path], saved: bytes | None) -> None:
    try:
        warm.after_build(paths, saved)
    except Exception as problem:  # a bug of ours: serving goes on without a warm lesson
        print(
            f"preview: not kept warm, after an internal error: {type(problem).__name__}: {problem}"
        )


def serve(options: BuildOptions, port: int) -> int:
    import watchfiles  # only serving needs the watcher

    options = dataclasses.replace(options, defer_search_index=True)
    state = ServeState()
    warm = WarmPreviews(options)
    rebuild(options, state)
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        server = make_server(options.out, state, port)
    except OSError as problem:
        print(
            f"error: cannot listen on 127.0.0.1:{port} ({problem.strerror}); try --port {port + 1}"
        )
        return 1
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {options.out} at http://127.0.0.1:{server.server_port}/  (Ctrl-C stops)")
    try:
        for changes in watchfiles.watch(*watched_paths(options)):
            paths = {Path(name) for _, name in changes}
            print(f"changed: {', '.join(sorted(path.name for path in paths))}; rebuilding")
            # The clean full run starts at once; a warm preview shows while it runs.
            saved = read_or_none(next(iter(paths))) if len(paths) == 1 else None
            previewing = threading.Thread(
                target=show_warm_preview, args=(warm, paths, state, state.generation)
            )
            previewing.start()
            rebuild(options, state)
            previewing.join()
            keep_warm(warm, paths, saved)
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.shutdown()
        warm.close()
    return 0
