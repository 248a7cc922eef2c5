"""Runs one lesson's blocks inside a fresh interpreter; started by execute.py.

    python runner.py job.json result.json

This file is a standalone script: it imports nothing from the generator but its companions
lessonoutputs.py (figures, rich displays), fdcapture.py (a block's stdout and stderr,
what child processes write to fd 1 and 2 included), lessondisplays.py (the builtin
display()), networkerrors.py, lessonreceipt.py (packages and devices) and failingcall.py
(what a failing line used of a library), loaded from beside it, so the lesson's process
holds only the lesson's own modules. Each block is compiled under the lesson's Markdown
path, padded so that its line numbers are lines of that file; tracebacks therefore point
into the .md file the author edits.
"""

import __future__

import ast
import contextlib
import dataclasses
import importlib.util
import io
import json
import linecache
import os
import platform
import pprint
import sys
import sysconfig
import time
import traceback
import types
from datetime import UTC, datetime
from typing import ClassVar


def _companion(name):
    """A module beside this script, loaded by its path under a name no lesson uses: the
    lesson's own folder comes first on sys.path, and its modules may have any name."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_coursesite_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


leftovers = _companion("lessonoutputs")  # what blocks leave besides text
streams = _companion("fdcapture")  # a block's stdout and stderr, fd 1 and 2 too
CappedOutput, BLOCK_STDOUT, BLOCK_STDERR = (
    streams.CappedOutput,
    streams.BLOCK_STDOUT,
    streams.BLOCK_STDERR,
)
network = _companion("networkerrors")  # whether a failure is the network's
receipt = _companion("lessonreceipt")  # which packages and devices the run used
failing = _companion("failingcall")  # what the failing line used of a library
_companion("wholeprints").install()  # a print() from a thread never splits another's line
_companion("programlimits").install()  # Chrome, started by a lesson, needs no backstop
# display(), a builtin in a notebook: what a block displays on lines before its last
displays = _companion("lessondisplays").DisplayRecorder(
    BLOCK_STDOUT,
    leftovers.rich_representations,
    leftovers.kept_bundle,
    leftovers.RICH_LIMIT_FACTOR,
)


def main(job_path, result_path):
    # The lesson may change the current folder; the result still goes where it is expected.
    job_path, result_path = os.path.abspath(job_path), os.path.abspath(result_path)
    # Import from the lesson's working folder (its local modules), not from this script's.
    sys.path[0] = os.getcwd()
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    source = job["source_path"]
    text = job["source_text"]
    linecache.cache[source] = (len(text), None, text.splitlines(True), source)
    leftovers.use_figure_defaults(os.path.join(os.path.dirname(job_path), "figures.matplotlibrc"))
    namespace = become_main_py()
    displays.install()
    sys.stdout, sys.stderr = BLOCK_STDOUT, BLOCK_STDERR
    started = time.perf_counter()
    limit = job["output_limit"]
    program = [block for block in job["blocks"] if block["program"]]
    failures: list[dict] = []
    outputs = run_every_block(program, namespace, source, limit, failures)
    # The checks start from what main.py defined, as check.py does; they run last, so that
    # what they do to files does not change what the blocks after main.py show.
    after_main_py = dict(namespace)
    rest = [block for block in job["blocks"] if not block["program"]]
    outputs += run_every_block(rest, namespace, source, limit, failures, ran=outputs)
    failure = failures[0] if failures else None
    if failure is None:
        failure = prove_checks(job, after_main_py, source, limit)
    values = {}
    if failure is None:
        values, failure = evaluate_values(job["values"], namespace)
    devices, platforms = receipt.device_receipt(job["probes"])
    result = {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "packages": receipt.package_versions(job["packages"]),
        "devices": devices,
        "platforms": platforms,
        "wall_seconds": round(time.perf_counter() - started, 3),
        "host": platform.node(),
        "blocks": outputs,
        "values": values,
        "failure": failure,  # the first: what the warm preview and the checks go by
        "failures": failures,  # every failed block's, in the order they ran
    }
    write_json(result_path, encodable(result))
    return namespace  # the warm preview runs edited blocks in it again (warmrunner.py)


def encodable(value):
    """`value` with no lone surrogate left in its text: Python strings may hold them (a
    print of '\\udcff'), UTF-8 pages cannot. They become what `python main.py` writes for
    them, decoded as the build decodes it: U+FFFD, or '?' where no byte stands for one."""
    if isinstance(value, str):
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {encodable(key): encodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [encodable(item) for item in value]
    return value


def become_main_py():
    """The namespace of a module that is `__main__`, as `python main.py` would give it.

    Pickle finds a class or function by its module, and `multiprocessing` starts workers
    that look for them in `__main__`; argparse reads sys.argv. All of them must see the
    lesson, not this runner.
    """
    lesson = types.ModuleType("__main__")
    lesson.__file__ = os.path.join(os.getcwd(), "main.py")
    sys.modules["__main__"] = lesson
    sys.argv = ["main.py"]
    return lesson.__dict__


def run_blocks(blocks, namespace, source, limit):
    """Each block's output, in order, up to the first that fails; and that failure. The
    warm preview's reruns use it: once a block fails they show nothing, so none runs on."""
    outputs = []
    for block in blocks:
        output, failure = run_block(block, namespace, source, limit)
        outputs.append(output)
        if failure:
            return outputs, failure
    return outputs, None


