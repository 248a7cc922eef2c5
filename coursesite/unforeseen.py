"""How a command that stopped on something no check foresaw ends: a Python without the
generator's requirements is told where to run it; anything else is a bug of ours, said as
one, its traceback kept in a file for a report. Never a traceback on the terminal."""

from __future__ import annotations

import sys
import tempfile


def not_ours(problem: ModuleNotFoundError) -> bool:
    """Whether the module not found is another project's (msgspec, yaml): one the generator
    requires, missing from the Python that runs it; a module of the generator's own missing
    is a broken install, said as an internal error."""
    return (problem.name or "coursesite").partition(".")[0] != "coursesite"


def environment_lacks(problem: ModuleNotFoundError) -> int:
    """`python3 build.py` run with a Python the requirements were not installed into."""
    print(
        f"error: this Python ({sys.executable}) lacks the module {problem.name}, which the "
        "generator needs\n  hint: run it where its requirements are installed: `make site` "
        "sets up .venv from the pinned requirements and builds (then `.venv/bin/python "
        "build.py ...`), or install them into this Python: pip install -r requirements.txt",
        file=sys.stderr,
    )
    return 1


def internal_error(problem: Exception) -> int:
    """Says that a bug of the generator stopped the command, where its traceback was
    written for a report; the exit status of an internal software error (EX_SOFTWARE)."""
    import traceback  # only a failing command needs it

    with tempfile.NamedTemporaryFile(
        "w", prefix="coursesite-internal-error-", suffix=".txt", delete=False
    ) as report:
        report.write("".join(traceback.format_exception(problem)))
    print(
        f"error: internal error: {type(problem).__name__}: {problem}\n  hint: this is a bug "
        f"in the generator, not in your files; the details are in {report.name}: please "
        "report it, with the file the command was given",
        file=sys.stderr,
    )
    return 70
