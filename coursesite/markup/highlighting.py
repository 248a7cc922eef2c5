"""Pygments in a helper process (highlightd.py) that a build starts when it begins.

Loading Pygments' Python lexer costs about 70 ms of CPU, which a code edit needed for the
edited step while its lesson's two processes held both cores. The helper loads it while
the build still imports and parses on one core, and the build asks it for the highlighted
HTML of code missing from the highlight cache. Its output is Pygments' own, from the same
interpreter: the same as highlighting in the build's process, which is what any failure
of the helper falls back to.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from pathlib import Path

HELPER = Path(__file__).with_name("highlightd.py")


class Highlighter:
    """A running highlightd.py; `highlight` gives None once it cannot answer."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen | None = subprocess.Popen(
            [sys.executable, "-I", str(HELPER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            encoding="utf-8",
            start_new_session=True,  # the terminal's Ctrl-C is for the build, which ends it
        )

    def highlight(self, code: str, language: str) -> str | None:
        with self.lock:
            process = self.process
            if process is None or process.stdin is None or process.stdout is None:
                return None
            try:
                process.stdin.write(json.dumps([code, language]) + "\n")
                process.stdin.flush()
                html = json.loads(process.stdout.readline())
            except (OSError, ValueError):  # it died (or never started Pygments): do it here
                self._close()
                return None
            return html if isinstance(html, str) else None

    def end(self) -> None:
        """End it (subprocess reaps it later)."""
        with self.lock:
            self._close()

    def _close(self) -> None:
        """Close its pipes and kill it: it holds nothing to keep, and one that stopped
        answering must not stay."""
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            if self.process.poll() is None:
                with contextlib.suppress(OSError):
                    self.process.kill()
            self.process = None


_RUNNING: list[Highlighter] = []  # the build's, while it runs


def start_highlighter() -> None:
    """Start the build's helper (once per build; see build())."""
    with contextlib.suppress(OSError):  # else highlighting happens in the build's process
        _RUNNING.append(Highlighter())


def end_highlighter() -> None:
    while _RUNNING:
        _RUNNING.pop().end()


def running() -> Highlighter | None:
    return _RUNNING[-1] if _RUNNING else None
