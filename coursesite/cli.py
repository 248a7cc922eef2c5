"""The command line: `python build.py --help`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .errors import BuildErrors
from .pipeline import BuildOptions, build

DESCRIPTION = """\
Build the course website: run every lesson listed in lessons.yaml in its own Python
process, record what its code printed and drew, and render the pages into site/.
"""

EPILOG = """\
examples:
  python build.py                     build the course in this folder into site/
  python build.py --out /tmp/preview  build somewhere else
  python build.py --jobs 1            run one lesson at a time

exit status: 0 when the site was built; 1 when a lesson or the manifest has a problem
(each is reported as FILE:LINE: what is wrong, with a hint); 2 for wrong arguments.
A failed build never replaces the previous site.

Lesson format: docs/authoring.md
"""


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="build.py", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=Path("lessons.yaml"), metavar="PATH",
                        help="the course manifest (default: lessons.yaml)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="output folder (default: site/ next to the manifest)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="lessons executed at once (default: the number of cores)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    arguments = parser.parse_args(argv)
    if arguments.jobs < 1:
        parser.error("--jobs must be at least 1")
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    root = arguments.manifest.resolve().parent
    tool_root = Path(__file__).resolve().parent.parent
    options = BuildOptions(
        manifest=arguments.manifest,
        out=arguments.out or root / "site",
        templates=_first_existing(root / "templates", tool_root / "templates"),
        static=_first_existing(root / "static", tool_root / "static"),
        jobs=arguments.jobs,
    )
    report = (lambda _message: None) if arguments.quiet else print
    try:
        build(options, report)
    except BuildErrors as problems:
        print(f"build failed: {len(problems.errors)} problem(s); site not changed",
              file=sys.stderr)
        for error in problems.errors:
            print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("build interrupted; site not changed", file=sys.stderr)
        return 130
    return 0


def _first_existing(*candidates: Path) -> Path:
    return next((path for path in candidates if path.is_dir()), candidates[-1])
