"""Each print() call writes its text in one piece, in the lesson's run and in the
reader-style main.py run (loaded by runner.py, and by importguard.py from beside it as
`_coursesite_prints`). Python's own print writes each argument, separator and end apart,
so prints from threads that run at once (a JAX callback on each of 8 devices) interleave
mid-line, differently on every run: `shape (1,)shape (1,)` on one line, then two empty
ones. Whole, their lines differ from run to run no more than the threads' order. Kept
free of coursesite imports, like importguard.py."""

import builtins
import sys

_print = builtins.print


def _whole_print(*values, sep=" ", end="\n", file=None, flush=False):
    if not (sep is None or isinstance(sep, str)) or not (end is None or isinstance(end, str)):
        return _print(*values, sep=sep, end=end, file=file, flush=flush)  # its own TypeError
    stream = sys.stdout if file is None else file
    if stream is None:  # pythonw: print does nothing
        return None
    text = (" " if sep is None else sep).join(map(str, values)) + ("\n" if end is None else end)
    stream.write(text)
    if flush:
        stream.flush()
    return None


def install():
    builtins.print = _whole_print
