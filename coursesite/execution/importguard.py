"""Installed as `sitecustomize` for the reader-style `python main.py` run only (see
installs.py): modules of distributions that the lesson's install line would not install
cannot be imported, as on a reader's machine. Kept free of coursesite imports: it runs in
the lesson's interpreter before anything else."""

import json
import os
import sys

MARKER = "not installed by the lesson's setup help"


class HiddenDistributions:
    def __init__(self, hidden):
        self.hidden = hidden  # top-level module -> distribution

    def find_spec(self, name, path=None, target=None):
        if path is None and name in self.hidden:
            raise ModuleNotFoundError(
                f"No module named '{name}': distribution '{self.hidden[name]}' is {MARKER}",
                name=name,
            )
        return None


sys.meta_path.insert(0, HiddenDistributions(json.loads(os.environ.pop("COURSESITE_HIDDEN", "{}"))))

if "COURSESITE_CLOCK_SHIFT" in os.environ:  # beside this file: shiftedclock.py
    import _coursesite_clock  # type: ignore[import-not-found]

    _coursesite_clock.shift(float(os.environ.pop("COURSESITE_CLOCK_SHIFT")))
