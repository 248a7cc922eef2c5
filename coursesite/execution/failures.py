"""A lesson block that failed, as the author reads it: the error at the block's line, a
hint for that kind of failure in that kind of block, and what the block printed first.

The runner reports a failure as the exception's class and message, the line in the lesson
file and its traceback in lesson-file terms; here it becomes a BuildError whose hint says
what to do about *that* exception: a failed `assert` is a result the code did not reach,
a reference solution must run clean (never ':raises:'), a live value that names nothing
the lesson defines gets the names it does define.
"""

from __future__ import annotations

import difflib
import itertools
import re
from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError, did_you_mean
from coursesite.execution.consequences import UNDEFINED_NAME, missing_path
from coursesite.execution.devicehints import device_count_hint, no_gpu_hint
from coursesite.execution.executionrecord import literal_pattern
from coursesite.execution.installedlibraries import (
    asked_browser_hint,
    asked_install_hint,
    installed_version,
    keyword_hint,
    library_arguments_hint,
    library_hint,
    raised_inside_hint,
    refused_arguments_hint,
    refused_call_hint,
    retired_hint,
    traced_libraries,
)
from coursesite.execution.lessonprocess import LESSON_FOLDER, RUN_FOLDER
from coursesite.execution.networkfailures import network_words
from coursesite.execution.oldcodehints import (
    old_code_hint,
    positional_key_hint,
    unpacking_hint,
)

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
    @property
    def stored_runs(self) -> dict[str, str]: ...


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
    """The first of the hint rules that has something to say about `failure`, in order:
    what the build imposes (memory, checks, the network), what a reference solution must
    do, what the installed libraries lack, and last what the code itself got wrong."""
    for rule in _HINT_RULES:
        if hint := rule(failure, job):
            return hint
    return _code_hint(failure)


def _memory_hint(failure: dict, job: FailedJob) -> str:
    if _exception_class(failure["message"]) != "MemoryError":
        return ""
    return (
        f"the lesson may use at most {job.memory_mb} MB (settings.memory_limit_mb in lessons.yaml)"
    )


def _build_hint(failure: dict, job: FailedJob) -> str:
    """For what only a build asks: a live value, a check run as the learner runs it."""
    if failure["block"] == "live-values":
        return _live_value_hint(failure["message"], failure.get("names", []))
    if hint := CHECK_HINTS.get(failure.get("kind", "")):
        return hint
    return NETWORK_HINT if failure.get("network") else ""


def _machine_hint(failure: dict, job: FailedJob) -> str:
    """For what the machine that builds the site lacks, whatever the code raised (an
    assert that a GPU is there fails for the machine, not the code): a GPU, a program."""
    message = failure["message"]
    return no_gpu_hint(failure) or next(
        (hint for said, hint in _MISSING_PROGRAMS.items() if said in message), ""
    )


def _assert_hint(failure: dict, job: FailedJob) -> str:
    if _exception_class(failure["message"]) != "AssertionError":
        return ""
    if failure["block"] in job.solution_ids:
        return (
            "the reference solution fails its own check: fix the solution, which must "
            "run and pass (the traceback shows the assert)"
        )
    return (
        "an assert failed: the code did not produce what the assert expects; the "
        "traceback shows which, and the output it printed first is below"
    )


def _solution_hint(failure: dict, job: FailedJob) -> str:
    if failure["block"] not in job.solution_ids:
        return ""
    exception = _exception_class(failure["message"])
    return "the reference solution must run without error: " + (
        f"fix what raised {exception}" if exception else "fix it"
    )


def _environment_hint(failure: dict, job: FailedJob) -> str:
    """For what the environment, not the code, lacks or has otherwise: a package, a
    version, a device count, a keyboard."""
    message = failure["message"]
    return (
        old_code_hint(message)
        or positional_key_hint(failure)
        or unpacking_hint(failure)
        or library_hint(failure)
        or asked_install_hint(failure)
        or asked_browser_hint(failure)
        or device_count_hint(message)
        or keyword_hint(failure)
        or refused_call_hint(failure)
        or retired_hint(failure)
        or refused_arguments_hint(failure)
        or _keyboard_hint(failure)
    )


