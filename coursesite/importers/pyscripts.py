"""Read a Python script in jupytext's percent format into cells: `# %%` starts a code cell
and `# %% [markdown]` a Markdown one, whose lines are comments (`# Some prose.`), as VS
Code, Spyder and PyCharm run them and many projects keep their examples. jupytext reads
the script (its cell metadata too: `# %% tags=["remove-cell"]`); each cell is named by
the line of the script its `# %%` is on, where the author finds it."""

from __future__ import annotations

import re
from pathlib import Path

from coursesite.errors import BuildError

# jupytext's percent marker: `# %%`, then a title, `[markdown]` or metadata, or nothing.
_MARKER = re.compile(r"^#\s?%%(?:\s|$)")
PERCENT_HINT = (
    "a .py file is imported as a notebook in jupytext's percent format: a line `# %%` "
    "starts each code cell and `# %% [markdown]` each cell of prose (its lines comments); "
    "add those lines, or convert the script with `jupytext --to ipynb`"
)


def percent_notebook(text: str, path: Path) -> tuple[dict, list[str]]:
    """The script as an nbformat 4 notebook, and where each of its cells is ("line 12"); a
    BuildError for a script without cells."""
    import jupytext

    lines = text.splitlines()
    markers = [number for number, line in enumerate(lines, start=1) if _MARKER.match(line)]
    if not markers:
        raise BuildError("the script has no `# %%` cell markers", path, hint=PERCENT_HINT)
    try:
        notebook = jupytext.reads(text, fmt="py:percent")
    except Exception as problem:  # jupytext raises its own errors and YAML's for the header
        raise BuildError(
            f"jupytext cannot read the script: {(str(problem) or repr(problem)).splitlines()[0]}",
            path,
            hint=PERCENT_HINT,
        ) from None
    cells = notebook.cells
    # Cells line up with the markers; a script's lines before its first marker make one more.
    starts = markers if len(cells) == len(markers) else [_first_line(lines), *markers]
    if len(starts) != len(cells):  # jupytext left out a cell with nothing in it
        return notebook, [f"cell {number}" for number in range(1, len(cells) + 1)]
    return notebook, [f"line {start}" for start in starts]


def _first_line(lines: list[str]) -> int:
    """The script's first line after its jupytext header (`# ---` ... `# ---`) that holds
    anything."""
    start = 0
    if lines and lines[0].strip() == "# ---":
        start = next((n for n in range(1, len(lines)) if lines[n].strip() == "# ---"), 0) + 1
    return next((n + 1 for n in range(start, len(lines)) if lines[n].strip()), 1)
