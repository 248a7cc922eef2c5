"""IPython magics become Python that keeps their meaning: the code runs as plain Python and
prints timing lines that the lesson's volatile patterns match."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from coursesite.importers.magics import cell_code, with_ipython_lines_as_pass
from coursesite.importers.timingmagics import TIMING_VOLATILE


def run(code: str) -> str:
    namespace = {"f": lambda x: x * 2, "x": 3}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "cell", "exec"), namespace)
    return output.getvalue()


def volatile(line: str) -> bool:
    return any(re.search(pattern, line) for pattern in TIMING_VOLATILE)


def test_timeit_with_options_times_the_statement_with_its_loops_and_runs():
    cell = cell_code("%timeit -n10 -r3 f(x)", "cell 2")
    assert cell.timed and "-n10" not in cell.code
    [line] = run(cell.code).splitlines()
    assert IPYTHON_TIMEIT.fullmatch(line), line
    assert line.endswith(" per loop (mean ± std. dev. of 3 runs, 10 loops each)")
    assert volatile(line)
    assert cell.notes == ["cell 2: %timeit became a timing with Python's timeit"]


# As IPython 8 prints it: 3 digits in the unit that fits, `1 loop` and `1 run` singular.
IPYTHON_TIMEIT = re.compile(
    r"\d[\d.]* (s|ms|µs|ns) ± \d[\d.]* (s|ms|µs|ns) per loop "
    r"\(mean ± std\. dev\. of \d+ runs?, [\d,]+ loops? each\)"
)


def test_timeit_o_gives_what_ipythons_timeit_result_holds_and_q_prints_nothing():
    """tinygp's benchmarks: `results = %timeit -o f(x)` in a loop, then
    `times.append(results.average)`."""
    source = (
        "times = []\nfor n in (1, 2):\n    results = %timeit -o -n3 -r2 f(n)\n"
        "    times.append(results.average)\nquiet = %timeit -q -o -n1 -r4 f(0)\n"
        "nothing = %timeit -n1 -r1 f(0)\nvalue = %time f(5)\n"
        "print(len(times), quiet.repeat, len(quiet.all_runs), quiet.loops, nothing, value)\n"
        "print(0 < results.best <= results.average <= results.worst, results.timings[0] > 0)"
    )
    namespace = {"f": lambda x: x + 1}
    cell = cell_code(source, "cell 9")
    with contextlib.redirect_stdout(io.StringIO()) as output:
        exec(compile(cell.code, "cell", "exec"), namespace)
    lines = output.getvalue().splitlines()
    assert [IPYTHON_TIMEIT.fullmatch(line) is not None for line in lines[:3]] == [True] * 3
    assert lines[0].endswith("(mean ± std. dev. of 2 runs, 3 loops each)")
    assert lines[2].endswith("(mean ± std. dev. of 1 run, 1 loop each)")  # -q printed none
    assert [volatile(line) for line in lines[3:5]] == [True, True]  # %time's two lines
    assert lines[5:] == ["2 4 4 1 None 6", "True True"]


def test_timeit_prints_units_and_counts_as_ipython_does():
    namespace = {"f": lambda x: x, "x": 1}
    cell = cell_code("%timeit -n1 -r1 f(x)", "cell 2")
    with contextlib.redirect_stdout(io.StringIO()) as output:
        exec(compile(cell.code, "cell", "exec"), namespace)
    line = output.getvalue().strip()
    assert line.endswith(" ± 0 ns per loop (mean ± std. dev. of 1 run, 1 loop each)"), line
    assert IPYTHON_TIMEIT.fullmatch(line)
    shown = namespace["ipython_time"]
    assert [shown(t) for t in (1.3305, 0.0121, 5.64e-6, 3.2e-8, 0)] == [
        "1.33 s",
        "12.1 ms",
        "5.64 µs",
        "32 ns",
        "0 ns",
    ]


def test_ipythons_own_timing_lines_are_volatile_too():
    stored = "3.2 µs ± 120 ns per loop (mean ± std. dev. of 7 runs, 100,000 loops each)"
    assert volatile(stored)
    assert volatile("CPU times: user 5 µs, sys: 1 µs, total: 6 µs")
    # What older IPython stored: still in many published notebooks.
    assert volatile("10 loops, best of 3: 1.2 ms per loop")
    assert volatile("1000 loops, best of 3: 5.6 µs per loop")
    assert volatile("1 loop, best of 3: 6.75 s per loop")
    assert volatile("100,000 loops, best of 5: 3 ns per loop")
    assert volatile("3.2 µs +- 120 ns per loop (mean +- std. dev. of 7 runs, 100 loops each)")
    assert volatile(
        "The slowest run took 4.12 times longer than the fastest. This could mean that an "
        "intermediate result is being cached."
    )
    assert not volatile("Batch sizes: [4, 4, 3]")


def test_time_runs_the_statement_once_and_keeps_what_it_assigns():
    cell = cell_code("%time y = f(x)\nprint(y)", "cell 3")
    lines = run(cell.code).splitlines()
    assert [volatile(line) for line in lines] == [True, True, False]
    assert lines[-1] == "6"


def test_cell_timeit_times_the_whole_cell():
    cell = cell_code("%%timeit -n 5 -r 2\nz = f(x)\nz += 1", "cell 4")
    [line] = run(cell.code).splitlines()
    assert line.endswith("(mean ± std. dev. of 2 runs, 5 loops each)")


def test_cell_time_runs_the_cell_and_prints_its_time():
    cell = cell_code("%%time\nprint(f(x))", "cell 5")
    lines = run(cell.code).splitlines()
    assert lines[0] == "6" and all(volatile(line) for line in lines[1:])


@pytest.mark.parametrize("magic", ["%xmode minimal", "%matplotlib inline", "%load_ext foo"])
def test_settings_magics_are_dropped_and_reported(magic):
    cell = cell_code(f"{magic}\nprint(1)", "cell 1")
    assert cell.code == "print(1)"
    assert cell.notes == [f"cell 1: '{magic}' sets up IPython only: it was dropped"]


def test_setting_the_inline_figure_format_is_dropped_and_reported():
    """NumPyro's notebooks open with `from IPython.display import set_matplotlib_formats`,
    which IPython 8 removed: the import stops the lesson, for a setting of a notebook's
    inline figures that a lesson never uses."""
    cell = cell_code(
        "from IPython.display import set_matplotlib_formats, HTML\nimport numpy as np\n"
        'set_matplotlib_formats("svg")\n'
        "from matplotlib_inline.backend_inline import set_matplotlib_formats\n"
        "matplotlib_inline.backend_inline.set_matplotlib_formats('png', 'pdf')  # print\n"
        "print(np.pi)",
        "cell 2",
    )
    assert cell.code == "from IPython.display import HTML\nimport numpy as np\nprint(np.pi)"
    assert cell.notes[0] == (
        "cell 2: 'set_matplotlib_formats(\"svg\")' sets the format of a notebook's inline "
        "figures, which a lesson draws as SVG: it was dropped"
    )
    assert len(cell.notes) == 2
    alone = cell_code("from IPython.display import set_matplotlib_formats, display", "c")
    assert alone.code == "" and not alone.shown_only
    kept = cell_code("formats = set_matplotlib_formats_like('svg')", "cell 3")
    assert kept.code == "formats = set_matplotlib_formats_like('svg')" and not kept.notes


def test_installs_become_requirements_and_no_code():
    cell = cell_code("!pip install -q grain numpy", "cell 1")
    assert cell.code == "" and cell.installs == ["grain", "numpy"]
    for line in (
        "!python -m pip install pybind11==2.10.1",
        "!{sys.executable} -m pip install pybind11==2.10.1",
    ):
        cell = cell_code(line, "cell 2")
        assert cell.code == "" and cell.installs == ["pybind11==2.10.1"], line


def test_any_other_magic_is_a_reported_comment_never_code():
    cell = cell_code("%who\n!ls data\nprint(1)", "cell 7")
    *magics, code = cell.code.splitlines()
    assert all(line.startswith("# notebook magic, not run:") for line in magics)
    assert code == "print(1)" and not cell.shown_only
    assert len(cell.notes) == 2 and all("rewrite it in Python" in note for note in cell.notes)
    assert "'!ls data' is a shell command" in cell.notes[1]
    unknown = cell_code("%%bash\necho hi", "cell 8")
    assert run(unknown.code) == "" and "%%bash" in unknown.notes[0]
    assert unknown.shown_only and unknown.shown == "%%bash\necho hi"


def test_a_last_display_ends_the_cell_with_its_value_and_others_stay_display_calls():
    # display() is a builtin in the build's run, as in a kernel: the page shows each value
    # at its richest where it is called; IPython's own, imported, would print only text.
    cell = cell_code("from IPython.display import display\ndisplay(x)\ndisplay(f(x))", "cell 9")
    assert cell.code.splitlines() == ["display(x)", "f(x)"]
    assert cell.shows_last
    assert "shows its value at its richest" in cell.notes[0]
    indented = cell_code("for i in range(2):\n    display(i)", "cell 10")
    assert not indented.shows_last and indented.code.endswith("    display(i)")


def test_importing_display_from_ipython_keeps_the_other_names():
    cell = cell_code("from IPython.display import Markdown, display\ny = 1", "cell 2")
    assert cell.code.splitlines() == ["from IPython.display import Markdown", "y = 1"]
    grouped = cell_code("from IPython.display import (HTML, display)\ny = 1", "cell 3")
    assert grouped.code.splitlines() == ["from IPython.display import HTML", "y = 1"]
    renamed = cell_code("from IPython.display import display as show\nshow(1)", "cell 4")
    assert renamed.code.splitlines()[0] == "from IPython.display import display as show"


def test_timing_code_keeps_to_the_line_length_a_course_checks():
    cell = cell_code("%timeit -n10 -r3 f(x)\n%time f(x)", "cell 2")
    assert max(len(line) for line in cell.code.splitlines()) <= 79


def test_a_cell_of_only_shell_commands_leaves_only_comments_and_is_shown_as_it_was():
    cell = cell_code("!ls\n!cat notes.txt", "cell 3")
    assert all(line.startswith("#") for line in cell.code.splitlines())
    assert cell.shown_only and cell.shown == "!ls\n!cat notes.txt"
    [note] = cell.notes
    assert "shell commands alone ('!ls', …)" in note and "never run" in note
    # What the import takes care of (installs, IPython settings) is no part of what it shows.
    setup = cell_code("!pip install grain\n%matplotlib inline\n!wget https://x.org/d.zip", "c")
    assert setup.installs == ["grain"] and setup.shown == "!wget https://x.org/d.zip"
    assert not cell_code("!pip install grain", "cell 4").shown_only
    assert not cell_code("%matplotlib inline", "cell 5").shown_only
    comments = cell_code("# What the next cell does", "cell 6")
    assert comments.shown_only and "it holds comments alone" in comments.notes[0]


def test_display_with_keywords_stays_and_runs_with_main_pys_definition():
    from coursesite.lesson.displaydefinition import DISPLAY_DEFINITION

    defined = "\n".join(DISPLAY_DEFINITION) + "\n"
    cell = cell_code('display({"custom": "Some text"}, raw=True)\nx = 1', "cell 2")
    assert cell.code.splitlines()[0] == 'display({"custom": "Some text"}, raw=True)'
    assert run(defined + cell.code) == "{'custom': 'Some text'}\n"
    last = cell_code("display(x, metadata={})", "cell 3")
    assert run(defined + last.code) == "3\n"
    several = cell_code("display(*[x, x], clear=True)\ny = 2", "cell 4")
    assert run(defined + several.code) == "3\n3\n"


def test_a_conversion_that_would_not_compile_leaves_the_line_as_it_was():
    from coursesite.importers.magics import CellCode, _compiling

    cell = CellCode()
    rows = _compiling([("x = 1", ["x = 1"]), ("show(x)", ["print(x"])], "cell 5", cell)
    assert rows == ["x = 1", "show(x)"]
    assert cell.notes == [
        "cell 5: 'show(x)' could not be turned into Python that compiles: it "
        "is left as it was; rewrite it"
    ]
    # display() needs no conversion: the build has it as a builtin, main.py defines it.
    unreadable = cell_code("display(a) or display(b)", "cell 6")
    assert unreadable.code == "display(a) or display(b)"


def test_a_cell_that_ran_shell_commands_says_so():
    assert cell_code("!pip install grain\nimport grain", "cell 1").shell
    assert not cell_code("x = 1  # not !shell", "cell 2").shell


def test_the_code_a_cell_magic_times_is_converted_too():
    from coursesite.lesson.displaydefinition import DISPLAY_DEFINITION

    defined = "\n".join(DISPLAY_DEFINITION) + "\n"
    timed = cell_code("%%time\n!ls\ndisplay(x)", "cell 1")
    compile(timed.code, "cell", "exec")
    assert "# notebook magic, not run: !ls" in timed.code and "3\n" in run(defined + timed.code)
    repeated = cell_code("%%timeit -n1 -r1\ndisplay(x)", "cell 2")
    assert "display" not in run(defined + repeated.code)


def test_a_magic_named_without_its_percent_is_read_as_ipythons_automagic_reads_it():
    cell = cell_code("x = 1\nwhos\nmatplotlib inline\npip install grain\nprint(x)", "cell 3")
    assert cell.code == "x = 1\n# notebook magic, not run: %whos\nprint(x)"
    assert run(cell.code) == "1\n"  # no NameError for whos
    assert cell.installs == ["grain"]
    assert "cell 3: 'whos' is IPython's automagic for %whos: it is read as '%whos'" in cell.notes
    timed = cell_code("timeit f(x)", "cell 4")
    assert any(volatile(line) for line in run(timed.code).splitlines())
    alone = cell_code("pwd", "cell 5")
    assert alone.shown_only and alone.shown == "%pwd"


def test_ipythons_help_syntax_is_a_comment_never_code():
    cell = cell_code(
        "from json import dumps\ndumps?\n?dumps\njson.dumps??\nx = 1 if True else 2", "cell 2"
    )
    assert cell.code.splitlines()[1:4] == [
        "# IPython help, not run: dumps?",
        "# IPython help, not run: ?dumps",
        "# IPython help, not run: json.dumps??",
    ]
    compile(cell.code, "<cell>", "exec")
    assert "cell 2: 'dumps?' asks IPython for help" in cell.notes[0]
    alone = cell_code("dumps?", "cell 3")
    assert alone.shown_only and alone.shown == "dumps?"
    assert cell_code("x = a if b else c", "cell 4").code == "x = a if b else c"


def test_a_name_the_notebook_binds_or_python_it_reads_is_no_automagic():
    for source, earlier in [
        ("history = []\nhistory", ""),
        ("history", "history = [1]"),
        ("time", "import time"),
        ("time - x", ""),  # Python, with arguments
        ("ls -x", ""),
        ("def f():\n    whos", ""),  # automagic is a statement of the cell itself
    ]:
        cell = cell_code(source, "cell 1", earlier)
        assert cell.code == source and not cell.notes, source


def test_a_magic_that_was_a_blocks_only_line_leaves_a_block_that_compiles():
    source = (
        "import os\nif 'flax' not in os.listdir():\n  !git clone https://x.org/flax.git\nprint(1)"
    )
    cell = cell_code(source, "cell 3")
    compile(cell.code, "<cell>", "exec")
    assert "  pass  # not run: !git clone https://x.org/flax.git" in cell.code.splitlines()
    installed = cell_code("if True:\n    !pip install grain\nx = 1", "cell 4")
    compile(installed.code, "<cell>", "exec")
    assert installed.installs == ["grain"]
    # Where the block keeps code, nothing is added.
    kept = cell_code("if True:\n    !ls\n    x = 1", "cell 5")
    assert "pass" not in kept.code


def test_writefile_run_and_capture_become_the_python_that_does_the_same(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    written = cell_code(
        '%%writefile helpers.py\ndef double(x):\n    return 2 * x\nNOTE = "a \\\\ b"', "cell 2"
    )
    appended = cell_code("%%writefile -a 'helpers.py'\nTRIPLE = 3", "cell 3")
    ran = cell_code("%run helpers.py\nprint(double(TRIPLE), NOTE)", "cell 4")
    inside = cell_code("y = 5\n%run -i helpers.py\nprint(double(y))", "cell 5")
    held = cell_code("%%capture\nprint('noise')\nquiet = 7", "cell 6")
    namespace: dict = {}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for cell in (written, appended, ran, inside, held):
            exec(compile(cell.code, "cell", "exec"), namespace)
    assert (tmp_path / "helpers.py").read_text() == (
        'def double(x):\n    return 2 * x\nNOTE = "a \\\\ b"\nTRIPLE = 3\n'
    )
    assert output.getvalue() == "6 a \\ b\n10\n" and namespace["quiet"] == 7
    assert "%%writefile became code that writes the file" in written.notes[0]
    assert "%run became runpy.run_path" in ran.notes[0]
    assert "%%capture became code that holds back" in held.notes[0]
    # The file's text is written as it is: a line that reads as a magic in code is none.
    listed = cell_code("%%writefile requirements.txt\npip install x\nls", "cell 7")
    assert "pip install x\nls\n" in listed.code and len(listed.notes) == 1
    # IPython's older name for it, as QuantEcon's lectures write their data files.
    graph = cell_code("%%file graph.txt\nnode0, node1 0.04\n%node1, node2 1.5", "cell 8")
    exec(compile(graph.code, "cell", "exec"), {})
    assert (tmp_path / "graph.txt").read_text() == "node0, node1 0.04\n%node1, node2 1.5\n"
    assert "%%file became code that writes the file" in graph.notes[0]
    # What they do not take stays a reported comment: a captured variable, %run of a module.
    for kept in ("%%capture out\nprint(1)", "%run -m pdb helpers.py"):
        assert cell_code(kept, "cell 9").shown_only


def test_removing_and_making_folders_in_the_shell_becomes_python_that_does_it(tmp_path):
    old = tmp_path / "old run" / "step_1"
    old.mkdir(parents=True)
    cell = cell_code(
        f"!rm -rf '{tmp_path / 'old run'}'\n!mkdir -p {tmp_path / 'ckpt'} {tmp_path / 'a/b'}",
        "cell 2",
    )
    assert not cell.shown_only and not any(line.startswith("#") for line in cell.code.splitlines())
    run(cell.code)
    assert not (tmp_path / "old run").exists()
    assert (tmp_path / "ckpt").is_dir() and (tmp_path / "a" / "b").is_dir()
    run(cell.code)  # again, as a second run does: nothing fails on what the first left
    assert len(cell.notes) == 2 and "became the Python that does the same" in cell.notes[0]
    # What the shell would expand, or another command, stays a comment to rewrite.
    for line in ("!rm -rf $HOME/cache", "!rm -rf out/*.npz", "!rm notes.txt"):
        kept = cell_code(line, "cell 3")
        assert kept.code.startswith("# notebook magic, not run:"), line


def test_a_cell_whose_first_line_is_indented_runs_as_ipython_runs_it():
    """IPython takes the first line's indent off every line that has it (the numpy
    tutorials' `backprop` cell was pasted one space in): Python alone refuses the cell."""
    source = " def twice(v):\n     return 2 * v\n\n print(twice(x))"
    cell = cell_code(source, "cell 4")
    assert cell.code == "def twice(v):\n    return 2 * v\n\nprint(twice(x))"
    assert run(cell.code) == "6\n"
    assert any("cell 4: its first line is indented" in note for note in cell.notes)
    assert cell_code("x = 1\n  # aside", "cell 5").code == "x = 1\n  # aside"


