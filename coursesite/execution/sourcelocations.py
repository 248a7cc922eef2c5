"""Where the lesson's code says it is: the one difference between a step's output and
`python main.py`'s that the generator makes itself.

The build compiles each step under the lesson file's name, so that tracebacks give lines of
the `.md`; main.py is compiled under its own. A library that prints where its caller is
(JAX's `f32[5] output of sin from lesson.md:39:9 (g)`, a `warnings` line, an `inspect`
frame's filename:lineno) prints `lesson.md:39:9` in the step and `/tmp/…/main.py:12:9`
in main.py. The main.py check compares both outputs with every such location (the path,
line and column) replaced by one placeholder; a different location in any other file, and
the text around one, still count.
"""

from __future__ import annotations

import re
from pathlib import Path

PLACEHOLDER = "<lesson code>"


def same_locations(text: str, source_path: str) -> str:
    """`text` with each location in the lesson file `source_path` or in main.py (any folder
    before it; `:LINE[:COL]`, or a traceback's `", line N`) replaced by the placeholder."""
    names = "|".join(re.escape(name) for name in ("main.py", Path(source_path).name))
    pattern = re.compile(rf"(?:[^\s'\"()<>,]*[/\\])?(?:{names})(?P<where>(?::\d+)+|\", line \d+)")
    return pattern.sub(
        lambda found: PLACEHOLDER + (":…" if found["where"].startswith(":") else '", line …'),
        text,
    )
