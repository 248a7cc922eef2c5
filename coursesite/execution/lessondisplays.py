"""IPython's `display()` in a lesson's process, and what it showed in the running block.

The companion of runner.py, loaded by it from this file and, like it, importing nothing
from the generator. In a notebook `display` is a builtin: a step may call it anywhere, not
only on its last line, and the notebook shows each value at its richest where it was
called. Here it is a builtin too. It writes each value's repr and a newline to the block's
stdout, exactly what the definition main.py then starts with prints
(lesson/displaydefinition.py), so that `python main.py` prints what the steps printed; and it notes
where in the block's stdout that text starts, with the value's MIME bundle, so that the
page can show the value there instead of its repr (outputs/displays.py).
"""

import builtins
import sys


class DisplayRecorder:
    """The builtin `display`, and the displays of the block that is running."""

    def __init__(self, stream, representations, kept_bundle, limit_factor):
        self.stream = stream  # fdcapture.BLOCK_STDOUT
        self.representations = representations  # lessonoutputs.rich_representations
        self.kept_bundle = kept_bundle  # lessonoutputs.kept_bundle, for raw bundles
        self.limit_factor = limit_factor
        self.shown = None  # the running block's displays; None between blocks
        self.value_limit = 0  # characters of one representation, as of a last value's
        self.room = 0  # characters of rich representations the block may still keep
        self.problem = None

    def install(self):
        """`display` a builtin, as in a notebook, unless this Python has one already."""
        if not hasattr(builtins, "display"):
            setattr(builtins, "display", self.display)  # noqa: B010 (not a builtin mypy knows)

    def begin(self, limit):
        # All of one block's displays together keep at most what its last value may: a
        # loop that displays a thousand images must not fill the record.
        self.value_limit = self.room = self.limit_factor * limit
        self.shown, self.problem = [], None

    def finish(self, stdout, encodable):
        """The block's displays, and a message when one of them cannot be kept. Each is
        placed in `stdout` as the result carries it (runner.encodable), which may hold
        fewer characters for text with lone surrogates in it."""
        shown, problem = self.shown or [], self.problem
        self.shown, self.problem = None, None
        if shown and encodable(stdout) != stdout:
            for entry in shown:
                at, end = entry["at"], entry["at"] + entry["length"]
                entry["at"] = len(encodable(stdout[:at]))
                entry["length"] = len(encodable(stdout[at:end]))
        return shown, problem

    def display(
        self,
        *values,
        include=None,
        exclude=None,
        metadata=None,
        transient=None,
        display_id=None,
        raw=False,
        clear=False,
        **options,
    ):
        """IPython's display(): each value shown at its richest, in order. IPython's
        keyword arguments are taken so that a notebook's call runs; only `raw` means
        something here (the values are MIME bundles). It returns None, as main.py's
        definition does, where IPython may return a handle to update the display with."""
        for value in values:
            text = repr(value) + "\n"
            if self._redirected():  # by the lesson: printed as main.py's display() prints
                sys.stdout.write(text)
                continue
            shown = self.shown
            at = self.stream.write_located(text)
            if at is None or shown is None or self.problem:
                continue
            bundle, problem = self._bundle(value, raw)
            size = sum(map(len, bundle.values()))
            if problem is None and size > self.room:
                problem = (
                    f"its display() calls offer {size:,} more characters of rich output, "
                    f"more than the {self.room:,} a page still keeps of them"
                )
            if problem:
                self.problem = problem
                continue
            self.room -= size
            shown.append({"at": at, "length": len(text), "bundle": bundle})

    def _redirected(self):
        return sys.stdout is not self.stream

    def _bundle(self, value, raw):
        limit, what = self.value_limit, "a value it displays"
        if not raw:
            return self.representations(value, limit, what)
        # raw=True: the value is a bundle already ({"text/html": ...}); anything but a
        # dict of text by MIME type is shown as the repr it wrote.
        if isinstance(value, dict) and all(
            isinstance(mime, str) and isinstance(data, (str, list)) for mime, data in value.items()
        ):
            return self.kept_bundle(value, limit, what)
        return {}, None
