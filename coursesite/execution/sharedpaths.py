"""Lessons whose code names a place outside its own folder (`/tmp/orbax`, `/tmp/arrayrecord`).

main.py runs as a reader would run it, at the same time as the lesson's own run, each in a
folder of its own. A path the code names absolutely is the same place for both: Grain's
tutorials make `/tmp/arrayrecord/...` with `os.makedirs` (no exist_ok) and save Orbax
checkpoints to `/tmp/orbax`, so the two runs would race and one would fail with
FileExistsError, or read what the other half wrote. For such a lesson main.py waits until
the lesson's run has ended, then runs (the same process, replaced by `python main.py`).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

# An absolute path of at least two parts, not a URL's `//host`.
_ABSOLUTE = re.compile(r"^/(?!/)[^\s/]+/")

_WAIT_THEN_RUN = (
    "import os, sys, time\n"
    "while not os.path.exists(sys.argv[1]):\n"
    "    time.sleep(0.05)\n"
    "os.execv(sys.executable, [sys.executable, 'main.py'])\n"
)


def names_absolute_paths(codes: list[str]) -> bool:
    """Whether any of `codes` has a string, or an f-string's text, that starts an
    absolute path."""
    for code in codes:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _ABSOLUTE.match(text):
                return True
    return False


def main_py_command(after: Path | None) -> list[str]:
    """How main.py is run: at once, or once the file `after` (the end of the lesson's own
    run) exists."""
    if after is None:
        return [sys.executable, "main.py"]
    return [sys.executable, "-c", _WAIT_THEN_RUN, str(after)]
