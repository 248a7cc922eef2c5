"""The error for a `python main.py` run that imported a distribution its install line
leaves out, where it did so: the step and line, and who imported it.

The import guard (importguard.py) refuses an import the lesson's own code makes of such a
distribution (`importlib.import_module("yaml")`, which the install line cannot see), and
one an installed library makes inside a `try` that expects ImportError, if the library
then fails anyway. In the first case the step should import it plainly; in the second the
step's call needs it though the library calls it optional, and a plain import in the step
is how the install line comes to list it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import NamedTuple, Protocol

from coursesite.errors import BuildError
from coursesite.execution.environment import REFUSED_IMPORTS

HIDDEN_IMPORT = re.compile(r"No module named '([^']+)': distribution '([^']+)' is not installed by")
# A traceback's frame: its file, line, and the source line Python shows under it.
FRAME = re.compile(r'^  File "([^"]+)", line (\d+), in .*\n(?:    (.*)\n)?', re.M)


class ReaderJob(Protocol):
    @property
    def payload(self) -> dict: ...
    @property
    def labels(self) -> dict[str, str]: ...
    @property
    def inputs(self) -> dict[str, bytes]: ...
    @property
    def path(self) -> Path: ...


class RefusedImport(NamedTuple):
    """An import the guard refused in main.py's run, as its stderr tells it."""

    module: str
    distribution: str
    lesson_frames: list[tuple[str, str, str]]  # the traceback's frames in lesson code
    library: str  # the installed library's file that imported it; "" for lesson code


def missing_optional(
    job: ReaderJob, ran: subprocess.CompletedProcess, guard: Path, tried: list[str]
) -> tuple[str | None, bool]:
    """The distribution an installed library imported as optional and then failed without,
    as main.py's failed run `ran` tells it, and whether that is a guess. Known when the
    traceback shows the library's refused import, or when the error names an import the
    guard (its folder `guard`) refused and the library caught (Plotly Express: "requires
    numpy to be installed"). Guessed when the error names nothing: the last refused import
    not among `tried`, what a library that went without it and then failed in its own words
    most likely missed (SymPy plots with its text backend without matplotlib, which
    "supports only one graph per Plot"). None for a run that passed (a library's warning
    that it goes without is no cause) and for the lesson's own refused import
    (hidden_import_error's to report). The build's own run, where it was there, shows that
    the lesson needs it: the build adds it and runs main.py again."""
    if not ran.returncode:
        return None, False
    found = _refused(job, ran.stderr)
    if found is not None:
        return (found.distribution if found.library else None), False
    refused = _refused_imports(guard)
    frames = list(FRAME.finditer(ran.stderr))
    error = ran.stderr[frames[-1].end() :] if frames else ""
    for module, distribution in reversed(refused):
        named = rf"(?<![\w.-])(?:{re.escape(module)}|{re.escape(distribution)})(?![\w-])"
        if re.search(named, error, re.I):
            return distribution, False
    untried = [distribution for _, distribution in refused if distribution not in tried]
    return (untried[-1] if untried else None), True


def _refused_imports(guard: Path) -> list[tuple[str, str]]:
    """The imports the guard refused while main.py ran, (module, distribution) in the
    order made, from the file in its folder `guard`."""
    try:
        lines = (guard / REFUSED_IMPORTS).read_text(encoding="utf-8").splitlines()
    except OSError:  # none was refused
        return []
    found = (json.loads(line) for line in lines if line.strip())
    return [(module, distribution) for module, distribution in found]


def _refused(job: ReaderJob, stderr: str) -> RefusedImport | None:
    """The import the guard refused, as main.py's `stderr` tells it; None if none was."""
    hidden = HIDDEN_IMPORT.search(stderr)
    if hidden is None:
        return None
    frames = [  # not the import machinery's, nor the guard's own
        frame
        for frame in FRAME.findall(stderr[: hidden.start()])
        if not frame[0].startswith("<")
        and Path(frame[0]).name != "sitecustomize.py"
        and "importlib" not in Path(frame[0]).parts
    ]
    own = {"main.py"} | {name for name in job.inputs if name.endswith(".py")}
    ours = [frame for frame in frames if Path(frame[0]).name in own]
    importer = frames[-1][0] if frames else ""
    library = importer if importer and Path(importer).name not in own else ""
    return RefusedImport(hidden.group(1), hidden.group(2), ours, library)


def hidden_import_error(job: ReaderJob, stderr: str) -> BuildError | None:
    """The error for main.py's `stderr` if the guard refused an import; None if not."""
    refused = _refused(job, stderr)
    if refused is None:
        return None
    module, distribution, ours, importer = refused
    block, line = _lesson_line(job, ours[-1][2].strip()) if ours and ours[-1][2] else ("", None)
    label = job.labels.get(block, "a step")
    by_library = bool(importer)
    where = f" through {_short(importer)}" if by_library else ""
    why = (
        f"{_short(importer)} imports it as an optional dependency (in a try that expects "
        "ImportError), yet fails without it here, so the reader needs it; "
        if by_library
        else "the install line lists what the lesson's blocks and its own modules import "
        "as written (`import ...`), not what they import by name at run time; "
    )
    return BuildError(
        f"main.py imports '{module}'{where}, from distribution '{distribution}', which the "
        "setup help's install line does not list",
        job.path,
        line,
        hint=f"{why}write `import {module}` at the top of {label}, so that the line lists it",
        detail=stderr[-4000:] or None,
    )


def _lesson_line(job: ReaderJob, source: str) -> tuple[str, int | None]:
    """The step whose code holds the line `source`, and that line's number in the lesson."""
    for block in job.payload["blocks"]:
        if not block.get("program", True):
            continue
        for number, text in enumerate(block["code"].splitlines()):
            if text.strip() == source:
                return block["id"], block["line"] + number
    return "", None


def _short(path: str) -> str:
    """`jax/_src/debugging.py` for a file in site-packages: the library, by its own path."""
    parts = Path(path).parts
    if "site-packages" in parts:
        return "/".join(parts[parts.index("site-packages") + 1 :])
    return Path(path).name
