#!/usr/bin/env python3
"""Build the course website from lessons.yaml. Run `python build.py --help`."""

import os
import sys

from coursesite.cli import main

if __name__ == "__main__":
    status = main()
    # Everything is written, closed and flushed by now: skip the interpreter's teardown,
    # which spends ~30 ms freeing what the build loaded (docs/benchmarks.md).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
