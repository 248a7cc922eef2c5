"""The command line: `coursesite --help` (or a course's `python build.py --help`) and the
help of each command (`coursesite serve --help`, ...)."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

from coursesite.config.options import BuildOptions, site_path
from coursesite.errors import BuildErrors, report_warnings
from coursesite.publish.outfolder import check_output_folder
from coursesite.unforeseen import environment_lacks, internal_error, not_ours

DESCRIPTION = """\
Build the course website: run every lesson listed in lessons.yaml in its own Python
process, record what its code printed and drew, and render the pages into site/.
A lesson whose code, imported package versions, data files and settings are unchanged is
not run again: its record comes from the cache (.cache/). Pages whose inputs are unchanged
are not rendered again, and a rebuild that changes nothing writes nothing.
"""

EPILOG = """\
commands:
  {prog} [build]                 build the course in this folder into site/
  {prog} serve                   build, serve on http://127.0.0.1:8000, rebuild on
                                 every change and reload the browser
  {prog} check                   re-run every lesson, compare with records/, and
                                 check the built site strictly
  {prog} import NB --phase 01    turn a notebook into a lesson of phase 01
  {prog} new DIR                 start a new course in DIR, ready to build
examples:
  {prog} --lesson design-an-input-pipeline
  {prog} --force --jobs 1        re-run every lesson, one at a time
  {prog} --out /tmp/preview      build somewhere else

exit status: 0 when the site was built; 1 when a lesson or the manifest has a problem
(each is reported as FILE:LINE: what is wrong, with a hint); 2 for wrong arguments;
130 when interrupted. A failed or interrupted build never replaces the previous site.

