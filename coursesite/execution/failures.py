"""A lesson block that failed, as the author reads it: the error at the block's line, a
hint for that kind of failure in that kind of block, and what the block printed first.

The runner reports a failure as the exception's class and message, the line in the lesson
file and its traceback in lesson-file terms; here it becomes a BuildError whose hint says
what to do about *that* exception: a failed `assert` is a result the code did not reach,
a reference solution must run clean (never ':raises:'), a live value that names nothing
the lesson defines gets the names it does define.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple, Protocol

from coursesite.errors import BuildError, did_you_mean
from coursesite.execution.consequences import UNDEFINED_NAME
from coursesite.execution.devicehints import device_count_hint
from coursesite.execution.missingmodules import NO_MODULE, is_installed
from coursesite.execution.networkfailures import network_words
from coursesite.execution.oldcodehints import old_code_hint
from coursesite.importers.hostedmodules import hosted_hint, hosted_only

PRINTED_LINES = 20  # of what the failed block printed, shown under the error


class FailedJob(Protocol):
    """What of a lesson's job (execute.LessonJob) a failure's message needs."""

    @property
    def labels(self) -> dict[str, str]: ...
    @property
    def memory_mb(self) -> int: ...
    @property
    def solution_ids(self) -> list[str]: ...
    @property
    def step_lines(self) -> dict[str, int]: ...
    @property
    def path(self) -> Path: ...


def failure_error(failure: dict, result: dict, job: FailedJob) -> BuildError:
    """The BuildError for the runner's `failure` in `result` (its job.json's outcome)."""
    block = failure["block"]
    message = failure["message"]
    detail = [failure["traceback"]] if failure["traceback"] else []
    printed = _printed_before(result, block)
    if printed:
        detail.append(f"what it printed before it failed:\n{printed}")
    return BuildError(
        f"{job.labels.get(block, 'prose')} failed: {message}{network_words(failure, job.labels)}",
        job.path,
        failure["line"],
        hint=_spawn_hint(result, block) or _hint(failure, job),
        detail="\n".join(detail) or None,
    )


# The frame of multiprocessing in which a process it started the spawn way runs the script
# again, in the traceback the process writes as it fails.
_RERUN_SCRIPT = "in _fixup_main_from_path"


def _spawn_hint(result: dict, block: str) -> str:
    """For a block whose code started processes the spawn way (dask.distributed's
    Client() and LocalCluster(), a spawn or forkserver multiprocessing context): each new
    process runs main.py again from its top, as it does for any script and does not in a
    notebook's kernel, and failed as it started. Said from what the block wrote to stderr:
    the exception it ended with is the library's own ("Nanny failed to start")."""
    if _RERUN_SCRIPT not in (_block_output(result, block).get("stderr") or ""):
        return ""
    return (
        "the code starts Python processes the 'spawn' way (dask.distributed's Client() and "
        "LocalCluster() do), and each runs main.py again from its top, as it does for any "
        "script (a notebook's kernel has no script to run): start no processes (dask: "
        "Client(processes=False) runs its workers as threads), or start them with "
        "multiprocessing.get_context('fork')"
    )


def _hint(failure: dict, job: FailedJob) -> str:
    message, block = failure["message"], failure["block"]
    exception = _exception_class(message)
    if exception == "MemoryError":
        return (
            f"the lesson may use at most {job.memory_mb} MB "
            "(settings.memory_limit_mb in lessons.yaml)"
        )
    if block == "live-values":
        return _live_value_hint(message, failure.get("names", []))
    if hint := CHECK_HINTS.get(failure.get("kind", "")):
        return hint
    if failure.get("network"):
        return NETWORK_HINT
    solution = block in job.solution_ids
    if exception == "AssertionError":
        if solution:
            return (
                "the reference solution fails its own check: fix the solution, which must "
                "run and pass (the traceback shows the assert)"
            )
        return (
            "an assert failed: the code did not produce what the assert expects; the "
            "traceback shows which, and the output it printed first is below"
        )
    if solution:
        return (
            f"the reference solution must run without error: fix what raised {exception}"
            if exception
            else "the reference solution must run without error: fix it"
        )
    if library := (
        _library_hint(failure)
        or device_count_hint(message)
        or _keyword_hint(failure)
        or old_code_hint(message)
        or _retired_hint(failure)
        or _keyboard_hint(failure)
    ):
        return library
    if undefined := UNDEFINED_NAME.match(message):
        return (
            f"nothing that ran before this line defines {undefined.group(1)}: fix the name, or "
            "import or define it in an earlier step (a notebook may have had it from a cell "
            "run elsewhere, or from its kernel); if raising NameError is what this block "
            "shows, declare it: ':raises: NameError' on the line after the block's opening line"
        )
    declare = (
        f"if raising {exception} is what this block shows, declare it: "
        f"':raises: {exception}' on the line after the block's opening line"
    )
    if (missing_file := _RELATIVE_MISSING.match(message)) and _RUN_PROGRAM in failure.get(
        "traceback", ""
    ):
        return (
            f"the code runs the program {missing_file.group(1)}, which the machine that builds "
            "the site does not have: install it there, or show the code without running it, "
            f"in a ```python norun fence; {declare}"
        )
    if missing_file:
        return (
            "the lesson's code runs in a folder of its own, which holds only the files the "
            f"front matter lists (files:): save {missing_file.group(1)} beside the lesson and "
            "list it there (a folder: each of its files), or make the code create it before "
            f"this line; {declare}"
        )
    if (declared := failure.get("declared")) and exception:
        return (
            f"the block declares ':raises: {declared}', and raised {exception} instead (another "
            "version of a library may raise another exception for the same failure, as a "
            f"notebook's stored run shows): if {exception} is what it shows, write "
            f"':raises: {exception}' in its place; else fix the code"
        )
    return f"fix the code; {declare}" if exception else "fix the code"


