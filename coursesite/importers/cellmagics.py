"""The magics a tutorial uses to write a file, run a script or hide a cell's output, as the
Python that does the same (magics.py calls these).

- `%%writefile [-a] helpers.py` writes the cell's text to the file (appends, with `-a`),
  in the folder the code runs in, so that a later `import helpers` or `%run` finds it;
- `%run script.py` runs the script and brings its names into the notebook's, as IPython
  does (`runpy.run_path`); `%run -i` runs it among the notebook's names (`exec`);
- `%%capture` runs the cell with what it prints to stdout and stderr held back;
- `!rm -rf PATH ...` and `!mkdir -p PATH ...`, which tutorials run to start from a clean
  folder (`!rm -rf /tmp/orbax` before checkpointing there), become `shutil.rmtree(...,
  ignore_errors=True)` and `os.makedirs(..., exist_ok=True)`: as a comment, a later
  `os.makedirs` of the same folder would fail on what the last run left.

Options these do not take (`%run -d`, `%%capture` into a variable) leave the magic to
magics.py, which keeps it as a comment and says so.
"""

from __future__ import annotations

import re
import shlex

_FILE_COMMAND = re.compile(r"^(\s*)!\s*(rm\s+-(?:rf|fr|r\s+-f|f\s+-r)|mkdir\s+-p)\s+(.+?)\s*$")
_SHELL_SIGNS = re.compile(r"[$*?`;|&<>{}~\\]")
_WRITEFILE = re.compile(r"^\s*(?:(?P<append>-a|--append)\s+)?(?P<name>\S.*?)\s*$")
_RUN = re.compile(
    r"^(\s*)%run\s+(?P<inside>-i\s+)?(?P<script>[^\s-]\S*\.py)(?P<arguments>(?:\s+\S+)*)\s*$"
)


def writefile(options: str, body: list[str]) -> list[str] | None:
    """Code that writes the cell's text to the file `options` name; None for options it
    does not take."""
    found = _WRITEFILE.match(options)
    if not found:
        return None
    try:
        [name] = shlex.split(found.group("name"))
    except ValueError:
        return None
    text = "\n".join(body) + "\n"
    mode = "a" if found.group("append") else "w"
    return [
        f"with open({name!r}, {mode!r}) as written:",
        f"    written.write({_literal(text)})",
    ]


def _literal(text: str) -> str:
    """`text` as a Python string literal, readable as the file it is when it can be."""
    if '"""' in text or "\\" in text or text.endswith('"'):
        return repr(text)
    return f'"""{text}"""'


def file_command(line: str) -> list[str] | None:
    """`!rm -rf PATH...` or `!mkdir -p PATH...` as the Python that does the same; None for
    any other line, or paths the shell would expand (`$HOME`, `*.npz`)."""
    found = _FILE_COMMAND.match(line)
    if not found or _SHELL_SIGNS.search(found.group(3)):
        return None
    try:
        paths = shlex.split(found.group(3))
    except ValueError:
        return None
    indent, command = found.group(1), found.group(2)
    if command.startswith("rm"):
        calls = [f"shutil.rmtree({path!r}, ignore_errors=True)" for path in paths]
        return [f"{indent}import shutil", *(indent + call for call in calls)]
    calls = [f"os.makedirs({path!r}, exist_ok=True)" for path in paths]
    return [f"{indent}import os", *(indent + call for call in calls)]


def run_script(line: str) -> list[str] | None:
    """Code that runs the script `%run script.py` names, its names then the notebook's;
    None for a %run it does not take (options, a module)."""
    found = _RUN.match(line)
    if not found:
        return None
    indent, script = found.group(1), found.group("script")
    arguments = shlex.split(found.group("arguments")) if found.group("arguments") else []
    lines = [f"{indent}import sys", f"{indent}sys.argv = {[script, *arguments]!r}"]
    lines = lines if arguments else []
    if found.group("inside"):  # -i: in the notebook's own names
        source = f"compile(open({script!r}).read(), {script!r}, 'exec')"
        return [*lines, f"{indent}exec({source})"]
    run = f"{indent}globals().update(runpy.run_path({script!r}, run_name='__main__'))"
    return [f"{indent}import runpy", *lines, run]


def captured(options: str, body: list[str]) -> list[str] | None:
    """The cell's code with its stdout and stderr held back; None when %%capture keeps them
    in a variable (which later code would read)."""
    if options.strip() or not any(line.strip() for line in body):
        return None
    held = "contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())"
    return [
        "import contextlib, io",
        f"with {held}:",
        *[f"    {line}" if line.strip() else "" for line in body],
    ]
