"""A notebook cell's IPython magics, turned into the plain Python that keeps their meaning.

A lesson's code is Python that `python main.py` runs, so no magic may stay in it.
`%timeit`, `%%timeit`, `%time` and `%%time` become timings in Python (timingmagics.py),
whose lines are marked volatile. `!pip install` becomes the lesson's requirements; display settings
(`%matplotlib`, `%xmode`, ...) go; a cell's last `display(value)` becomes the bare
`value`, which the page shows at its richest, and any other `display()` stays: the build
has it as a builtin, as a kernel does, and shows its value at its richest where it was
called (main.py defines it to print the value's repr). Importing it from IPython goes, as
IPython's own prints only a value's text outside a kernel. Any other magic or shell
command (`!wget ...`) stays as a comment for the author to rewrite; a cell left with
nothing to run (shell commands alone) is shown as it is, never run (`shown_only`).
Converted code always compiles: a line whose conversion would not is left as it was.
Every change is a line of the import report.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

from coursesite.importers.cellmagics import captured, file_command, run_script, writefile
from coursesite.importers.timingmagics import (
    IPYTHON_TIME,
    time_lines,
    timed_cell_lines,
    timeit_lines,
)

_INSTALL = re.compile(
    r"^\s*[!%]\s*(?:(?:python3?|\{sys\.executable\})\s+-m\s+)?pip3?\s+install\s+(.*)$"
)
_SETTINGS = re.compile(
    r"^\s*%(?:matplotlib|load_ext|autoreload|config|xmode|precision|pprint|colors|"
    r"reload_ext|aimport)\b"
)
# `results = %timeit -o f(x)` (tinygp's benchmarks): the name -o's TimeitResult goes to.
_TIMEIT = re.compile(
    r"^(\s*)(?:([A-Za-z_]\w*)\s*=\s*)?%timeit((?:\s+-[nrp]\s*\d+|\s+-[tcqo])*)\s+(.+)$"
)
_TIME = re.compile(r"^(\s*)(?:([A-Za-z_]\w*)\s*=\s*)?%time\s+(.+)$")
# `%pylab inline`: IPython imports NumPy and pyplot, and (unless --no-import-all) all
# their names, into the notebook (IPython's pylabtools.import_pylab, whose lines these are).
_PYLAB = re.compile(r"^(\s*)%pylab\b(.*)$")
_PYLAB_IMPORTS = [
    "import numpy",
    "import matplotlib",
    "from matplotlib import pylab, mlab, pyplot",
    "np = numpy",
    "plt = pyplot",
]
_PYLAB_ALL = ["from matplotlib.pylab import *", "from numpy import *"]
_CELL_MAGIC = re.compile(r"^\s*%%(\w+)(.*)$")
# IPython's %%file is its older name for %%writefile.
_WRITTEN_FILE = re.compile(r"^\s*%%(?:writefile|file)\b")
_MAGIC = re.compile(r"^\s*(?:[!%]|\w+\s*=\s*!)")
# IPython's help: `Dense?`, `np.mean??`, `?print`; shown in its pager, never as output.
_HELP = re.compile(r"^\s*(?:\?{1,2}[A-Za-z_][\w.]*\??|[A-Za-z_][\w.]*\?{1,2})\s*$")
# IPython's `display()`, a builtin in notebooks, and in the build's run of a lesson.
_DISPLAY = re.compile(r"^(\s*)display\((.*)\)\s*$")
_DISPLAY_IMPORT = re.compile(
    r"^(\s*)from\s+(IPython(?:\.core)?\.display(?:_functions)?|matplotlib_inline\.backend_inline)"
    r"\s+import\s+\(?([\w\s,]+?),?\s*\)?\s*$"
)
# The format of a notebook's inline figures (IPython 8 removed it from IPython.display; it
# lives on in matplotlib_inline): it means nothing outside a kernel, whose figures a lesson
# draws as SVG.
_FIGURE_FORMATS = re.compile(r"^\s*(?:[\w.]+\.)?set_matplotlib_formats\s*\(.*\)\s*(?:#.*)?$")
_NOTEBOOK_ONLY = {"display", "set_matplotlib_formats"}


@dataclass
class CellCode:
    """A code cell as lesson code, and what the import report says about it."""

    code: str = ""
    installs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timed: bool = False  # it prints timing lines (timingmagics.TIMING_VOLATILE)
    shows_last: bool = False  # its last display(value) became the bare, displayed value
    shell: bool = False  # it ran shell commands (`!pip`, `!ls`), whose output is no lesson's
    modules: set[str] = field(default_factory=set)  # what the timing code imports
    # Nothing of it runs (shell commands, a cell magic), yet it has something to show: the
    # lesson shows `shown`, its source without what the import took care of (`!pip`).
    shown_only: bool = False
    shown: str = ""


# Line magics IPython's automagic runs without their `%` (`whos` alone on a line).
_AUTOMAGICS = frozenset(
    "whos who who_ls pwd ls cd env history hist time timeit pip conda load_ext reload_ext "
    "matplotlib config xmode precision pprint colors autoreload aimport lsmagic magic reset "
    "pdb debug tb prun run alias store quickref doctest_mode automagic dhist dirs".split()
)
_AUTOMAGIC = re.compile(r"^([A-Za-z_]\w*)(\s+\S.*)?$")


def _automagic(line: str, where: str, earlier: str, cell: CellCode) -> str:
    """A line IPython's automagic runs as a line magic, in its `%` form: a magic's name
    alone (not bound by the notebook before), or with arguments Python cannot read."""
    found = _AUTOMAGIC.match(line.rstrip())
    if not found or found.group(1) not in _AUTOMAGICS:
        return line
    name, arguments = found.groups()
    if arguments and compiles(line):  # `time - start`: Python
        return line
    binds = rf"(?:\b(?:def|class|as|import|for|global|nonlocal)\s+|,\s*)\b{name}\b|^\s*{name}\s*="
    if not arguments and re.search(binds, earlier, re.M):
        return line
    cell.notes.append(
        f"{where}: '{line.strip()}' is IPython's automagic for %{name}: it is read as "
        f"'%{line.strip()}'"
    )
    return f"%{line.strip()}"


# A line magic, bound to a name or not (`%timeit f(x)`, `r = %timeit -o f(x)`).
_LINE_MAGIC = re.compile(r"^\s*(?:[A-Za-z_]\w*\s*=\s*)?%(?!%)\w")


def _logical_magic_lines(lines: list[str]) -> list[str]:
    """The lines, a line magic whose brackets stay open or that ends in a backslash joined
    with the lines that close them, as IPython reads it (PDSH: `%timeit np.fromiter((...),`
    then `dtype=...)`; QuantEcon: `%time k = newton_nd(f, \\` then `init)`)."""
    joined: list[str] = []
    continued = continued_lines(lines)
    magic = False  # whether the last of `joined` is a line magic, not code that goes on
    for number, line in enumerate(lines):
        if magic and _open(joined[-1]):
            # A backslash that ended the line goes with the line break it escaped.
            head = joined[-1].rstrip().removesuffix("\\").rstrip()
            joined[-1] = f"{head} {line.strip()}"
        else:
            joined.append(line)
            magic = number not in continued and bool(_LINE_MAGIC.match(line))
    return joined


def _open(line: str) -> bool:
    """Whether a bracket or a string of `line` is still open at its end."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(line.partition("%")[2] + "\n").readline):
            pass
    except tokenize.TokenError as refusal:
        return "EOF in multi-line" in str(refusal)
    except SyntaxError:  # the magic's options may not be Python's tokens: nothing to join
        return False
    return False


