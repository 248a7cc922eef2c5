"""What the author sees while the build runs.

On a terminal, a live table: each lesson pending, running (with elapsed time), cached, done
or failed, and a summary at the end. Elsewhere (CI, a pipe) one plain line per event.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from threading import Lock
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # rich costs ~35 ms to import; only the live display needs it
    from rich.table import Table

STYLES = {
    "pending": "dim",
    "running": "cyan",
    "cached": "green",
    "executed": "green",
    "frozen": "blue",
    "failed": "bold red",
}


@dataclass
class LessonStatus:
    number: str
    slug: str
    state: str = "pending"
    detail: str = ""
    started: float = 0.0
    seconds: float = 0.0


@dataclass
class Progress:
    """Collects lesson states; subclasses decide how to show them."""

    lessons: dict[str, LessonStatus] = field(default_factory=dict)
    lock: Lock = field(default_factory=Lock)

    def message(self, text: str) -> None:
        """A line about the build as a whole."""

    def add(self, number: str, slug: str) -> None:
        self.lessons[slug] = LessonStatus(number, slug)

    def finished(self, slug: str) -> None:
        """The lesson ran: its time stops now, though the build reports it (with `update`)
        only once every lesson has ended; a live display shows it as executed already."""
        with self.lock:
            status = self.lessons[slug]
            if status.started:
                status.seconds, status.started = time.perf_counter() - status.started, 0.0
            status.state = "executed"

    def update(self, slug: str, state: str, detail: str = "") -> None:
        with self.lock:
            status = self.lessons[slug]
            if state == "running":
                status.started = time.perf_counter()
            elif status.started:
                status.seconds = time.perf_counter() - status.started
            status.state, status.detail = state, detail or status.detail
        self.changed(status)

    def changed(self, status: LessonStatus) -> None:
        """Called after every state change."""

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Ends the display."""


class QuietProgress(Progress):
    """Shows nothing: `--quiet`."""


@dataclass
class PlainProgress(Progress):
    """One line per finished lesson and per build message."""

    stream: TextIO = sys.stdout

    def message(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def changed(self, status: LessonStatus) -> None:
        if status.state in ("pending", "running"):
            return
        timing = f" ({status.seconds:.1f} s)" if status.state != "cached" else ""
        detail = f": {status.detail}" if status.detail else ""
        self.message(f"  {status.state:<8} {status.number} {status.slug}{timing}{detail}")


@dataclass
class LiveProgress(Progress):
    """A live table on a terminal, refreshed a few times a second, and a final summary."""

    console: Any = None
    live: Any = None

    def __post_init__(self) -> None:
        from rich.console import Console

        self.console = self.console or Console()

    def message(self, text: str) -> None:
        self.console.print(text, highlight=False)

    def table(self) -> Table:
        from rich.table import Table

        table = Table(box=None, pad_edge=False)
        for column in ("lesson", "state", "time", "why"):
            table.add_column(column)
        now = time.perf_counter()
        for status in self.lessons.values():
            seconds = now - status.started if status.state == "running" else status.seconds
            timing = f"{seconds:.1f} s" if status.state in ("running", "executed", "failed") else ""
            table.add_row(
                f"{status.number} {status.slug}",
                f"[{STYLES[status.state]}]{status.state}[/]",
                timing,
                status.detail,
            )
        return table

    def __enter__(self) -> LiveProgress:
        from rich.live import Live

        self.live = Live(
            get_renderable=self.table, console=self.console, refresh_per_second=4, transient=True
        )
        self.live.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.live is not None:
            self.live.__exit__(*exc_info)
            self.live = None
        if self.lessons:
            self.console.print(self.table())


def create_progress(quiet: bool) -> Progress:
    """Live on an interactive terminal, plain lines in CI or a pipe, nothing when quiet."""
    if quiet:
        return QuietProgress()
    if sys.stdout.isatty() and not os.environ.get("CI"):
        return LiveProgress()
    return PlainProgress()
