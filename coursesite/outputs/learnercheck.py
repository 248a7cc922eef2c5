"""Checks your attempts at this lesson's exercises, with no solution in sight.

    python check.py                          every exercise in exercises/
    python check.py exercises/1-name.py      one of them

Edit the files in exercises/ (each starts as the page's starter scaffold), then run this.
For each one it runs main.py (its output hidden), then your file, then the checks
the lesson's author wrote for it (checks/, the same name), and prints PASS, or FAIL with
what went wrong. It exits with 0 only when every exercise it checked passes.

Each exercise runs in its own copy of what main.py defined, so one unfinished exercise
does not spoil the others.
"""

import contextlib
import io
import os
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(arguments: list[str]) -> int:
    if any(argument in ("-h", "--help") for argument in arguments):
        print((__doc__ or "").strip())
        return 0
    exercises = sorted((HERE / "exercises").glob("*.py"))
    named = [_exercise_named(argument, exercises) for argument in arguments]
    chosen = [path for path in named if path is not None] if arguments else exercises
    if len(chosen) < len(arguments):
        return 2
    os.chdir(HERE)  # main.py reads its data files from here
    sys.path.insert(0, str(HERE))  # and imports the lesson's own modules from here
    # main.py can take a while and prints nothing here: say what is happening, on stderr so
    # that standard output holds only the verdicts.
    print("check.py: running main.py first (its output is hidden) ...", file=sys.stderr)
    base = _run_main_py()
    if base is None:
        return 2
    passed = sum(_check(base, exercise) for exercise in chosen)
    print(f"{passed} of {len(chosen)} exercise(s) pass")
    return 0 if passed == len(chosen) else 1


def _exercise_named(argument: str, exercises: list[Path]) -> Path | None:
    path = Path(argument).resolve()
    if path in exercises:
        return path
    names = ", ".join(f"exercises/{p.name}" for p in exercises) or "none"
    print(f"check.py: {argument} is not one of this lesson's exercises ({names})")
    return None


def _run_main_py() -> dict | None:
    """What main.py defines, run as `python main.py` runs it but with its output hidden."""
    namespace = {"__name__": "__main__", "__file__": str(HERE / "main.py")}
    try:
        _run(HERE / "main.py", namespace)
    except BaseException as error:
        print(f"check.py: main.py itself failed ({_described(error)}); run `python main.py`")
        print("to see why: the checks need what it defines")
        return None
    return namespace


def _check(base: dict, exercise: Path) -> bool:
    name = f"exercises/{exercise.name}"
    trial = dict(base)
    try:
        _run(exercise, trial)
    except BaseException as error:
        return _fail(name, f"your code raised {_described(error)}{_where(error, exercise)}")
    check = HERE / "checks" / exercise.name
    try:
        _run(check, trial)
    except AssertionError as error:
        return _fail(name, str(error) or f"failed: {_failed_line(error, check)}")
    except BaseException as error:  # the check met something the attempt has not made yet
        return _fail(name, f"{_described(error)}, at {_failed_line(error, check)}")
    print(f"PASS  {name}")
    return True


def _run(path: Path, namespace: dict) -> None:
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(code, namespace)


def _fail(name: str, why: str) -> bool:
    print(f"FAIL  {name}: {why}")
    return False


def _described(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _last_frame_in(error: BaseException, path: Path) -> traceback.FrameSummary | None:
    """The innermost frame of the error's traceback that runs code of the file `path`."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return frames[-1] if frames else None


def _where(error: BaseException, path: Path) -> str:
    frame = _last_frame_in(error, path)
    return f" (line {frame.lineno})" if frame else ""


def _failed_line(error: BaseException, path: Path) -> str:
    """'checks/1-name.py line 4: assert ...', the check's line that raised."""
    frame = _last_frame_in(error, path)
    where = f"checks/{path.name}"
    return f"{where} line {frame.lineno}: {frame.line}" if frame else where


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