Lesson format: docs/authoring.md
"""


IMPORT_DESCRIPTION = """\
Turn a Jupyter notebook (.ipynb, nbformat 4), a MyST Markdown notebook (.md) or a Python
script in jupytext's percent format (.py, `# %%` cells) or sphinx-gallery's (a docstring
with a reStructuredText title, `# %%` blocks of comments as prose) into a lesson file in the phase's
content folder, and list it in lessons.yaml (adding the phase if it
is missing). Markdown before the first code cell becomes the Understand stage; each code
cell becomes a build step titled from the heading above it. The notebook's stored
outputs are kept beside the lesson: every build compares each step's fresh output with
them and warns about each difference. The lesson builds at once; `build.py check` lists
what is left to fill in.
"""


def _manifest_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--manifest",
        type=Path,
        default=Path("lessons.yaml"),
        metavar="PATH",
        help="the course manifest (default: lessons.yaml)",
    )


def _common_options(parser: argparse.ArgumentParser) -> None:
    _manifest_option(parser)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder, replaced as a whole by every build, so it "
        "must be new, empty or a site a build wrote (default: site/ next "
        "to the manifest)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="execution and page cache (default: .cache/ next to the manifest)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="lessons executed at once, each in its own process (default: the number of cores)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="re-run every lesson (with --lesson: just that one) and re-render every page",
    )
    parser.add_argument(
        "--lesson",
        metavar="SLUG",
        default=None,
        help="run just this lesson; the others come from the cache",
    )
    parser.add_argument(
        "--frozen",
        action="store_true",
        help="run no code: publish from the committed records/ (fails naming "
        "any lesson whose code changed since its record)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="the address the site is published at (e.g. "
        "https://example.org/course/); used for sitemap.xml and canonical "
        "links, while links between pages stay relative",
    )
    parser.add_argument(
        "--edition",
        choices=("full", "student"),
        default="full",
        help="'student' leaves every reference solution out of the pages, "
        "downloads and search index (solutions still run and are checked)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run lessons on the Dask scheduler at ADDRESS (tcp://host:8786) "
        "instead of local processes; overrides settings.cluster in "
        "lessons.yaml (docs/scaling.md)",
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="print how long each stage of the build took (manifest, parse, "
        "look-up, execute, validate, plan, render, write, search, save)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors")


COMMANDS = ("build", "serve", "check", "import", "new")


def program_name() -> str:
    """How the author started us: `coursesite` (the installed command) or `build.py`."""
    return "coursesite" if Path(sys.argv[0]).name == "coursesite" else "build.py"


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    prog = program_name()
    parser = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG.format(prog=prog if prog == "coursesite" else "python build.py"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command = argv[0] if argv and argv[0] in COMMANDS else "build"
    if command == "import":
        return _import_arguments(argv[1:])
    if command == "new":
        from coursesite.starter import new_course_arguments

        return new_course_arguments(argv[1:], prog)
    if argv[:1] == ["build"]:
        argv = argv[1:]
    if command == "check":
        parser = argparse.ArgumentParser(
            prog=f"{prog} check",
            description="Re-run every lesson and compare its output with the committed "
            "record in records/. Prints a unified diff per lesson whose output "
            "drifted (for example a shuffled order that changed under a new "
            "library version); lines matching the lesson's `volatile` patterns "
            "never count. Exit status 1 when anything drifted.",
        )
        parser.add_argument(
            "--accept",
            action="store_true",
            help="write the fresh outputs to records/ instead of failing",
        )
        argv = argv[1:]
    serving = command == "serve"
    if serving:
        parser = argparse.ArgumentParser(
            prog=f"{prog} serve",
            description="Build the site, serve it on 127.0.0.1, rebuild when content/, "
            "templates/, static/ or lessons.yaml change, and reload open pages. "
            "A broken edit is shown in the terminal and over the page; the last "
            "good site stays served.",
        )
        parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
        argv = argv[1:]
    _common_options(parser)
    arguments = parser.parse_args(argv)
    arguments.command = command
    if arguments.jobs < 1:
        parser.error("--jobs must be at least 1")
    if arguments.cluster is not None and not arguments.cluster.strip():
        parser.error("--cluster takes a scheduler's address, like tcp://host:8786")
    return arguments


def _import_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"{program_name()} import",
        description=IMPORT_DESCRIPTION,
        epilog="examples:\n  python build.py import notebooks/intro.ipynb --phase 01\n"
        "  python build.py import tutorial.md --phase 02 --install   # and its packages\n"
        "  python build.py import lecture.md --phase 02 --fetch     # and its web data\n\n"
        "what becomes what: 'Importing a notebook' in docs/authoring.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebook", type=Path, metavar="PATH", help="the notebook to import")
    parser.add_argument(
        "--phase", required=True, metavar="ID", help='the phase\'s id in lessons.yaml ("01")'
    )
    parser.add_argument(
        "--slug", metavar="SLUG", help="the lesson's slug (default: from the notebook's title)"
    )
    parser.add_argument(
        "--from",
        dest="origin",
        metavar="SITE",
        help="the site in lessons.yaml's references: that the notebook comes from: its "
        "{doc} and relative page links point there (default: the one site that names pages)",
    )
    parser.add_argument(
        "--install",
        action="store_true",
        help="pip install the packages the notebook imports that this environment lacks "
        "(its own pip install lines give the versions; nothing installed moves), and pin "
        "them in the course's requirements.txt",
    )
    parser.add_argument(
        "--fetch",
        action="store_true",
        help="download each data file the code reads by web address (a whole string naming "
        "a file, as in pd.read_csv('https://.../rows.csv')), save it beside the lesson under "
        "data/ and read it there, so that the build needs no network",
    )
    _manifest_option(parser)
    arguments = parser.parse_args(argv)
    from coursesite.config.manifest import PHASE_ID, SLUG

    if not re.fullmatch(PHASE_ID, arguments.phase):
        parser.error('--phase takes the id of a phase in lessons.yaml: letters and digits ("01")')
    if arguments.slug is not None and not re.fullmatch(SLUG, arguments.slug):
        parser.error("--slug takes lowercase letters, digits and single hyphens")
    arguments.command = "import"
    return arguments


def import_command(arguments: argparse.Namespace) -> int:
    from coursesite.errors import BuildError, environment_failures_reported
    from coursesite.importers.importcommand import ImportRequest, import_notebook

    request = ImportRequest(
        arguments.notebook,
        arguments.manifest,
        arguments.phase,
        arguments.slug,
        arguments.origin,
        arguments.install,
        arguments.fetch,
    )
    try:
        with environment_failures_reported():  # an unreadable file, a full disk: no traceback
            report = import_notebook(request)
    except (BuildError, BuildErrors) as failure:
        problems = failure.errors if isinstance(failure, BuildErrors) else [failure]
        print("import failed; nothing written", file=sys.stderr)
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("import interrupted; nothing written", file=sys.stderr)
        return 130
    print("\n".join(report))
    return 0


def build_options(arguments: argparse.Namespace) -> BuildOptions:
    root = arguments.manifest.resolve().parent
    return BuildOptions(
        manifest=arguments.manifest,
        out=arguments.out or root / "site",
        templates=root / "templates",
        static=root / "static",
        cache=arguments.cache or root / ".cache",
        jobs=arguments.jobs,
        force=arguments.force,
        only=arguments.lesson,
        frozen=arguments.frozen,
        edition=arguments.edition,
        cluster=arguments.cluster,
        base_url=arguments.base_url and arguments.base_url.rstrip("/") + "/",
    )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up like Ctrl-C: stop lessons, keep the site


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    # A build creates objects by the million (1,000 cached lessons unpickle into 45,000)
    # and frees them at exit; with Python's default thresholds the cycle collector ran
    # over and over during that, and took a third of a prose edit's parse stage.
    gc.set_threshold(50_000, 20, 100)
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    if arguments.command == "import":
        return import_command(arguments)
    if arguments.command == "new":
        from coursesite.starter import new_course

        return new_course(arguments)
    options = build_options(arguments)
    if arguments.command != "check":  # check builds into a temporary folder of its own
        try:
            check_output_folder(options)
        except BuildErrors as problems:
            problems.report()
            return 1
    if arguments.command == "serve":
        from coursesite.serve import serve  # the watcher and server load only when serving

        return serve(options, arguments.port)
    if arguments.command == "check":
        return check(options, arguments)
    from coursesite.cache import fingerprint

    started = time.perf_counter()
    snapshot = fingerprint.take(options)  # before anything is read: see fingerprint.Snapshot
    timings = {"fingerprint": time.perf_counter() - started}
    if fingerprint.site_is_current(options, snapshot):
        if not arguments.quiet:
            print(f"{options.out} is up to date: no input changed since the last build")
        if arguments.timings:
            print_timings(timings)
        return 0
    # Imported only when there is work to do: they cost more than a no-op build.
    from coursesite.pipeline import build
    from coursesite.progress import create_progress

    try:
        with create_progress(arguments.quiet) as progress:
            result = build(options, progress, snapshot)
    except BuildErrors as problems:
        problems.report()
        return 1
    except KeyboardInterrupt:
        print("build interrupted; site not changed", file=sys.stderr)
        return 130
    report_warnings(result.warnings)
    if arguments.timings:
        print_timings(timings | result.timings)
    return 0


def print_timings(timings: dict[str, float]) -> None:
    width = max(map(len, timings), default=0)
    for stage, seconds in timings.items():
        print(f"{stage:<{width}}  {seconds:8.3f} s")
    print(f"{'total':<{width}}  {sum(timings.values()):8.3f} s")


def check(options: BuildOptions, arguments: argparse.Namespace) -> int:
    """Drift against records/, then a strict build: warnings, allowed markup only, links,
    alt text, valid HTML, and lesson pages no heavier than the page-weight limit."""
    from coursesite.execution.checkdrift import check_drift
    from coursesite.pipeline import build
    from coursesite.progress import create_progress
    from coursesite.publish.lock import forget_output_lock
    from coursesite.publish.sitecheck import (
        check_assets,
        check_links,
        check_markup,
        check_page_weight,
        kib,
        page_weights,
        validate_html,
    )
    from coursesite.publish.sitestate import forget_state

    try:
        with create_progress(arguments.quiet) as progress:
            drifts = check_drift(options, progress, arguments.accept)
        with tempfile.TemporaryDirectory(prefix="course-check-") as folder:
            site = Path(folder) / "site"
            checked = dataclasses.replace(options, out=site)
            try:
                result = build(checked, None)
            finally:
                forget_state(checked)  # the folder goes away; its state must not linger
                forget_output_lock(site)
            problems = [str(w) for w in result.warnings]
            weights = page_weights(site)
            assert result.course is not None
            limit = result.course.settings.page_weight_kib * 1024
            path = site_path(options.base_url)
            findings = check_markup(site, path) + check_assets(site) + check_links(site, path)
            findings += validate_html(site)
            problems += [str(p) for p in findings + check_page_weight(weights, limit)]
    except BuildErrors as errors:
        errors.report()
        return 1
    except KeyboardInterrupt:
        print("check interrupted; records not changed", file=sys.stderr)
        return 130
    for slug, difference in drifts:
        print(f"\n{slug}: output differs from its committed record\n{difference}")
    if not arguments.quiet:
        for weight in weights:
            print(
                f"page weight {kib(weight.compressed):>10} ({kib(weight.raw)} raw)  {weight.path}"
            )
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if arguments.accept and drifts:
        print(f"accepted: records/ updated for {len(drifts)} lesson(s); commit them")
    failed = bool(problems) or (bool(drifts) and not arguments.accept)
    if not failed:
        print(
            "check passed: no drift, no warnings, only allowed markup and clean assets, "
            "every link resolves, "
            "every image has alt text, the HTML is valid, and every lesson page weighs at most "
            f"{kib(limit)} compressed"
        )
        return 0
    if drifts and not arguments.accept:
        print(
            f"{len(drifts)} lesson(s) drifted; run `build.py check --accept` to record the "
            "new output, or fix the lesson",
            file=sys.stderr,
        )
    if problems:
        print(f"{len(problems)} problem(s) in the built site", file=sys.stderr)
    return 1


def run() -> None:
    """The `coursesite` command (and a course's build.py): main(), then a quick exit."""
    # Started with stdout or stderr closed (`coursesite >&-`), Python has None for them.
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 (for the process' life)
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Whoever read our output stopped (`coursesite --help | head -3`): end quietly, as
        # other command-line tools do, instead of with a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 141  # 128 + SIGPIPE, what a shell reports for such a pipeline
    except ModuleNotFoundError as problem:  # a Python without the generator's requirements
        status = environment_lacks(problem) if not_ours(problem) else internal_error(problem)
    except Exception as problem:  # a bug of ours: said as one, its traceback kept aside
        status = internal_error(problem)
    # Everything is written, closed and flushed by now: skip the interpreter's teardown,
    # which spends ~30 ms freeing what the build loaded (docs/benchmarks.md).
    sys.stderr.flush()
    os._exit(status)
