"""The time a notebook's project lets its code run, carried into the imported lesson.

Jupyter Book (`execute: timeout:` in `_config.yml`) and Sphinx with MyST-NB or nbsphinx
(`nb_execution_timeout`, `nbsphinx_timeout` in `conf.py`) give each cell of the project's
notebooks that many seconds; a lesson's run has one limit for all its code, the course's
`settings.timeout_seconds`. Where the project lets a cell run longer than the course lets
a whole lesson (QuantEcon's lectures: 2400 s), the lesson gets the project's time as its
own limit (`timeout_seconds:` in its front matter), said in the report; a project that
gives less changes nothing. A notebook's own setting (MyST-NB's `mystnb:
execution_timeout:`, nbsphinx's `nbsphinx: timeout:`, in its metadata or front matter) is
more specific than its project's, and wins, as it does in those tools.
"""

from __future__ import annotations

import re
from pathlib import Path

from coursesite.importers.rootpaths import project_mapping, project_root

# `nb_execution_timeout = 900` (MyST-NB), `nbsphinx_timeout = 600` (nbsphinx) in conf.py
_CONF_TIMEOUT = re.compile(r"^(nb_execution_timeout|nbsphinx_timeout)\s*=\s*(\d+)\s*$", re.M)


def _seconds(value: object) -> int | None:
    """A limit in seconds; None for none (-1, as both tools write it) or no number."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def notebook_time(metadata: dict) -> tuple[int, str] | None:
    """(seconds, where the notebook says so) of the time its own metadata gives a cell."""
    for tool, key in (("mystnb", "execution_timeout"), ("nbsphinx", "timeout")):
        settings = metadata.get(tool)
        if isinstance(settings, dict) and (seconds := _seconds(settings.get(key))):
            return seconds, f"{tool}: {key}: in the notebook's metadata"
    return None


def project_time(notebook: Path) -> tuple[int, str] | None:
    """(seconds, where the project says so) of the time its configuration gives a cell of
    its notebooks, or None where it says nothing (or no limit: -1)."""
    root = project_root(notebook)
    if root is None:
        return None
    execute = project_mapping(root / "_config.yml").get("execute")
    seconds = _seconds(execute.get("timeout")) if isinstance(execute, dict) else None
    if seconds:
        return seconds, "execute: timeout: in _config.yml"
    conf = root / "conf.py"
    match = _CONF_TIMEOUT.search(conf.read_text(errors="replace")) if conf.is_file() else None
    if match and int(match.group(2)) > 0:
        return int(match.group(2)), f"{match.group(1)} in conf.py"
    return None


def lesson_time(notebook: Path, metadata: dict, course_limit: int) -> tuple[int | None, list[str]]:
    """The lesson's own limit on its run (None: the course's) and the report's line."""
    found = notebook_time(metadata) or project_time(notebook)
    if found is None or found[0] <= course_limit:
        return None, []
    seconds, said = found
    return seconds, [
        f"the notebook's settings let each cell run {seconds} s ({said}), longer than the "
        f"course lets a lesson run ({course_limit} s): the lesson's front matter gives it "
        f"timeout_seconds: {seconds}"
    ]
