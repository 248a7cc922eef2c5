#!/usr/bin/env python3
"""Build the course website from lessons.yaml. Run `python build.py --help`."""

import os
import sys

from coursesite.cli import main

if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Whoever read our output stopped (`build.py --help | head -3`): end quietly, as
        # other command-line tools do, instead of with a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 141  # 128 + SIGPIPE, what a shell reports for such a pipeline
    # Everything is written, closed and flushed by now: skip the interpreter's teardown,
    # which spends ~30 ms freeing what the build loaded (docs/benchmarks.md).
    sys.stderr.flush()
    os._exit(status)