# Programs a library runs that the machine that builds the site lacks, in the library's
# words: no pip install brings them.
_MISSING_PROGRAMS = {
    "because latex could not be found": (  # Matplotlib, told text.usetex
        "Matplotlib is told to set text with LaTeX (text.usetex), and the machine that "
        "builds the site has no `latex` program: install TeX Live there (Debian: "
        "texlive-latex-extra cm-super dvipng), or turn usetex off and let Matplotlib's "
        "mathtext draw the $...$ labels (`build.py import` does so where latex is missing)"
    ),
    "make sure the Graphviz executables are on your systems' PATH": (  # graphviz's package
        "the graphviz package draws with Graphviz's `dot` program, which the machine that "
        "builds the site lacks (pip installs the package, not the program): install "
        "Graphviz there (Debian: graphviz), or show the drawing's step without running it, "
        "in a ```python norun fence"
    ),
}


def _undefined_hint(failure: dict, job: FailedJob) -> str:
    if not (undefined := UNDEFINED_NAME.match(failure["message"])):
        return ""
    return (
        f"nothing that ran before this line defines {undefined.group(1)}: fix the name, or "
        "import or define it in an earlier step (a notebook may have had it from a cell "
        "run elsewhere, or from its kernel); if raising NameError is what this block "
        "shows, declare it: ':raises: NameError' on the line after the block's opening line"
    )


def _missing_file_hint(failure: dict, job: FailedJob) -> str:
    if not (missing_file := _missing_file(failure["message"])):
        return ""
    declare = _declare(_exception_class(failure["message"]))
    if _RUN_PROGRAM in failure.get("traceback", ""):
        return (
            f"the code runs the program {missing_file}, which the machine that builds "
            "the site does not have: install it there, or show the code without running it, "
            f"in a ```python norun fence; {declare}"
        )
    return (
        "the lesson's code runs in a folder of its own, which holds only the files the "
        f"front matter lists (files:): save {missing_file} beside the lesson and "
        "list it there (a folder: each of its files), or make the code create it before "
        f"this line; {declare}"
    )


def _declared_hint(failure: dict, job: FailedJob) -> str:
    exception = _exception_class(failure["message"])
    if not (declared := failure.get("declared")) or not exception:
        return ""
    return (
        f"the block declares ':raises: {declared}', and raised {exception} instead (another "
        "version of a library may raise another exception for the same failure, as a "
        f"notebook's stored run shows): if {exception} is what it shows, write "
        f"':raises: {exception}' in its place; else fix the code"
    )


def _stored_run_hint(failure: dict, job: FailedJob) -> str:
    """For a step of an imported notebook whose stored run did not fail so (a failure it
    stored made the step declare `:raises:`): what changed is most often a library's
    version, which an error raised deep inside it does not name (optax's 'pytree structure
    error' for an equinox model written for older versions)."""
    exception = _exception_class(failure["message"])
    notebook = job.stored_runs.get(failure["block"])
    if not notebook or not exception or failure.get("declared"):
        return ""
    traced = [installed_version(library) for library in traced_libraries(failure)]
    installed = f": {', '.join(traced)}" if traced else " (the page's setup help lists them)"
    return (
        f"{notebook} ran this step without raising {exception}: the libraries it calls "
        f"are likely other versions than the notebook was run with{installed}; install the "
        "versions it was written for (pin them in the lesson's requirements), or change the "
        f"code for these; {_declare(exception)}"
    )


def _library_arguments_hint(failure: dict, job: FailedJob) -> str:
    hint = library_arguments_hint(failure)
    return f"{hint}; {_declare('TypeError')}" if hint else ""


def _code_hint(failure: dict) -> str:
    exception = _exception_class(failure["message"])
    first = raised_inside_hint(failure) or "fix the code"
    return f"{first}; {_declare(exception)}" if exception else first


def _declare(exception: str) -> str:
    return (
        f"if raising {exception} is what this block shows, declare it: "
        f"':raises: {exception}' on the line after the block's opening line"
    )