def continued_lines(lines: list[str]) -> set[int]:
    """The indexes of the lines that go on with a statement begun above them, inside an
    open bracket or string or after a backslash, which IPython never reads as a magic
    (statsmodels: `print("... %d"` then `    % (res.nobs,)` then `)`)."""
    continued: set[int] = set()
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(depth - 1, 0)
            elif token.type == tokenize.NL and depth:
                continued.add(token.start[0])  # the row after it, counted from 0
            elif token.type == tokenize.STRING:
                continued.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):  # what it read so far holds
        pass
    ended = {number + 1 for number, line in enumerate(lines) if line.rstrip().endswith("\\")}
    return (continued | ended) & set(range(len(lines)))


def _without_leading_indent(lines: list[str], where: str, cell: CellCode) -> list[str]:
    """The cell's lines without the indent of its first line, taken off every line that
    has it, as IPython does before it runs a cell (its leading_indent transformer): a cell
    pasted with its indent runs in a notebook, and is a syntax error to Python."""
    indent = re.match(r"[ \t]+", lines[0]) if lines else None
    if indent is None:
        return lines
    cell.notes.append(
        f"{where}: its first line is indented; as IPython does, that indent was taken off "
        "every line that has it"
    )
    width = len(indent.group())
    return [line[width:] if line.startswith(indent.group()) else line for line in lines]


