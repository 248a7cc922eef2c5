"""What a run of a lesson leaves: its record, block by block, and how it is stored.

An ExecutionRecord is what the execute stage produces, the cache and records/ keep (as
JSON and YAML), and the render stage shows. Older records load with the defaults of the
fields added since.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from coursesite.execution.fdcapture import terminal_text
from coursesite.files import short_digest


@dataclass(frozen=True)
class RaisedException:
    type: str
    message: str


@dataclass(frozen=True)
class BlockOutput:
    id: str
    stdout: str
    stderr: str
    seconds: float
    raised: RaisedException | None = None
    figure: dict | None = None
    # The repr of a bare last expression, as a notebook displays it (runner.split_display);
    # never printed, so never part of main.py's output. Older records load without it.
    display: str = ""
    # The rest of that value's MIME bundle, as a notebook stores it ({"text/html": ...};
    # images as base64): what runner.rich_representations found. outputs/displays.py
    # chooses what a page shows of it.
    display_bundle: dict[str, str] = field(default_factory=dict)
    # The SVG of each matplotlib figure the block left open (runner.capture_figures), as
    # the lesson's process wrote it: clean it (svgclean) before showing it.
    captured_svgs: list[str] = field(default_factory=list)
    # What display() showed on a line before the last (runner's lessondisplays.py), in
    # order: {"at": where its text (the value's repr and a newline) starts in `stdout`,
    # "length": that text's length, "bundle": the value's MIME bundle as `display_bundle`
    # holds one}. The page shows the value there instead of that text (displays.py).
    displays: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class ExecutionRecord:
    """What one run of a lesson printed and drew, and the environment it ran in."""

    lesson: str
    timestamp: str
    python: str
    packages: dict[str, str | None]
    devices: str
    wall_seconds: float
    blocks: dict[str, BlockOutput]
    values: dict[str, str] = field(default_factory=dict)  # live value expression -> text
    # Where it ran; records made before these fields existed load with the defaults, and
    # with the hardware their `devices` name (record_from_json).
    host: str = ""  # the machine's name
    worker: str = ""  # the Dask worker's address; "" when the local pool ran it
    worker_resources: str = ""  # what that worker offered ("tpu=1"): where it was sent to
    hardware: str = ""  # its probed devices' kind (cpu, gpu, tpu): probes.py; cpu unprobed
    receipts: list[dict] = field(default_factory=list)  # other kinds' runs (records.receipt)
    # Distributions an installed library imported while main.py ran, that no line of the
    # lesson imports: the install line lists them too (runtimeimports.py).
    run_time_installs: list[str] = field(default_factory=list)
    # The images the code wrote that the prose shows (front matter `writes:`), by their
    # name in the run's folder, as base64: writtenimages.py.
    written: dict[str, str] = field(default_factory=dict)

    def output_of(self, block_ids: list[str]) -> str:
        return "".join(self.blocks[i].stdout for i in block_ids if i in self.blocks)


def record_to_json(record: ExecutionRecord) -> dict:
    data = asdict(record)
    # Records of lessons that draw nothing stay as they were before figures were captured.
    for block in data["blocks"].values():
        for optional in ("captured_svgs", "display_bundle", "displays"):
            if not block[optional]:
                del block[optional]
    for optional in ("run_time_installs", "written"):  # records of most lessons stay as they were
        if not data[optional]:
            del data[optional]
    return data


def record_digest(record: ExecutionRecord) -> str:
    """A digest that changes whenever anything in the record does (pages are keyed on it)."""
    return short_digest(json.dumps(record_to_json(record), sort_keys=True, default=str))


def record_from_json(data: dict) -> ExecutionRecord:
    blocks = {}
    for block_id, block in data["blocks"].items():
        raised = RaisedException(**block["raised"]) if block["raised"] else None
        # Records made when figures were saved at their own size listed the text they cut.
        kept = {key: value for key, value in block.items() if key != "clipped"}
        blocks[block_id] = BlockOutput(**dict(kept, raised=raised))
    if "worker_resources" not in data:
        data = _with_hardware_seen(data)
    return ExecutionRecord(**dict(data, blocks=blocks))


def _with_hardware_seen(data: dict) -> dict:
    """An older record, with each run's hardware taken from the devices it lists.

    Records made before `worker_resources` existed may name a cluster worker's resource as
    their `hardware` (or name none); the devices are what the lesson's probe actually saw.
    """
    receipts = [
        dict(receipt, hardware=hardware_kind(platforms_in(receipt["devices"])))
        for receipt in data.get("receipts", [])
    ]
    return dict(data, hardware=hardware_kind(platforms_in(data["devices"])), receipts=receipts)


# What differs between two runs of the same code by rule, whatever a lesson declares: an
# object's address (`<function f at 0x7f3a…>`, or in decimal as `id(x)` gives it), a
# temporary path (`/tmp/tmpab12cd/x`), a process id named as one (`pid 4121`), a
# measured time (`took 0.0064 seconds`) and matplotlib's backend in its rcParams. Every
# comparison of outputs (drift, expected outputs, main.py) masks them in place.
_UNITS = r"(?:s|ms|µs|us|ns)"
_VOLATILE_BY_RULE = re.compile(
    r"\b0x[0-9a-fA-F]{6,}\b|/tmp/[^\s'\"]+|(?i:\b(?:pid|process id)\b\W{0,3})\d+"
    r"|(?<![\d.])(?P<decimal>\d{14,15})(?![\d.])"
    # A measured time: a number with a fraction and a unit of time (`in 0.0064 seconds`,
    # `took 1.52s`, `3.1 ms per step`); a count of whole seconds is left alone.
    r"|(?<![\w.])\d+\.\d+(?:e-?\d+)?\s?(?:s|secs?|seconds?|ms|msecs?|milliseconds?"
    r"|µs|us|microseconds?|ns|nanoseconds?|mins?|minutes?)(?:/it)?(?![\w/]|\.\w)"
    # or on a clock with a fraction of a second, as a timedelta prints (`0:00:01.610000`,
    # QuantEcon's `TOC: Elapsed: 0:00:1.61`); a time of day without one is left alone.
    r"|(?<![\w.:])\d+:\d{2}:\d{1,2}\.\d+(?![\w.:])"
    # or a time per step, whole or not (Keras's `4ms/step`), and the whole seconds Keras
    # writes before one (`13/13 - 0s - 4ms/step`); or whole milli-, micro-, nanoseconds
    # written onto their number (`took 12ms`).
    rf"|(?<![\w.])\d+(?:\.\d+)?\s?{_UNITS}/(?:step|sample|batch|it)\b"
    rf"|(?<![\w.])\d+s(?= - \d+(?:\.\d+)?{_UNITS}/)"
    r"|(?<![\w.])\d+(?:ms|µs|us|ns)(?![\w/])"
    # A progress bar's elapsed and remaining time (tqdm's and fastprogress's `00:01<00:02`,
    # `00:00<?`) and its rate (`3.21it/s`, `1.52s/it`, `?it/s`).
    r"|(?<![\w:])\d+(?::\d{2}){1,2}<(?:\d+(?::\d{2}){1,2}|\?)(?![\w:])"
    r"|(?<![\w.])(?:\d+(?:\.\d+)?|\?)\s?(?:it/s|s/it)\b"
    # matplotlib's backend in a dump of its rcParams: the machine's (or the build's, which
    # hands figures to the page), as the reader's will be their own.
    r"|(?<='backend': ')[^'\n]+(?=')"
)
# Where x86-64 and arm64 Linux put a process's heap and mappings: a decimal number in this
# range is an id() far more often than a result.
_ADDRESSES = range(2**44, 2**47)


def literal_pattern(text: str) -> str:
    """A `volatile:` pattern that matches `text` as it is, spaces left as spaces: an author
    reads it in the front matter."""
    return re.escape(text).replace("\\ ", " ")


def mask_volatile(text: str, volatile: list[str]) -> list[str]:
    """Output lines, with lines matching any `volatile` pattern replaced by a marker and
    what varies by rule (addresses, temporary paths, process ids) masked where it stands."""
    patterns = [re.compile(pattern) for pattern in volatile]
    return [
        "<volatile>"
        if any(p.search(line) for p in patterns)
        else "<progress bar>"
        if _PROGRESS_BAR.search(line)
        else _VOLATILE_BY_RULE.sub(_mask, line)
        for line in terminal_text(text).splitlines()
    ]


# A progress bar's line (tqdm's ` 40%|####  | 2/5 [...`, fastprogress's ` |███---| 40.00%
# [2/5 ...`), compared as a whole: what it counts and when are the run's, and a bar left
# open at a step's end shares its line with what comes next in main.py's one stream, where a
# notebook shows each cell's output apart.
_PROGRESS_BAR = re.compile(
    r"\d+(?:\.\d+)?%\s*\|[^|\n]*\|\s*\d+/\d+|\|[^|\n]*\|\s*\d+(?:\.\d+)?%\s*\[\d+/\d+"
)


def _mask(match: re.Match) -> str:
    decimal = match.group("decimal")
    return match.group(0) if decimal and int(decimal) not in _ADDRESSES else "…"


_ACCELERATORS = {"tpu": "tpu", "gpu": "gpu", "cuda": "gpu", "rocm": "gpu"}


def hardware_kind(platforms: list[str]) -> str:
    """'tpu' when the lesson's device probe saw TPU devices, 'gpu' for GPU (CUDA, ROCm)
    ones; 'cpu' when it saw neither or no probe ran (`platforms` is then empty)."""
    kinds = {_ACCELERATORS[name] for name in platforms if name in _ACCELERATORS}
    return next((kind for kind in ("tpu", "gpu") if kind in kinds), "cpu")


def platforms_in(devices: str) -> list[str]:
    """['tpu'] for '4 TPU devices': the platforms a record's device summary names."""
    return [kind.lower() for kind in re.findall(r"\d+ (\w+) devices?\b", devices)]