# The frame of subprocess that starts a program: a missing file there is the program.
_RUN_PROGRAM = "in _execute_child"
# A relative path the code could not open: it runs where only the files: are.
_RELATIVE_MISSING = re.compile(
    r"(?:FileNotFoundError|OSError): \[Errno 2\] No such file or directory: '((?![/~])[^']+)'"
)


# The runner marks a failure the network caused (networkerrors.py).
NETWORK_HINT = (
    "the machine that builds the site may have no network, and a server may refuse, move "
    "or change what it sends: save the data beside the lesson, list it in the front "
    "matter's files: and read it from there; or show the code without running it, in a "
    "```python norun fence"
)


# A check is proved as the lesson's check.py runs it: main.py, then one file, then the check.
CHECK_HINTS = {
    "check-after-solution": (
        "the check runs after main.py and the reference solution alone, as a learner's "
        "check.py runs it (no experiment or other exercise ran): fix the check, or the "
        "solution if it uses names only those define"
    ),
    "check-after-starter": (
        "assert what the task asks for, which the starter scaffold does not do yet: a check "
        "must fail until the learner's code is right"
    ),
}


class Lacked(NamedTuple):
    """What an installed package lacks that the code uses: `package` (its top module) and
    `name`, dotted (`jax.core.Primitive`, or a module: `jaxlib.mhlo_helpers`)."""

    package: str
    name: str


def lacked_by_installed(failure: dict) -> Lacked | None:
    """The name an installed package no longer (or not yet) has, if `failure` fails on one,
    as code written for another of its versions meets (an imported tutorial, often). A
    class's missing attribute is found on the failing line the traceback quotes, its module
    through the names the lesson imported (`failure["aliases"]`: `ocp` for orbax's v1)."""
    message = failure["message"]
    if missing := NO_MODULE.match(message):
        dotted = missing.group(1)
        module, _, inner = dotted.partition(".")
        if inner and not hosted_only(dotted) and is_installed(module):
            return Lacked(module, dotted)
        return None
    # Python's words, or a package's own module type's (Flax: "Module flax.nnx has no ...").
    if absent := re.match(
        r"AttributeError: [Mm]odule '?([\w.]+)'? has no attribute '(\w+)'", message
    ):
        module, name = absent.groups()
    elif absent := re.match(r"ImportError: cannot import name '(\w+)' from '([\w.]+)'", message):
        name, module = absent.groups()
    elif absent := re.match(
        r"AttributeError: type object '(?:[\w.]+\.)?(\w+)' has no attribute '(\w+)'", message
    ):  # the class's own name, which a type of C qualifies with its module
        return _called_on_installed(failure, f"{absent[1]}.{absent[2]}", r"\b")
    elif absent := re.match(r"AttributeError: '[\w.]+' object has no attribute '(\w+)'", message):
        return _instance_of_installed(failure, absent[1])
    else:
        return None
    return Lacked(module.split(".")[0], f"{module}.{name}")


def _called_on_installed(failure: dict, dotted: str, after: str) -> Lacked | None:
    """The installed package whose `dotted` name (`Class.attribute`) the failing line the
    traceback quotes reaches through a module (`ocp.options.Class.attribute`), followed by
    `after`; the full name, with the module the lesson's alias stands for."""
    found = re.search(
        rf"\b([A-Za-z_][\w.]*)\.{re.escape(dotted)}{after}", failure.get("traceback") or ""
    )
    if not found:
        return None
    head, _, rest = found.group(1).partition(".")
    module = ".".join(filter(None, [failure.get("aliases", {}).get(head, head), rest]))
    package = module.split(".")[0]
    return Lacked(package, f"{module}.{dotted}") if is_installed(package) else None


