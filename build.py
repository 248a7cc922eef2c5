#!/usr/bin/env python3
"""Build the course website from lessons.yaml. Run `python build.py --help`."""

import sys

from coursesite.cli import main

if __name__ == "__main__":
    sys.exit(main())
