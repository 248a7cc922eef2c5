#!/usr/bin/env python3
"""Build this course's website from lessons.yaml: the same as the `coursesite` command.
Run `python build.py --help`."""

from coursesite.cli import run

if __name__ == "__main__":
    run()
