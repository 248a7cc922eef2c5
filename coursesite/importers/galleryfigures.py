"""Figures a guide shows of other sphinx-gallery examples, drawn as sphinx-gallery draws them.

A gallery's guide often shows a figure of another example by the name sphinx-gallery gives
it when it builds the site (`images/sphx_glr_fancybox_demo_001.png`, the first figure of
`fancybox_demo.py`): no repository holds that file. Where the guide's checkout (`.git`
marks its root) holds the example, the import runs it (examplefigures.py, in an
interpreter of its own, with Agg and a time limit, in the example's folder) and keeps the
figure the name asks for as the image the prose links to. Each example runs once however
many of its figures are shown.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from coursesite.importers.rootpaths import checkout_root

_NAME = re.compile(r"sphx_glr_(\w+?)_(\d{3})\.png\Z")
_DRAWER = Path(__file__).with_name("examplefigures.py")
RUN_SECONDS = 120


@dataclass
class ExampleFigure:
    """The figure of an example that an image name stands for, and how it went."""

    figure: str  # "fancybox_demo.py (its figure 1)", as the report names it
    script: Path | None  # the example found in the checkout
    png: bytes | None  # the figure, drawn
    problem: str  # why it was not drawn, when the example was found


def example_figure(src: str, folder: Path) -> ExampleFigure | None:
    """The figure of an example `src` names, found from the guide's `folder` and drawn;
    None when `src` is not sphinx-gallery's name for one."""
    found = _NAME.search(Path(src).name)
    if found is None:
        return None
    name, number = found.group(1), int(found.group(2))
    figure = f"{name}.py (its figure {number})"
    script = _example_script(name, folder.resolve())
    if script is None:
        return ExampleFigure(figure, None, None, "")
    drawn, problem = _drawn_figures(script)
    if problem or number > len(drawn):
        return ExampleFigure(figure, script, None, problem or f"it shows {len(drawn)} figure(s)")
    return ExampleFigure(figure, script, drawn[number - 1], "")


def _example_script(name: str, folder: Path) -> Path | None:
    """The example `name`.py of the guide's checkout (the folder above it holding `.git`)
    nearest its root; without a checkout, one in the guide's own folder."""
    root = checkout_root(folder)
    found = _scripts_under(root)[name] if root else sorted(folder.glob(f"{name}.py"))
    return min(found, key=lambda path: (len(path.parts), str(path))) if found else None


@functools.cache
def _scripts_under(root: Path) -> defaultdict[str, list[Path]]:
    """The Python scripts of a checkout by name, hidden folders (.git, .venv) left out."""
    scripts: defaultdict[str, list[Path]] = defaultdict(list)
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        for file in files:
            if file.endswith(".py"):
                scripts[file[:-3]].append(Path(folder, file))
    return scripts


@functools.cache
def _drawn_figures(script: Path) -> tuple[list[bytes], str]:
    """The PNGs of the figures `script` shows, in order, or why they could not be drawn."""
    # Said first: an example may take up to RUN_SECONDS, and the import is silent till then.
    print(f"running {script.name} for its figures, as sphinx-gallery does", file=sys.stderr)
    with tempfile.TemporaryDirectory() as out:
        try:
            ran = subprocess.run(
                [sys.executable, "-P", str(_DRAWER), str(script), out],
                capture_output=True,
                text=True,
                cwd=script.parent,
                timeout=RUN_SECONDS,
            )
        except subprocess.TimeoutExpired:
            return [], f"it ran longer than {RUN_SECONDS} s"
        if ran.returncode != 0:
            last = (ran.stderr.strip().splitlines() or ["it failed"])[-1]
            return [], f"it failed: {last}"
        pngs = sorted(Path(out).glob("*.png"), key=lambda path: int(path.stem))
        return [path.read_bytes() for path in pngs], ""
