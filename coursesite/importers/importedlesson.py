"""What `build.py import` makes of a notebook: the lesson file and everything beside it,
with the notes of the import's report; each part of the import adds to it."""

from __future__ import annotations

from dataclasses import dataclass, field

from coursesite.importers.devicecount import DeviceNeed


@dataclass
class ImportedLesson:
    text: str = ""  # the lesson file
    expected: str | None = None  # the expected-outputs file, when the notebook stored outputs
    images: dict[str, bytes] = field(default_factory=dict)  # path beside the lesson: bytes
    installs: list[str] = field(default_factory=list)  # from `!pip install` lines
    notes: list[str] = field(default_factory=list)  # what the author should look at
    linked_images: list[tuple[str, str]] = field(default_factory=list)  # (path, cell.where)
    refusals: list[tuple[str, str]] = field(default_factory=list)  # (message, hint) by cell
    timed: bool = False  # a cell prints timings: the lesson marks them volatile
    code: list[str] = field(default_factory=list)  # every step's code, in order
    printed: dict[str, int] = field(default_factory=dict)  # cell.where: longest stored output
    steps: list[tuple[int, str, str]] = field(default_factory=list)  # (number, cell.where, code)
    figure_labels: set[str] = field(default_factory=set)  # the figures' names given a target
    python2: bool = False  # written for Python 2: every cell goes through 2to3's fixers
    devices: DeviceNeed = field(default_factory=DeviceNeed)  # made by the first step, on CPUs