_HINT_RULES = (
    _memory_hint,
    _build_hint,
    _machine_hint,
    _assert_hint,
    _solution_hint,
    _environment_hint,
    _undefined_hint,
    _missing_file_hint,
    _declared_hint,
    _stored_run_hint,
    _library_arguments_hint,
)


# The frame of subprocess that starts a program: a missing file there is the program.
_RUN_PROGRAM = "in _execute_child"
# A path the code could not open in the folder it runs in, where only the files: are:
# relative, or made absolute from the working folder (`os.path.join(os.getcwd(), name)`).
_RUN_FOLDER = re.compile(rf"^/\S*/{LESSON_FOLDER}[^/\s]+/{RUN_FOLDER}/")


def missing_data_file(failure: dict) -> str:
    """The file the failure's code read, relative to the folder it runs in, that was not
    there (not a program it ran); "" for another failure."""
    if _RUN_PROGRAM in failure.get("traceback", ""):
        return ""
    return _missing_file(failure["message"])


def _missing_file(message: str) -> str:
    """The file, relative to the folder the code runs in, that `message` says is missing;
    "" for another message, or a path elsewhere (an absolute path is the code's own)."""
    if not (path := missing_path(message)):
        return ""
    if inside := _RUN_FOLDER.match(path):
        return path[inside.end() :]
    return "" if path.startswith(("/", "~")) else path


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
    where, hint = "", NONDETERMINISM_HINT
    if step is not None:
        before = expected[first] if first < len(expected) else "(nothing)"
        after = actual[first] if first < len(actual) else "(nothing)"
        where = (
            f", first in the output of {job.labels.get(step, step)}, its line "
            f"{first - start + 1}: {before!r} became {after!r}"
        )
    if patterns := volatile_suggestions(expected, actual):
        # YAML's single quotes take a backslash as it is, and a quote doubled.
        quoted = ", ".join("'" + pattern.replace("'", "''") + "'" for pattern in patterns)
        hint += f"; for the lines that differ: volatile: [{quoted}]"
    return BuildError(
        f"the downloadable main.py prints something else than the build steps did{where}",
        job.path,
        job.step_lines.get(step) if step is not None else None,
        hint=hint,
        detail=difference,
    )


def volatile_suggestions(expected: list[str], actual: list[str]) -> list[str]:
    """The `volatile:` patterns that take the lines a second run printed otherwise, in
    their order, one for lines alike (volatile_suggestion; Orbax's listing of a checkpoint
    has new file names at two depths): at most five, none for a line they share too little
    of."""
    patterns: list[str] = []
    matcher = difflib.SequenceMatcher(None, expected, actual, autojunk=False)
    for kind, first, end, other, other_end in matcher.get_opcodes():
        if kind != "replace":
            continue
        replaced = zip(expected[first:end], actual[other:other_end], strict=False)
        for before, after in replaced:
            taken = any(re.search(p, before) and re.search(p, after) for p in patterns)
            if not taken and (pattern := volatile_suggestion(before, after)):
                patterns.append(pattern)
    return patterns[:5]


def volatile_suggestion(before: str, after: str) -> str:
    """A `volatile:` pattern for a line printed as `before` once and `after` the next time
    (an OCDBT checkpoint's file names, a timestamp): what the two share at each end,
    cut back to whole words, literally, and `.*` between; "" when they share too little
    to tell the line from others."""
    shared = _whole_words(_shared_start(before, after), at_end=True)
    rest = len(shared)
    ending = _shared_start(before[rest:][::-1], after[rest:][::-1])[::-1]
    ending = _whole_words(ending, at_end=False)
    if len((shared + ending).replace(" ", "")) < 3:
        return ""
    return f"^{literal_pattern(shared)}.*{literal_pattern(ending)}$"


def _shared_start(first: str, second: str) -> str:
    """The characters two texts start with alike."""
    pairs = zip(first, second, strict=False)  # as far as the shorter goes
    return "".join(a for a, _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))


def _whole_words(text: str, at_end: bool) -> str:
    """`text` without a word it cuts at its end (`at_end`) or at its start."""
    if at_end:
        return re.sub(r"\w+$", "", text)
    return re.sub(r"^\w+", "", text)


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