def test_a_line_of_a_statement_that_runs_on_is_no_automagic():
    """nx-guides' graph colouring: `colors = {` opens a dict over four lines; it was read
    as `%colors = {`. A cell that is Python but for its `%` and `!` lines has no automagic
    (IPython runs automagic in cells of one line only)."""
    source = (
        "%matplotlib inline\ncolors = {\n    s: len(s)\n    for s in ['a', 'bc']\n}\nprint(colors)"
    )
    cell = cell_code(source, "cell 7")
    assert "colors = {\n    s: len(s)" in cell.code and not any(
        "automagic" in n for n in cell.notes
    )
    assert run(cell.code) == "{'a': 1, 'bc': 2}\n"
    alone = cell_code("colors = {", "cell 8")  # one line: IPython's automagic reads it so
    assert "cell 8: 'colors = {' is IPython's automagic for %colors" in alone.notes[0]


def test_a_line_magic_whose_brackets_stay_open_runs_on_to_the_line_that_closes_them():
    """PDSH's eval chapter: `%timeit np.fromiter((...),` and on the next line `dtype=...)`,
    which IPython reads as one statement; the second line alone is an indented fragment."""
    source = "%timeit -n2 -r2 sum(f(v) for v in (x,\n                   x + 1))\nprint('after')"
    cell = cell_code(source, "cell 6")
    lines = run(cell.code).splitlines()
    assert IPYTHON_TIMEIT.fullmatch(lines[0]) and lines[0].endswith("of 2 runs, 2 loops each)")
    assert lines[1:] == ["after"]
    assert "'sum(f(v) for v in (x, x + 1))'" in cell.code
    # A closed magic line leaves the next line its own; a string's "(" opens nothing.
    cell = cell_code("%timeit -n1 -r1 f('(')\nprint(x)", "cell 7")
    assert run(cell.code).splitlines()[1:] == ["3"]
    # QuantEcon's Newton lecture: `%time k = newton_nd(f, \` then `init)`, in a loop; the
    # backslash goes with the line break it escaped (kept, the line was a syntax error).
    source = "for v in (1, 2):\n    %time k = f(v + \\\n        0)\n    print(k)"
    lines = run(cell_code(source, "cell 9").code).splitlines()
    assert [line for line in lines if not line.endswith(" ms")] == ["2", "4"]
    assert len(lines) == 6