def cell_code(source: str, where: str, earlier: str = "") -> CellCode:
    """The cell as lesson code; `earlier` is the code of the cells before it, which may
    bind a name that is also a magic's (`history = []`)."""
    cell = CellCode()
    lines = _without_leading_indent(source.strip("\n").splitlines(), where, cell)
    if not (lines and _WRITTEN_FILE.match(lines[0])) and not _python_apart(lines):
        continued = continued_lines(lines)
        lines = [
            line
            if number in continued
            else _automagic(line, where, "\n".join([earlier, *lines[:number]]), cell)
            for number, line in enumerate(lines)
        ]
    lines = _logical_magic_lines(lines)
    continued = continued_lines(lines)
    first = _CELL_MAGIC.match(lines[0]) if lines else None
    if first and first.group(1) in ("timeit", "time"):
        # The timed code is the notebook's too: its magics and display() are converted.
        body = [row for line in lines[1:] for row in _line(line, where, cell)]
        kept = timed_cell_lines(first.group(1), first.group(2), body, cell.modules)
        cell.timed = True
        cell.notes.append(f"{where}: %%{first.group(1)} became a timing of the cell, in Python")
    elif first and (
        python := _cell_magic_python(first.group(1), first.group(2), lines, where, cell)
    ):
        kept = python
    elif first:
        kept = [f"# notebook cell magic, not run: {line}" for line in lines]
        cell.notes.append(
            f"{where}: the cell magic %%{first.group(1)} is IPython, not Python: the cell "
            "became a comment; rewrite it in Python"
        )
    else:
        last = _last_display(lines)
        cell.shows_last = bool(last)
        converted = [
            (line, [last] if last and number == len(lines) - 1 else _line(line, where, cell))
            if number not in continued
            else (line, [line])
            for number, line in enumerate(lines)
        ]
        kept = _compiling(converted, where, cell)
    imports = [f"import {name}" for name in sorted(cell.modules) if f"import {name}" not in lines]
    helpers = IPYTHON_TIME if "timeit" in cell.modules else []
    cell.code = "\n".join(imports + helpers + kept).strip("\n")
    _shown_only(cell, lines, where)
    return cell


def _shown_only(cell: CellCode, lines: list[str], where: str) -> None:
    """A cell of shell commands or a cell magic leaves no code, only comments: rather than
    lose it, the lesson shows its source, never run. Its notes become one."""
    if _has_code(cell.code):
        return
    shown = [line for line in lines if not _dropped(line)]
    if not "".join(shown).strip():
        return
    cell.shown_only, cell.shown = True, "\n".join(shown).strip("\n")
    cell.notes = [note for note in cell.notes if "became a comment" not in note]
    magics = any(_MAGIC.match(line) or _CELL_MAGIC.match(line) for line in shown)
    kind = "shell commands" if cell.shell else "IPython magics" if magics else "comments"
    first = next(line.strip() for line in shown if line.strip())
    more = ", …" if len(shown) > 1 else ""
    cell.notes.append(
        f"{where}: it holds {kind} alone ('{first}'{more}), shown as code (```python norun)"
        + (
            ", never run; if a later step needs what it does (a download, a tool, a mounted "
            "disk), do that in Python in a step, or tell readers to do it first"
            if kind != "comments"
            else ""
        )
    )


