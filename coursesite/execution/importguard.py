"""Installed as `sitecustomize` for the reader-style `python main.py` run only (see
installs.py): modules of distributions that the lesson's install line would not install
cannot be imported by the lesson's code, as on a reader's machine. Kept free of coursesite
imports: it runs in the lesson's interpreter before anything else.

An installed library may import such a module itself while main.py runs (JAX's
`visualize_array_sharding` imports rich; `jax._src.test_util` imports absl): no line of
the lesson names it, yet the reader needs it as much. That import goes through, and is
written down (COURSESITE_RUN_TIME_IMPORTS names the file): the build adds the distribution
to the install line (runtimeimports.py). An import the lesson's own code makes (main.py
or a module of its own beside it, `importlib.import_module("yaml")` too) fails, and so does
one made inside a `try` that catches ImportError (jax's optional cloudpickle): the reader's
run goes without it, as the library means it to.
"""

import importlib
import json
import os
import sys
from types import FrameType

import _coursesite_prints  # type: ignore[import-not-found]  # beside this file: wholeprints.py
import _coursesite_programs  # type: ignore[import-not-found]  # beside it: programlimits.py

MARKER = "not installed by the lesson's setup help"
# Frames of the import machinery between an import and the finder: not the importer.
_MACHINERY = (os.path.dirname(importlib.__file__), os.path.realpath(__file__))


class HiddenDistributions:
    def __init__(self, hidden, written_to, refused_to):
        self.hidden = hidden  # top-level module -> distribution
        self.written_to = written_to  # the file the imports libraries made go to
        # The file the refused imports go to: a library that catches the refusal may fail
        # later with its own words ("Plotly Express requires numpy"), naming none of ours.
        self.refused_to = refused_to
        self.lesson = os.path.realpath(os.getcwd())  # main.py's folder and its modules'
        self.allowed = set()

    def find_spec(self, name, path=None, target=None):
        if path is None and name in self.hidden and name not in self.allowed:
            if self.written_to and self._needed_by_a_library():
                self.allowed.add(name)
                with open(self.written_to, "a", encoding="utf-8") as imports:
                    imports.write(json.dumps([name, self.hidden[name]]) + "\n")
                return None
            if self.refused_to:
                with open(self.refused_to, "a", encoding="utf-8") as refused:
                    refused.write(json.dumps([name, self.hidden[name]]) + "\n")
            raise ModuleNotFoundError(
                f"No module named '{name}': distribution '{self.hidden[name]}' is {MARKER}",
                name=name,
            )
        return None

    def _needed_by_a_library(self):
        """Whether the import under way is an installed library's, not the lesson's own
        code's, and one that nothing on the way there expects to fail: no frame is in a
        `try` whose `except` names ImportError (an optional dependency, done without)."""
        frames = []
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            file = frame.f_code.co_filename
            # `<frozen importlib._bootstrap>`, and code made from a string (`<string>`)
            if not file.startswith("<") and not file.startswith(_MACHINERY):
                frames.append(frame)
            frame = frame.f_back
        if not frames or os.path.dirname(os.path.realpath(frames[0].f_code.co_filename)) == (
            self.lesson
        ):
            return False
        return not any(_expects_import_errors(frame) for frame in frames)


# What an `except` that expects an import to fail names.
_CAUGHT = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _expects_import_errors(frame):
    """Whether the instruction `frame` runs is in a `try` that catches ImportError (its
    handler, or the handler of the `try` around that one, names one of _CAUGHT)."""
    import dis

    try:
        entries = dis._parse_exception_table(frame.f_code)  # type: ignore[attr-defined]
        instructions = list(dis.get_instructions(frame.f_code))
    except Exception:  # another Python's private helper: say no
        return False
    at = {instruction.offset: number for number, instruction in enumerate(instructions)}
    offset = frame.f_lasti
    for _ in range(8):  # nested handlers: with, try inside try
        entry = next((e for e in entries if e.start <= offset < e.end), None)
        if entry is None or entry.target not in at:
            return False
        for instruction in instructions[at[entry.target] : at[entry.target] + 16]:
            if instruction.opname.startswith("LOAD") and instruction.argval in _CAUGHT:
                return True
        offset = entry.target
    return False


sys.meta_path.insert(
    0,
    HiddenDistributions(
        json.loads(os.environ.pop("COURSESITE_HIDDEN", "{}")),
        os.environ.pop("COURSESITE_RUN_TIME_IMPORTS", ""),
        os.environ.pop("COURSESITE_REFUSED_IMPORTS", ""),
    ),
)

_coursesite_prints.install()
_coursesite_programs.install()

if "COURSESITE_CLOCK_SHIFT" in os.environ:  # beside this file: shiftedclock.py
    import _coursesite_clock  # type: ignore[import-not-found]

    _coursesite_clock.shift(float(os.environ.pop("COURSESITE_CLOCK_SHIFT")))