def test_pylab_becomes_the_imports_ipython_makes_for_it():
    """statsmodels' multi-dimensional KDE example opens with `%pylab inline` and then calls
    matrix, cos, diag, figure and pcolormesh bare: %pylab imported them all into the notebook."""
    cell = cell_code("%pylab inline\nprint(cos(0.0), diag([1]).shape, plt.figure is figure)", "c")
    assert run(cell.code) == "1.0 (1, 1) True\n"
    assert cell.notes == [
        "c: '%pylab inline' became the imports IPython's %pylab makes: numpy as np and pyplot "
        "as plt, and all their names"
    ]
    only = cell_code("%pylab --no-import-all\nprint(np.cos(0.0), 'cos' in dir())", "c")
    assert run(only.code) == "1.0 False\n"


def test_a_line_that_goes_on_with_a_statement_is_never_read_as_a_magic():
    """statsmodels' chandrasekhar notebook breaks a print over lines, its `% (...)` line
    inside the open bracket: the import made that line a comment ('is IPython, not
    Python'), and the print lost its values. IPython reads magics at the start of a
    statement only: a line inside brackets, a string or after a backslash is code."""
    source = (
        'print(\n    "converged at t=%d of %d"\n    % (3, 4)\n)\n%matplotlib inline\n'
        'text = """a\n%b"""\ntotal = 1 + \\\n  2\n!ls'
    )
    cell = cell_code(source, "cell 18")
    assert run(cell.code) == "converged at t=3 of 4\n"
    assert 'text = """a\n%b"""\ntotal = 1 + \\\n  2\n# notebook magic, not run: !ls' in cell.code
    assert cell.notes == [
        "cell 18: '%matplotlib inline' sets up IPython only: it was dropped",
        "cell 18: '!ls' is a shell command: it became a comment, shown in the step and never "
        "run; if later code needs what it does, rewrite it in Python",
    ]
    assert with_ipython_lines_as_pass(source).splitlines()[2:5] == ["    % (3, 4)", ")", "pass"]