def _dropped(line: str) -> bool:
    """Whether the line is one the import drops for good (with a line in the report): an
    install, a setting of IPython's, an import of what only a kernel has."""
    if _INSTALL.match(line) or _SETTINGS.match(line) or _FIGURE_FORMATS.match(line):
        return True
    if imported := _DISPLAY_IMPORT.match(line):
        indent, module, names = imported.group(1, 2, 3)
        return not _without_display(indent, module, names, line)
    return False


def _has_code(code: str) -> bool:
    try:
        return bool(ast.parse(code).body)
    except SyntaxError:
        return True


def _python_apart(lines: list[str]) -> bool:
    """Whether a cell of several lines is Python but for its escaped IPython lines (`%...`,
    `!...`): IPython 7 and later run automagic in cells of one line only, and older ones
    never where a line continues a statement (`colors = {` opening a dict is no %colors)."""
    return len(lines) >= 2 and compiles(with_ipython_lines_as_pass("\n".join(lines)))


_IPYTHON_LINE = re.compile(r"(?m)^(\s*)(?:[%!]|\w+\s*=\s*[%!]).*$")


def with_ipython_lines_as_pass(source: str) -> str:
    """`source` with each IPython line (`%magic`, `!shell`, `x = !ls`) a `pass` at its
    indent: the rest of a cell read as Python, its lines where they were."""
    lines = source.split("\n")
    continued = continued_lines(lines)
    return "\n".join(
        line if number in continued else _IPYTHON_LINE.sub(r"\1pass", line)
        for number, line in enumerate(lines)
    )