def _instance_of_installed(failure: dict, name: str) -> Lacked | None:
    """An installed package's object that lacks `name` where the lesson's line asks for it
    (runner: `attribute_of`, which leaves out a name close to one it has: a typo)."""
    owner = failure.get("attribute_of") or ""
    package = owner.partition(".")[0]
    if not owner or not _third_party(package):
        return None
    return Lacked(package, f"{owner.rpartition('.')[2]}.{name}")


def _third_party(module: str) -> bool:
    """Whether `module` is an installed distribution's: not the lesson's own, nor Python's."""
    import importlib.util
    import sys

    if module in sys.stdlib_module_names or module in ("__main__", "builtins"):
        return False
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    origin = (spec.origin or "") if spec else ""
    return "site-packages" in origin or "dist-packages" in origin


def _library_hint(failure: dict) -> str:
    """For what the environment, not the code, lacks: a package that is not installed, or
    a name an installed package lacks (lacked_by_installed). The traceback names the
    installed library that imported a missing module as it ran, when one did."""
    message, traceback = failure["message"], failure.get("traceback", "")
    if lacked := lacked_by_installed(failure):
        noun = "module " if "No module named" in message else ""
        return (
            f"the installed {lacked.package} has no {noun}{lacked.name}: "
            f"{_another_version(lacked.package)}"
        )
    if missing := NO_MODULE.match(message):
        dotted = missing.group(1)
        module = dotted.partition(".")[0]
        if hosted_only(dotted):
            return hosted_hint(dotted)
        importer = _importing_library(traceback, module)
        return (
            f"{module} is not installed where the site is built"
            + (
                f" ({importer} imports it as it runs, without asking pip for it)"
                if importer
                else ""
            )
            + f": install its package there (pip install {module}, or its distribution's "
            "name) and build again"
        )
    return ""


# A library saying that what the code asks of it is gone: Flax's "In-place operations are
# no longer supported for Variable", "... has been removed", "... is deprecated".
_RETIRED = re.compile(
    r"\bno longer (?:supported|available|allowed|accepted)\b|\bhas been removed\b|"
    r"\bwas removed\b|\bis deprecated\b|\bhas been deprecated\b|"
    r"\bchanged in (?:[\w-]+ )?version \d",  # Optimistix: "this changed in ... version 0.1.0"
    re.I,
)


def _retired_hint(failure: dict) -> str:
    """For a library that raised because the code asks what its installed version retired."""
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    if not frames or not _RETIRED.search(failure["message"]):
        return ""
    return (
        f"the installed {frames[-1]} says it no longer does what this line asks: the code was "
        f"written for an older version of {installed_version(frames[-1])}; change it as the "
        "message says, or install the version it was written for"
    )


# Where Python reads the keyboard: input() ends with EOFError when nobody can type.
_KEYBOARD = re.compile(r"\bin (?:_raw_input|unix_getpass|win_getpass|fallback_getpass)\b|\binput\(")


def _keyboard_hint(failure: dict) -> str:
    """For code that waits for someone to type (input(), a library's login prompt): a
    notebook has a person at its keyboard; a build has none, and stdin is empty."""
    if not failure["message"].startswith("EOFError") or not _KEYBOARD.search(
        failure.get("traceback") or ""
    ):
        return ""
    return (
        "the code waits for someone to type (input(), or a login prompt that asks for a "
        "password or token), and a build has no keyboard: give the value another way (an "
        "environment variable the code reads, a file listed in the front matter's files:), "
        "or show the step without running it, in a ```python norun fence"
    )


_LIBRARY_FRAME = re.compile(r'File "[^"]*[/\\]site-packages[/\\](\w+)[/\\]')


def _importing_library(traceback: str, module: str) -> str:
    """The installed package whose code the traceback last ran in, unless it is `module`'s
    own: the library that imported it (TFDS imports importlib_resources lazily)."""
    frames = _LIBRARY_FRAME.findall(traceback)
    library = frames[-1] if frames else ""
    return library if library != module else ""


_UNEXPECTED_KEYWORD = re.compile(
    r"TypeError: ([\w.]+?)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'"
)


def keyword_drift(failure: dict) -> Lacked | None:
    """The installed package whose function or class does not take (yet, or any more) a
    keyword the lesson's call passed: `jax.vjp(f, x, saveable_args=...)`, written for a
    newer jax. Found on the failing line the traceback quotes, by the dotted name it was
    called by; else, when it was raised inside an installed package the call went through
    (Orbax's save_pytree handing `pytree=` on to its save), that package."""
    unexpected = _UNEXPECTED_KEYWORD.match(failure["message"])
    if not unexpected:
        return None
    function, keyword = unexpected.groups()
    if (called := _called_on_installed(failure, function, r"\(")) is not None:
        return Lacked(called.package, f"{called.name}({keyword}=)")
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    return Lacked(frames[-1], f"{function}({keyword}=)") if frames else None


