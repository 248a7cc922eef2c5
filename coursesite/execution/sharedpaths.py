"""Lessons whose code names a place outside its own folder (`/tmp/orbax`, `/tmp/arrayrecord`).

main.py runs as a reader would run it, at the same time as the lesson's own run, each in a
folder of its own. A path the code names absolutely is the same place for both: Grain's
tutorials make `/tmp/arrayrecord/...` with `os.makedirs` (no exist_ok) and save Orbax
checkpoints to `/tmp/orbax`, so the two runs would race and one would fail with
FileExistsError, or read what the other half wrote. For such a lesson main.py waits until
the lesson's run has ended, then runs (the same process, replaced by `python main.py`).

Run after it, main.py would still find what the lesson's run left in such a place (Orbax:
"Destination /tmp/my_checkpoint_dir/sync already exists"), and so would the next build's
run. The places under the temporary folder that the code names and that do not exist when
the build plans the lesson are its scratch: they are removed before main.py runs, and again
once the lesson is done, so that every run starts from what the first one found. What
existed before is never touched: it may be data the author put there. Lessons that name
the same such place run one after the other (ScratchLocks), or one would remove what the
other is writing.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

# An absolute path of at least two parts, not a URL's `//host`.
_ABSOLUTE = re.compile(r"^/(?!/)[^\s/]+/")

# main.py's start when it must wait for the lesson's run (argv[1], "" for none) and find no
# scratch (argv[2:]) left by it.
_WAIT_THEN_RUN = (
    "import os, shutil, sys, time\n"
    "while sys.argv[1] and not os.path.exists(sys.argv[1]):\n"
    "    time.sleep(0.05)\n"
    "for path in sys.argv[2:]:\n"
    "    if os.path.isdir(path) and not os.path.islink(path):\n"
    "        shutil.rmtree(path, ignore_errors=True)\n"
    "    elif os.path.lexists(path):\n"
    "        os.remove(path)\n"
    "os.execv(sys.executable, [sys.executable, 'main.py'])\n"
)


def absolute_paths(codes: list[str]) -> list[str]:
    """The strings, or f-strings' texts, of `codes` that start an absolute path."""
    found = []
    for code in codes:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _ABSOLUTE.match(text):
                found.append(text)
    return found


def scratch_paths(paths: list[str]) -> tuple[str, ...]:
    """The places right under the temporary folder that the absolute `paths` a lesson's
    code names reach (`/tmp/my_ckpt` for '/tmp/my_ckpt/sync') and that do not exist now:
    what the lesson's runs will make."""
    places = []
    for root in dict.fromkeys([tempfile.gettempdir(), "/tmp"]):
        prefix = root.rstrip("/") + "/"
        for path in paths:
            first = path[len(prefix) :].split("/")[0] if path.startswith(prefix) else ""
            if first not in ("", ".", "..") and not os.path.lexists(prefix + first):
                places.append(prefix + first)
    return tuple(dict.fromkeys(places))


def remove_scratch(scratch: tuple[str, ...]) -> None:
    """Remove what the lesson's runs made of its scratch places (scratch_paths)."""
    for path in scratch:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.remove(path)


def main_py_command(after: Path | None, scratch: tuple[str, ...] = ()) -> list[str]:
    """How main.py is run: at once, or once the file `after` (the end of the lesson's own
    run) exists and the lesson's `scratch` is gone."""
    if after is None and not scratch:
        return [sys.executable, "main.py"]
    return [sys.executable, "-c", _WAIT_THEN_RUN, str(after or ""), *scratch]


class ScratchLocks:
    """A lock per scratch place, for the lessons of one build: those that name the same
    place under the temporary folder run one at a time, each finding it as the first did."""

    def __init__(self) -> None:
        self._locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
        self._guard = threading.Lock()

    @contextlib.contextmanager
    def held(self, scratch: tuple[str, ...]) -> Iterator[None]:
        with self._guard:  # in one order, so that two lessons never wait on each other
            locks = [self._locks[place] for place in sorted(set(scratch))]
        with contextlib.ExitStack() as stack:
            for lock in locks:
                stack.enter_context(lock)
            yield