def compiles(code: str) -> bool:
    try:
        compile(code, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte
        return False
    return True


def _compiling(converted: list[tuple[str, list[str]]], where: str, cell: CellCode) -> list[str]:
    """The converted lines, with any line whose conversion broke the cell's syntax left
    as the notebook had it (and a note): what the import writes always compiles, unless the
    notebook's own code does not."""
    rows = [rows for _, rows in converted]
    if compiles("\n".join(row for group in rows for row in group)):
        return [row for group in rows for row in group]
    # A magic that was a block's only line (`if ...:` then `!git clone ...`) leaves the
    # block empty: `pass` keeps it a block, and the comment says what it held.
    filled = [_filled_block(line, group) for line, group in converted]
    if compiles("\n".join(row for group in filled for row in group)):
        return [row for group in filled for row in group]
    for at, (line, group) in enumerate(converted):
        if group == [line] or all(row.lstrip().startswith("#") for row in group):
            continue
        trial = [*rows[:at], [line], *rows[at + 1 :]]
        if compiles("\n".join(row for group in trial for row in group)):
            rows = trial
            cell.notes.append(
                f"{where}: '{line.strip()}' could not be turned into Python that compiles: it "
                "is left as it was; rewrite it"
            )
            break
    return [row for group in rows for row in group]


def _filled_block(line: str, group: list[str]) -> list[str]:
    """For an indented line whose conversion left no code, a `pass` at its indent."""
    indent = line[: len(line) - len(line.lstrip())]
    if not indent or any(row.strip() and not row.lstrip().startswith("#") for row in group):
        return group
    return [f"{indent}pass  # not run: {line.strip()}"]


def _last_display(lines: list[str]) -> str:
    """The value a cell's last line `display(value)` shows, to end the step with: a bare
    last value shows its richest representation (an image, a table), as in the notebook."""
    shown = _DISPLAY.match(lines[-1]) if lines else None
    if not shown or shown.group(1):
        return ""
    try:
        arguments = ast.parse(f"f({shown.group(2)})", mode="eval").body
    except SyntaxError:
        return ""
    single = isinstance(arguments, ast.Call) and len(arguments.args) == 1 and not arguments.keywords
    return shown.group(2).strip() if single else ""


def _line(line: str, where: str, cell: CellCode) -> list[str]:
    cell.shell = cell.shell or line.lstrip().startswith("!")
    if install := _INSTALL.match(line):
        cell.installs += [word for word in install.group(1).split() if not word.startswith("-")]
        return []
    if _SETTINGS.match(line):
        cell.notes.append(f"{where}: '{line.strip()}' sets up IPython only: it was dropped")
        return []
    if timed := _TIMEIT.match(line):
        indent, result, options, statement = timed.groups()
        cell.notes.append(f"{where}: %timeit became a timing with Python's timeit")
        cell.timed = True
        rows = timeit_lines(repr(statement.strip()), options, cell.modules, result or "")
        return [indent + row for row in rows]
    if pylab := _PYLAB.match(line):
        indent, options = pylab.groups()
        every = "--no-import-all" not in options
        cell.notes.append(
            f"{where}: '{line.strip()}' became the imports IPython's %pylab makes: numpy as "
            f"np and pyplot as plt{', and all their names' if every else ''}"
        )
        return [indent + row for row in _PYLAB_IMPORTS + (_PYLAB_ALL if every else [])]
    if timed := _TIME.match(line):
        indent, result, statement = timed.groups()
        cell.notes.append(f"{where}: %time became a timing with Python's time")
        # `x = %time f()` binds what the statement gives, as IPython does.
        cell.timed = True
        body = [f"{result} = {statement}" if result else statement]
        return [indent + row for row in time_lines(body, cell.modules)]
    if imported := _DISPLAY_IMPORT.match(line):
        indent, module, names = imported.group(1, 2, 3)
        return _without_display(indent, module, names, line)
    if _FIGURE_FORMATS.match(line):
        cell.notes.append(
            f"{where}: '{line.strip()}' sets the format of a notebook's inline figures, "
            "which a lesson draws as SVG: it was dropped"
        )
        return []
    if _DISPLAY.match(line):
        cell.notes.append(
            f"{where}: display() is a notebook builtin; the page shows its value at its "
            "richest where it is called, and main.py defines it to print the value's repr"
        )
        return [line]
    if (python := file_command(line)) is not None:
        cell.notes.append(f"{where}: '{line.strip()}' became the Python that does the same")
        return python
    if (ran := run_script(line)) is not None:
        cell.notes.append(f"{where}: %run became runpy.run_path, which runs the script")
        return ran
    if _HELP.match(line):
        cell.notes.append(
            f"{where}: '{line.strip()}' asks IPython for help, which its pager shows, not the "
            "cell's output: it became a comment, shown in the step and never run"
        )
        return [f"# IPython help, not run: {line.strip()}"]
    if _MAGIC.match(line):
        what = "a shell command" if "!" in line.split("%")[0] else "IPython, not Python"
        cell.notes.append(
            f"{where}: '{line.strip()}' is {what}: it became a comment, shown in the step and "
            "never run; if later code needs what it does, rewrite it in Python"
        )
        return [f"# notebook magic, not run: {line.strip()}"]
    return [line]


def _cell_magic_python(
    magic: str, options: str, lines: list[str], where: str, cell: CellCode
) -> list[str] | None:
    """%%writefile (%%file) and %%capture as the Python that does the same (cellmagics.py); None
    for any other cell magic, or options they do not take."""
    if magic in ("writefile", "file") and (written := writefile(options, lines[1:])):
        cell.notes.append(f"{where}: %%{magic} became code that writes the file")
        return written
    body = (
        [row for line in lines[1:] for row in _line(line, where, cell)]
        if magic == "capture"
        else []
    )
    if magic == "capture" and (held := captured(options, body)):
        cell.notes.append(f"{where}: %%capture became code that holds back what the cell prints")
        return held
    return None


def _without_display(indent: str, module: str, names: str, line: str) -> list[str]:
    """`from IPython.display import HTML, display` without `display`: the builtin, not
    IPython's (which outside a kernel prints only the value's text), shows the value;
    and without `set_matplotlib_formats`, whose calls go (_FIGURE_FORMATS)."""
    words = [word.strip() for word in names.split(",") if word.strip()]
    kept = [word for word in words if word not in _NOTEBOOK_ONLY]
    if len(kept) == len(words):
        return [line]
    return [f"{indent}from {module} import {', '.join(kept)}"] if kept else []