def _keyword_hint(failure: dict) -> str:
    if (drift := keyword_drift(failure)) is None:
        return ""
    function, _, keyword = drift.name.rstrip("=)").partition("(")
    return (
        f"{function} of the installed {drift.package} takes no keyword {keyword}: "
        f"{_another_version(drift.package)}"
    )


def _another_version(package: str) -> str:
    """What to do about code written for another version of an installed `package`."""
    return (
        f"the code was written for another version of {installed_version(package)}; write it "
        "for the version installed (the page's setup help lists it), or install the version "
        "the code needs"
    )


def installed_version(module: str) -> str:
    """`grain (installed: 0.2.18)`, `Python (installed: 3.11.7)` for the standard library,
    or the module's name alone when no installed distribution says."""
    import importlib.metadata
    import platform
    import sys

    if module in sys.stdlib_module_names:
        return f"Python (installed: {platform.python_version()})"
    for distribution in importlib.metadata.packages_distributions().get(module, []):
        try:
            return f"{distribution} (installed: {importlib.metadata.version(distribution)})"
        except importlib.metadata.PackageNotFoundError:
            continue
    return module


def _live_value_hint(message: str, names: list[str]) -> str:
    missing = UNDEFINED_NAME.search(message)
    if missing:
        found = did_you_mean(missing.group(1), names)
        defined = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        return f"a live value may use only names the lesson's code defines{found}" + (
            f": {defined}" if defined and not found else ""
        )
    if "characters long" in message:
        return "show something short in prose: a count, a summary, or the first few items"
    return "fix the expression in {value}`...`: it runs after every block, in their namespace"


def _exception_class(message: str) -> str:
    """'NameError' of 'NameError: name ...'; '' for messages that are not an exception's."""
    match = re.match(r"([A-Za-z_][\w.]*)(?::|$)", message)
    return match.group(1) if match else ""


def _block_output(result: dict, block: str) -> dict:
    """The output the run recorded for `block` (its last, for a block run again), or {}."""
    outputs = [output for output in result.get("blocks", []) if output.get("id") == block]
    return outputs[-1] if outputs else {}


def _printed_before(result: dict, block: str) -> str:
    """The last lines of what the failed block printed, if anything."""
    text = (_block_output(result, block).get("stdout") or "").rstrip("\n")
    lines = text.splitlines()
    if len(lines) > PRINTED_LINES:
        lines = [f"[... {len(lines) - PRINTED_LINES} earlier lines]", *lines[-PRINTED_LINES:]]
    return "\n".join(lines)


NONDETERMINISM_HINT = (
    "the same steps printed something else on a second run: seed every random generator "
    "(np.random.default_rng(0), random.seed(0), jax.random.key(0)), print no object "
    "addresses, ids, dates or times (main.py runs with its clock 400 days ahead to find "
    "them), or mark lines that must vary with `volatile:` in the front matter"
)


def main_py_drift_error(
    job: FailedJob, outputs: dict[str, str], lines: tuple[list[str], list[str]], difference: str
) -> BuildError:
    """The error for a `python main.py` run whose output (`lines[1]`) differs from the
    build steps' (`lines[0]`), at the step whose output it first differs in. `outputs` is
    each step's recorded stdout, by block id, in main.py's order."""
    expected, actual = lines
    first = next(
        (i for i, pair in enumerate(zip(expected, actual, strict=False)) if pair[0] != pair[1]),
        min(len(expected), len(actual)),
    )
    step, start = _step_at(outputs, first)
    where = ""
    if step is not None:
        before = expected[first] if first < len(expected) else "(nothing)"
        after = actual[first] if first < len(actual) else "(nothing)"
        where = (
            f", first in the output of {job.labels.get(step, step)}, its line "
            f"{first - start + 1}: {before!r} became {after!r}"
        )
    return BuildError(
        f"the downloadable main.py prints something else than the build steps did{where}",
        job.path,
        job.step_lines.get(step) if step is not None else None,
        hint=NONDETERMINISM_HINT,
        detail=difference,
    )


def _step_at(outputs: dict[str, str], line: int) -> tuple[str | None, int]:
    """The step whose recorded output holds output line `line`, and that output's first
    line; the last step when `line` is past them all (main.py printed more)."""
    start = 0
    last: tuple[str | None, int] = (None, 0)
    for step, text in outputs.items():
        last = (step, start)
        start += len(text.splitlines())
        if line < start:
            break
    return last