def run_every_block(blocks, namespace, source, limit, failures, ran=()):
    """Each block's output, in order; each failure is added to `failures` and written to
    FAILURES_SO_FAR as it happens. A failed block does not stop the blocks after it, as a
    notebook's "run all" that goes on after errors: one build shows every block that
    fails; should a later one never end (or end the process), the build still reports the
    failures before it from that file (execute.py)."""
    outputs: list[dict] = []
    for block in blocks:
        # Which block starts, and how long each before it took (`ran`: the blocks run
        # before these): a run stopped or crashed is reported at its step (runningblock.py).
        done = [[output["id"], output["seconds"]] for output in [*ran, *outputs]]
        write_json(RUNNING_BLOCK, {"block": block["id"], "done": done})
        output, failure = run_block(block, namespace, source, limit)
        outputs.append(output)
        if failure:
            failures.append(failure)
            write_json(FAILURES_SO_FAR, encodable(failures))
    return outputs


FAILURES_SO_FAR = os.path.abspath("failures-so-far.json")  # in the run's folder, as result.json
RUNNING_BLOCK = os.path.abspath("running-block.json")


def write_json(path, data):
    """`data` as JSON at `path`, whole or not at all: the build may read it at any time."""
    with open(path + ".part", "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(path + ".part", path)


def prove_checks(job, namespace, source, limit):
    """The failure of the first check that does not tell a finished attempt from a
    starter, or None.

    Each runs as the lesson's check.py runs it: after main.py alone (`namespace` is what
    the program blocks defined), in a copy of that namespace. It must pass after the
    reference solution and fail (raise anything) after the starter code.
    """
    solutions = {block["id"]: block for block in job["blocks"]}
    for attempt in job["attempts"]:
        solution = solutions[attempt["solution"]]
        error = checked_attempt(solution, attempt["check"], namespace, source, limit)
        if error is not None:
            failure = describe_failure(error, source, {**solution, "id": attempt["id"]})
            failure["message"] = f"it fails after the reference solution: {failure['message']}"
            failure["kind"] = "check-after-solution"
            return failure
        if checked_attempt(attempt["starter"], attempt["check"], namespace, source, limit) is None:
            return {
                "block": attempt["id"],
                "line": attempt["check"]["line"],
                "traceback": "",
                "message": "it passes on the starter scaffold, so a learner who changed "
                "nothing would read PASS",
                "kind": "check-after-starter",
            }
    return None


def checked_attempt(attempt, check, namespace, source, limit):
    """What `attempt` then `check` raised, run in a copy of `namespace`; None if nothing.
    What they print and draw belongs to no block and is dropped."""
    trial = dict(namespace)
    dropped = CappedOutput(limit)
    with BLOCK_STDOUT.writing_to(dropped), BLOCK_STDERR.writing_to(dropped):
        try:
            for part in (attempt, check):
                body, last = split_display(part["code"], part["line"], source)
                exec(body, trial)
                if last is not None:
                    eval(last, trial)
        except BaseException as error:  # SystemExit too: a lesson must not end the build
            return error
        finally:
            leftovers.capture_figures()
    return None


class NotebookPrinter(pprint.PrettyPrinter):
    """pprint laid out as IPython's pretty printer lays a long list, tuple, dict or set
    out (an item a line, at 79 characters), but for strings, which IPython never splits."""

    _dispatch: ClassVar[dict] = {
        shown: printer
        for shown, printer in pprint.PrettyPrinter._dispatch.items()  # type: ignore[attr-defined]
        if shown not in (str.__repr__, bytes.__repr__, bytearray.__repr__)
    }


def shown_value(value: object) -> str:
    """A cell's last value as a notebook shows it: its repr, a long container broken over
    lines as IPython does; a dataclass by its repr, which pprint would lay out by field."""
    if dataclasses.is_dataclass(value):
        return repr(value)
    return NotebookPrinter(width=79, sort_dicts=False).pformat(value)


def run_block(block, namespace, source, limit):
    stdout, stderr, display = CappedOutput(limit), CappedOutput(limit), CappedOutput(limit)
    body, last = split_display(block["code"], block["line"], source)
    raised, failure, bundle = None, None, {}
    started = time.perf_counter()
    displays.begin(limit)
    with BLOCK_STDOUT.writing_to(stdout), BLOCK_STDERR.writing_to(stderr):
        try:
            exec(body, namespace)
            if last is not None:
                value = eval(last, namespace)
                if value is not None:
                    display.write(shown_value(value))
                    bundle, problem = leftovers.rich_representations(
                        value, leftovers.RICH_LIMIT_FACTOR * limit
                    )
                    if problem:
                        failure = _plain_failure(block, problem)
        except BaseException as error:  # SystemExit too: a lesson must not end the build
            raised = {"type": type(error).__name__, "message": str(error)}
            if not declared(error, block["raises"]):
                failure = describe_failure(error, source, block)
    seconds = time.perf_counter() - started
    shown, problem = displays.finish(stdout.getvalue(), encodable)
    if failure is None and problem:
        failure = _plain_failure(block, problem)
    if failure is None and block["raises"] and raised is None:
        failure = _plain_failure(block, f"expected {block['raises']} to be raised, but nothing was")
    captured, problem = leftovers.capture_figures()
    if failure is None and problem:
        failure = _figure_failure(block, problem, source)
    figure = namespace.pop("figure", None) if block["is_figure"] else None
    if failure is None and block["is_figure"]:
        figure, problem = leftovers.plain_figure(figure)
        if problem:
            failure = _plain_failure(block, problem)
    output = {
        "id": block["id"],
        "stdout": stdout.getvalue(),
        "stderr": without_install_paths(stderr.getvalue()),
        "display": display.getvalue(),
        "display_bundle": bundle,
        "displays": shown,  # where display() wrote in stdout, with each value's bundle
        "raised": raised,
        "figure": figure,
        "captured_svgs": captured,
        "seconds": round(seconds, 4),
    }
    return output, failure


# Where this Python's libraries are installed, longest first: a library's warning names its
# file by that path (`/home/me/.venv/lib/python3.11/site-packages/orbax/...py:1027:
# UserWarning`), which says where the site was built, not what the lesson shows.
_INSTALL_PATHS = sorted(
    {
        os.path.join(sysconfig.get_path(name), "")
        for name in ("purelib", "platlib", "stdlib", "platstdlib")
    },
    key=len,
    reverse=True,
)


def without_install_paths(text):
    """`text` with each library file named by its path within the installation."""
    for path in _INSTALL_PATHS:
        text = text.replace(path, "")
    return text


def _plain_failure(block, message):
    """A failure at the block's first line, with no traceback: the block ran, but what it
    left cannot be shown (a figure Cartopy draws may read the network as it is saved)."""
    where = {"block": block["id"], "line": block["line"], "traceback": ""}
    return {**where, "message": message, "network": network.quotes_the_network(message)}


def _figure_failure(block, problem, source):
    """A figure the block drew that cannot be saved: at the line of the lesson's own code
    the error passed through (an artist's draw method), with its traceback for the hints."""
    error = getattr(problem, "error", None)
    if error is None:
        return _plain_failure(block, problem)
    return {**describe_failure(error, source, block), "message": str(problem)}


# The `from __future__` features earlier blocks turned on: as in a kernel (and in main.py,
# which holds them at its top), they hold for every block after.
future_flags = 0


def split_display(code, line, source):
    """The block compiled as (statements, last expression or None), as IPython runs a cell.

    A block whose last statement is a bare expression displays its value: that statement is
    compiled apart, in 'eval' mode, unless its line ends with `;`. Both parts keep the line
    numbers of the lesson's Markdown file: the code is padded to start on its own line.
    """
    global future_flags
    padded = "\n" * (line - 1) + code
    tree = ast.parse(padded, source, "exec")
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                feature = getattr(__future__, alias.name, None)
                future_flags |= feature.compiler_flag if feature else 0
    if not tree.body or not isinstance(tree.body[-1], ast.Expr) or silenced(padded, tree.body[-1]):
        return compile(tree, source, "exec", future_flags, True), None
    last = ast.Expression(tree.body.pop().value)
    return (
        compile(tree, source, "exec", future_flags, True),
        compile(last, source, "eval", future_flags, True),
    )


def silenced(padded, statement):
    """Whether a `;` follows the bare expression `statement` on its last line."""
    end_line = padded.splitlines()[statement.end_lineno - 1]
    after = end_line.encode("utf-8")[statement.end_col_offset :].decode("utf-8")
    return after.lstrip().startswith(";")


LIVE_VALUE_LIMIT = 2_000  # characters of one value shown in a sentence


def evaluate_values(requests, namespace):
    """The text of each live value, or the failure of the first that cannot be computed."""
    values = {}
    for request in requests:
        expression = request["expression"]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                values[expression] = str(eval(expression, namespace))
        except Exception as error:
            return values, {
                "block": "live-values",
                "line": request["line"],
                "traceback": "",
                "message": f"live value `{expression}` failed: {type(error).__name__}: {error}",
                # what it could have named instead, for the build's "did you mean"
                "names": sorted(
                    name
                    for name, value in namespace.items()
                    if not name.startswith("_") and not isinstance(value, types.ModuleType)
                ),
            }
        if len(values[expression]) > LIVE_VALUE_LIMIT:
            return values, {
                "block": "live-values",
                "line": request["line"],
                "traceback": "",
                "message": f"live value `{expression}` is "
                f"{len(values[expression]):,} characters long; prose "
                f"shows at most {LIVE_VALUE_LIMIT:,}",
            }
    return values, None


def declared(error, expected):
    """Whether `error` is an instance of the exception class named `expected`."""
    if not expected or isinstance(error, (SystemExit, KeyboardInterrupt)):
        return False
    return any(
        expected in (cls.__name__, f"{cls.__module__}.{cls.__qualname__}")
        for cls in type(error).__mro__
    )


def describe_failure(error, source, block):
    frames = traceback.extract_tb(error.__traceback__)[1:]  # drop this runner's exec frame
    in_lesson = [frame.lineno for frame in frames if frame.filename == source]
    if isinstance(error, SystemExit):
        message = f"the code called sys.exit({error.code!r}); lesson code must not exit"
    else:  # a bare `assert` has no message: its class alone, not "AssertionError: "
        message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    formatted = traceback.format_list(frames) + traceback.format_exception_only(error)
    return {
        "block": block["id"],
        "line": in_lesson[-1] if in_lesson else block["line"],
        "message": message,
        "traceback": "Traceback (most recent call last):\n" + "".join(formatted),
        "network": network.read_the_network(error),
        "attribute_of": failing.attribute_owner(error, frames, source),
        "called": failing.refused_call(error, source),
        "while_missing": handled_missing(error),
        "declared": block.get("raises") or "",  # what it should have raised instead
        "positions": [
            [f.lineno, f.colno, f.end_lineno, f.end_colno] for f in frames if f.filename == source
        ],
    }


def handled_missing(error):
    """The failed import the lesson's own error was raised while handling (`except
    ImportError: raise ImportError("needs pydot")`), which that error's traceback does not
    show, as Python words it ("ModuleNotFoundError: No module named 'pydot'"); '' for none."""
    seen = error.__cause__ or error.__context__
    for _ in range(8):  # a chain is short; a cycle must not hang the run
        if seen is None:
            return ""
        if isinstance(seen, ModuleNotFoundError):
            return f"ModuleNotFoundError: {seen}"
        seen = seen.__cause__ or seen.__context__
    return ""


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    # Everything is recorded. An ordinary exit would now spend ~0.17 s tearing down JAX and
    # Grain, on the build's critical path; nothing it could still print would be recorded.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
