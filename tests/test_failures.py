"""How a failed block reads to its author (execution/failures.py): the error at the block's
line, the hint for that exception in that kind of block, and what the block printed first.
In-process and fast: the corpus (test_bad_input.py) shows the same messages through the
real command line."""

import importlib.metadata
import platform
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from coursesite.execution.failures import (
    CHECK_HINTS,
    NETWORK_HINT,
    NONDETERMINISM_HINT,
    PRINTED_LINES,
    failure_error,
    main_py_drift_error,
)

LESSON = Path("content/lesson.md")


@dataclass(frozen=True)
class Job:
    labels: dict[str, str] = field(
        default_factory=lambda: {"step-1": "step 1", "step-2": "step 2", "sol": "solution of 'X'"}
    )
    memory_mb: int = 512
    solution_ids: list[str] = field(default_factory=lambda: ["sol"])
    step_lines: dict[str, int] = field(default_factory=lambda: {"step-1": 10, "step-2": 20})
    path: Path = LESSON
    stored_runs: dict[str, str] = field(default_factory=dict)


def failed(message, block="step-2", printed="", traceback="", **extra):
    failure = {"block": block, "message": message, "line": 23, "traceback": traceback, **extra}
    result = {
        "blocks": [{"id": "step-1", "stdout": "not this\n"}, {"id": block, "stdout": printed}]
    }
    return failure_error(failure, result, Job())


def library_traceback(line: str, *files: str) -> str:
    """A traceback from the lesson's `line` on into the installed `files` (site-packages
    paths), in the order they were called."""
    frames = [f'  File "lesson.md", line 9, in <module>\n    {line}\n']
    frames += [
        f'  File "/venv/lib/python3.11/site-packages/{name}", line 80, in call\n' for name in files
    ]
    return "".join(frames)


def test_a_failure_is_named_by_its_block_at_its_line_with_traceback_and_output():
    error = failed(
        "AssertionError: sizes", printed="Batch sizes: [4, 4, 3]\n", traceback="  | 23 assert"
    )
    assert (error.message, error.path, error.line) == (
        "step 2 failed: AssertionError: sizes",
        LESSON,
        23,
    )
    assert error.detail == (
        "  | 23 assert\nwhat it printed before it failed:\nBatch sizes: [4, 4, 3]"
    )
    assert error.hint == (
        "an assert failed: the code did not produce what the assert expects; the "
        "traceback shows which, and the output it printed first is below"
    )
    assert failed("ValueError: x", block="nowhere").message == "prose failed: ValueError: x"


def test_without_traceback_or_output_there_is_no_detail():
    assert failed("ValueError: x").detail is None
    assert failed("ValueError: x", traceback="tb").detail == "tb"
    assert failed("ValueError: x", printed="out\n").detail == (
        "what it printed before it failed:\nout"
    )


def test_only_the_last_lines_printed_are_shown():
    lines = [f"line {n}" for n in range(PRINTED_LINES + 5)]
    error = failed("ValueError: x", printed="\n".join(lines) + "\n")
    shown = error.detail.split("\n")[1:]
    assert shown == ["[... 5 earlier lines]", *lines[5:]]
    exactly = failed("ValueError: x", printed="\n".join(lines[:PRINTED_LINES]))
    assert exactly.detail.split("\n")[1:] == lines[:PRINTED_LINES]
    assert PRINTED_LINES == 20


def test_a_solution_that_fails_is_told_to_run_clean():
    assert failed("AssertionError", block="sol").hint == (
        "the reference solution fails its own check: fix the solution, which must "
        "run and pass (the traceback shows the assert)"
    )
    assert failed("KeyError: 'k'", block="sol").hint == (
        "the reference solution must run without error: fix what raised KeyError"
    )
    assert failed("the lesson stopped", block="sol").hint == (
        "the reference solution must run without error: fix it"
    )


def test_an_exception_gets_the_raises_option_and_anything_else_a_plain_hint():
    assert failed("ZeroDivisionError: division by zero").hint == (
        "fix the code; if raising ZeroDivisionError is what this block shows, declare it: "
        "':raises: ZeroDivisionError' on the line after the block's opening line"
    )
    assert failed("numpy.linalg.LinAlgError: singular").hint.startswith(
        "fix the code; if raising numpy.linalg.LinAlgError is"
    )
    assert failed("ValueError").hint.startswith("fix the code; if raising ValueError is")
    assert failed("the code stopped: 3 things").hint == "fix the code"
    assert failed("9Error: x").hint == "fix the code"


def test_a_name_nothing_defined_is_named_with_where_it_may_have_come_from():
    hint = failed("NameError: name 'quiz' is not defined").hint
    assert hint.startswith("nothing that ran before this line defines quiz: fix the name, or")
    assert "':raises: NameError'" in hint


def test_memory_comes_first_and_names_the_limit():
    for block in ("step-2", "sol", "live-values"):
        assert failed("MemoryError", block=block).hint == (
            "the lesson may use at most 512 MB (settings.memory_limit_mb in lessons.yaml)"
        )


@pytest.mark.parametrize("kind", sorted(CHECK_HINTS))
def test_a_check_gets_the_hint_of_its_kind(kind):
    assert failed("AssertionError", block="sol", kind=kind).hint == CHECK_HINTS[kind]
    assert "after main.py and the reference solution alone" in CHECK_HINTS["check-after-solution"]
    assert CHECK_HINTS["check-after-starter"].startswith("assert what the task asks for")


def test_what_the_environment_lacks_is_named_not_the_code():
    assert failed("ModuleNotFoundError: No module named 'tabulated_frames.io'").hint == (
        "tabulated_frames is not installed where the site is built: install its package there "
        "(pip install tabulated_frames, or its distribution's name) and build again"
    )
    assert failed("ImportError: No module named 'yaml'").hint.startswith("yaml is not installed")
    # A module the installed package lacks is another version's, not a missing package.
    assert failed("ModuleNotFoundError: No module named 'numpy.mhlo_helpers'").hint == (
        "the installed numpy has no module numpy.mhlo_helpers: the code was written for "
        f"another version of numpy (installed: {importlib.metadata.version('numpy')}); write "
        "it for the version installed (the page's setup help lists it), or install the "
        "version the code needs"
    )
    numpy = importlib.metadata.version("numpy")
    assert failed("AttributeError: module 'numpy.random' has no attribute 'arange_all'").hint == (
        "the installed numpy has no numpy.random.arange_all: the code was written "
        f"for another version of numpy (installed: {numpy}); write it for the version "
        "installed (the page's setup help lists it), or install the version the code needs"
    )
    moved = "ImportError: cannot import name 'ReadOptions' from 'grain.sources' (/x/__init__.py)"
    assert failed(moved).hint.startswith(
        "the installed grain has no grain.sources.ReadOptions: the code was written for "
        f"another version of grain (installed: {importlib.metadata.version('grain')})"
    )
    gone = "ImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/x.py)"
    assert f"another version of Python (installed: {platform.python_version()})" in (
        failed(gone).hint
    )
    # An attribute missing from an object, not a module, is the code's own mistake.
    assert failed("AttributeError: 'list' object has no attribute 'x'").hint.startswith(
        "fix the code; if raising AttributeError"
    )
    # A package's own module type says it in its own words (Flax's nnx).
    flax_words = failed("AttributeError: Module numpy.random has no attribute 'array_ref'")
    assert flax_words.hint.startswith("the installed numpy has no numpy.random.array_ref:")


def test_a_package_a_librarys_error_asks_for_is_named_with_the_line_to_add():
    """Plotly's image export without kaleido, pandas' to_markdown without tabulate: the
    library says what to install, and the hint says where (not "fix the code")."""
    plotly = (
        "RuntimeError: \nImage export requires the Kaleido package, v1.0.0 or greater,\n"
        'which can be installed using pip:\n\n    $ pip install --upgrade "absent-ci>=1"\n'
    )
    traced = library_traceback("fig.to_image()", "plotly/io/_kaleido.py")
    assert failed(plotly, traceback=traced).hint == (
        "plotly asks for absent-ci>=1, and it is not installed where the site is built: add "
        "the line absent-ci>=1 to the course's requirements, pip install it there, and "
        "build again"
    )
    pandas = (
        "ImportError: Missing optional dependency 'absent-ci'.  Use pip or conda to install "
        "absent-ci."
    )
    assert failed(pandas).hint.startswith("the error asks for absent-ci, and it is not")
    # QuantEcon's regression lecture: plotly's FigureWidget needs anywidget, which plotly 6
    # no longer installs with it ("raised inside plotly ... another version" misled).
    widget = "ImportError: Please install absent-widget-ci to use the FigureWidget class"
    traced_widget = library_traceback("plt.widget()", "matplotlib/figure.py")
    assert failed(widget, traceback=traced_widget).hint.startswith(
        "matplotlib asks for absent-widget-ci, and it is not installed where the site is built"
    )
    # A browser, not a package: kaleido starts Chrome, which the machine may lack.
    chrome = (
        "RuntimeError: \n\nKaleido requires Google Chrome to be installed.\n\n"
        "Either download and install Chrome yourself ...\n\n    $ plotly_get_chrome\n"
    )
    assert failed(chrome, traceback=traced).hint.startswith(
        "plotly needs a Chrome or Chromium browser (Plotly's image export starts one through "
        "kaleido), which the machine that builds the site lacks: install it there"
    )
    # Installed, but not at a version it takes; installed at one it takes: not the cause.
    numpy = importlib.metadata.version("numpy")
    older = failed("RuntimeError: requires pip install 'numpy>=999'").hint
    assert older.startswith(f"the error asks for numpy>=999, and {numpy} is installed")
    assert failed("RuntimeError: oops; pip install numpy").hint.startswith("fix the code")


def test_a_seaborn_style_by_its_old_name_is_matplotlibs_rename():
    message = (
        "OSError: 'seaborn-whitegrid' is not a valid package style, path of style file, URL "
        "of style file, or library style name (library styles are listed in `style.available`)"
    )
    assert failed(message).hint.startswith(
        "Matplotlib 3.6 renamed its style 'seaborn-whitegrid' to 'seaborn-v0_8-whitegrid', "
        "and 3.8 dropped the old name"
    )
    other = message.replace("seaborn-whitegrid", "no-such-style")
    assert failed(other).hint.startswith("fix the code")


def test_a_one_element_array_taken_as_a_number_is_numpys_expired_deprecation():
    """QuantEcon's Black-Litterman lecture draws text at mu[0] of a column vector: NumPy
    refuses that number now, from inside Matplotlib's drawing."""
    import numpy

    with pytest.raises(TypeError) as refused:
        float(numpy.array([[0.1]])[0])
    message = f"the figure it drew cannot be saved as SVG: TypeError: {refused.value}"
    hint = failed(message).hint
    assert hint.startswith(
        "NumPy 1.25 deprecated making a number of an array that has one element but some "
        f"dimensions (shape (1,) or (1, 1): a row of a column vector), and NumPy "
        f"{numpy.__version__} refuses it"
    )
    assert "`a.item()`" in hint
    assert failed("TypeError: only integer scalar arrays").hint.startswith("fix the code")
    # QuantEcon's second Kalman lecture: `y_hat_t[t-1] = worker.G @ x_hat`, G a row.
    with pytest.raises(ValueError) as assigned:
        numpy.zeros(3)[0] = numpy.ones((1, 2)) @ numpy.ones(2)
    hint = failed(f"ValueError: {assigned.value}").hint
    assert hint.startswith("NumPy 1.25 deprecated making a number of an array that has one")
    assert "where the code assigns such an array to one element of another" in hint
    with pytest.raises(ValueError) as ragged:
        numpy.array([[1, 2], [3]], dtype=float)
    assert failed(f"ValueError: {ragged.value}").hint.startswith("fix the code")


def test_a_dataframe_used_as_an_array_is_named_so():
    """statsmodels' old discrete-choice example: `spector_data.exog[:5, :]` and
    `rand_data.exog.view(float)`, written when its datasets came as arrays."""
    import pandas

    frame = pandas.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    with pytest.raises(Exception) as indexed:
        frame[:1, :]
    with pytest.raises(AttributeError) as viewed:
        frame.view(float)  # type: ignore[operator]
    for error, used in ((indexed, "[rows, columns] by position"), (viewed, ".view()")):
        hint = failed(f"{type(error.value).__name__}: {error.value}").hint
        assert hint.startswith(f"the code uses a pandas DataFrame as a NumPy array ({used})")
        assert "`frame.to_numpy()`" in hint and "`frame.iloc[...]`" in hint
    assert failed("KeyError: 'c'").hint.startswith("fix the code")
    assert failed("AttributeError: 'DataFrame' object has no attribute 'c'").hint.startswith(
        "fix the code"
    )


def test_a_type_error_inside_a_library_the_line_calls_suggests_another_version_first():
    """QuantEcon's tauchen takes its grid size first since 0.7: a call written before
    fails inside it, on a float."""
    traced = library_traceback(
        "mc = qe.markov.tauchen(0.9, 0.1, 0, 3, 11)",
        "numpy/markov/approximation.py",
        "numpy/_core/function_base.py",
    )
    message = "TypeError: 'float' object cannot be interpreted as an integer"
    hint = failed(message, traceback=traced).hint
    numpy = importlib.metadata.version("numpy")
    assert hint.startswith(
        f"raised inside numpy (installed: {numpy}), on the arguments this line passes: code "
        "written for another version of numpy may pass what it now takes in another order"
    )
    assert hint.endswith(
        "else fix the code; if raising TypeError is what this block shows, "
        "declare it: ':raises: TypeError' on the line after the block's "
        "opening line"
    )
    # Raised in the lesson's own code, or not a TypeError: the code's to fix.
    assert failed(message).hint.startswith("fix the code")
    # Not a TypeError, but raised inside the library the line calls: named, with its version.
    assert failed("ValueError: bad", traceback=traced).hint.startswith(
        f"it was raised inside numpy (installed: {numpy}), which this line calls: check what "
        "the code gives it"
    )
    # A block that declares another exception keeps that hint.
    declared = failed(message, traceback=traced, declared="ValueError").hint
    assert declared.startswith("the block declares ':raises: ValueError'")


def test_a_type_error_names_the_library_the_line_calls_not_one_it_went_through():
    """GPJax's `gpx.likelihoods.Gaussian(num_datapoints=n)` is bound by equinox's metaclass
    and jaxtyping, whose frames come first: the library to look at is the one the line
    calls, by the name the lesson imported it as."""
    traced = library_traceback(
        "likelihood = mpl.figure.Figure(num_datapoints=n)",
        "numpy/_module.py",
        "numpy/_decorator.py",
    )
    message = "TypeError: got an unexpected keyword argument 'num_datapoints'"
    hint = failed(message, traceback=traced, aliases={"mpl": "matplotlib"}).hint
    matplotlib = importlib.metadata.version("matplotlib")
    assert hint.startswith(f"raised inside matplotlib (installed: {matplotlib}), on the")
    # A name the lesson did not import from an installed library: the first one traced.
    unknown = failed(message, traceback=traced.replace("mpl.", "mine."), aliases={}).hint
    assert unknown.startswith("raised inside numpy (installed: ")


def test_a_keyword_an_installed_function_lacks_is_another_version_not_the_code():
    quoted = (
        'Traceback (most recent call last):\n  File "lesson.md", line 168, in <module>\n'
        "    y, f_vjp = jax.vjp(layer, W1, x0, saveable_args=(False, True))\n"
    )
    message = "TypeError: vjp() got an unexpected keyword argument 'saveable_args'"
    assert failed(message, traceback=quoted).hint == (
        "jax.vjp of the installed jax takes no keyword saveable_args: the code was written "
        f"for another version of jax (installed: {importlib.metadata.version('jax')}); write "
        "it for the version installed (the page's setup help lists it), or install the "
        "version the code needs"
    )
    # Called by a name that is no module (the lesson's own object): the code's to fix.
    own = quoted.replace("jax.vjp(", "model.vjp(")
    assert failed(message, traceback=own).hint.startswith("fix the code")
    # Raised inside an installed package the lesson's call went through (Orbax's
    # save_pytree handing `pytree=` on to its save): that package's version.
    inside = own + (
        '  File "/venv/lib/python3.11/site-packages/jax/_src/api.py", line 9, in vjp\n'
        "    return _vjp(*args, **kwargs)\n"
    )
    hint = failed(message, traceback=inside).hint
    assert hint.startswith(
        "vjp of the installed jax takes no keyword saveable_args: the code was written for "
        "another version of jax"
    )


def test_a_class_of_an_installed_package_reached_through_an_alias_is_another_version():
    """Orbax's v1 guides, imported `as ocp`: a keyword a class's __init__ does not take, and
    an attribute a class lacks, are the installed version's, named by their full module."""
    aliases = {"jnp": "jax.numpy"}
    quoted = '  File "lesson.md", line 9, in <module>\n    opts = jnp.dtype.Saving(fn=1)\n'
    message = "TypeError: dtype.Saving.__init__() got an unexpected keyword argument 'fn'"
    hint = failed(message, traceback=quoted, aliases=aliases).hint
    assert hint.startswith("jax.numpy.dtype.Saving of the installed jax takes no keyword fn:")
    quoted = '  File "lesson.md", line 9, in <module>\n    o = jnp.ndarray.create_with(1)\n'
    message = "AttributeError: type object 'ndarray' has no attribute 'create_with'"
    hint = failed(message, traceback=quoted, aliases=aliases).hint
    assert hint.startswith("the installed jax has no jax.numpy.ndarray.create_with:")
    # Without the alias the lesson imported, `jnp` is nothing installed: the code's to fix.
    assert failed(message, traceback=quoted).hint.startswith("fix the code")


def test_a_relative_file_the_code_cannot_open_is_named_with_where_the_code_runs():
    hint = failed("FileNotFoundError: [Errno 2] No such file or directory: 'data/jacappella'").hint
    assert hint.startswith(
        "the lesson's code runs in a folder of its own, which holds only the files the front "
        "matter lists (files:): save data/jacappella beside the lesson and list it there"
    )
    assert "':raises: FileNotFoundError'" in hint
    # An absolute path is no file the lesson brings: the code's own business.
    absolute = failed("FileNotFoundError: [Errno 2] No such file or directory: '/data/x'")
    assert absolute.hint.startswith("fix the code; if raising FileNotFoundError")


def test_numpys_words_for_a_missing_file_and_a_path_made_from_the_working_folder(tmp_path):
    """np.genfromtxt says "rows.csv not found." (numpy-tutorials' air quality and Moore's
    law); `os.path.join(os.getcwd(), name)` makes the name absolute, in the folder the
    code runs in (their masked-arrays tutorial): both are files to bring beside the lesson."""
    import numpy as np

    with pytest.raises(FileNotFoundError) as said:
        np.genfromtxt(str(tmp_path / "air-quality-data.csv"))
    relative = str(said.value).replace(f"{tmp_path}/", "")
    assert relative == "air-quality-data.csv not found."
    run_folder = "/tmp/coursesite-4026-592-40/lesson-masked-arrays-4no3rwjd/run/who.csv"
    for message, name in (
        (relative, "air-quality-data.csv"),
        (f"{run_folder} not found.", "who.csv"),
        (f"[Errno 2] No such file or directory: '{run_folder}'", "who.csv"),
    ):
        hint = failed(f"FileNotFoundError: {message}").hint
        assert f"(files:): save {name} beside the lesson and list it there" in hint, message
    elsewhere = failed("FileNotFoundError: /srv/data/who.csv not found.").hint
    assert elsewhere.startswith("fix the code")


def test_a_live_value_gets_the_names_the_lesson_defines():
    def hint(message, names):
        return failed(message, block="live-values", names=names).hint

    assert hint("NameError: name 'sizez' is not defined", ["ids", "sizes"]) == (
        "a live value may use only names the lesson's code defines (did you mean 'sizes'?)"
    )
    assert hint("NameError: name 'q' is not defined", ["ids", "sizes"]) == (
        "a live value may use only names the lesson's code defines: ids, sizes"
    )
    many = [f"name{n}" for n in range(13)]
    assert hint("NameError: name 'q' is not defined", many).endswith(
        ": " + ", ".join(many[:12]) + ", ..."
    )
    assert hint("NameError: name 'q' is not defined", many[:12]).endswith(many[11])
    assert hint("NameError: name 'q' is not defined", []) == (
        "a live value may use only names the lesson's code defines"
    )
    assert hint("live value is 5,000 characters long", []) == (
        "show something short in prose: a count, a summary, or the first few items"
    )
    assert hint("TypeError: bad", []) == (
        "fix the expression in {value}`...`: it runs after every block, in their namespace"
    )
    assert hint("NameError: name 'q' is not defined", None or []).startswith("a live value")
    assert failed("NameError: x", block="live-values").hint.startswith("fix the expression")


OUTPUTS = {"step-1": "a\nb\n", "step-2": "c\nd\n"}


def test_main_py_drift_names_the_step_and_line_it_first_differs_in():
    error = main_py_drift_error(Job(), OUTPUTS, (list("abcd"), list("abXd")), "the diff")
    assert error.message == (
        "the downloadable main.py prints something else than the build steps did, first in "
        "the output of step 2, its line 1: 'c' became 'X'"
    )
    assert (error.path, error.line, error.hint, error.detail) == (
        LESSON,
        20,
        NONDETERMINISM_HINT,
        "the diff",
    )
    first = main_py_drift_error(Job(), OUTPUTS, (list("abcd"), list("Xbcd")), "")
    assert first.message.endswith("first in the output of step 1, its line 1: 'a' became 'X'")
    assert first.line == 10
    second_line = main_py_drift_error(Job(), OUTPUTS, (list("abcd"), list("abcX")), "")
    assert second_line.message.endswith("step 2, its line 2: 'd' became 'X'")


def test_main_py_printing_more_or_less_is_placed_at_the_last_step():
    more = main_py_drift_error(Job(), OUTPUTS, (list("abcd"), list("abcde")), "")
    assert more.message.endswith(
        "first in the output of step 2, its line 3: '(nothing)' became 'e'"
    )
    less = main_py_drift_error(Job(), OUTPUTS, (list("abcd"), list("abc")), "")
    assert less.message.endswith("its line 2: 'd' became '(nothing)'")
    unnamed = main_py_drift_error(Job(labels={}), {"s": "a\n"}, (["a"], ["b"]), "")
    assert unnamed.message.endswith("first in the output of s, its line 1: 'a' became 'b'")
    assert unnamed.line is None


def test_main_py_drift_without_steps_says_no_where():
    error = main_py_drift_error(Job(), {}, ([], ["x"]), "")
    assert error.message == (
        "the downloadable main.py prints something else than the build steps did"
    )
    assert error.line is None and error.hint == NONDETERMINISM_HINT
    assert NONDETERMINISM_HINT.startswith("the same steps printed something else on a second run")


def test_what_was_printed_is_shown_as_printed_and_only_the_failed_blocks():
    assert failed("ValueError: x", printed="\nout  \nX\n").detail == (
        "what it printed before it failed:\n\nout  \nX"
    )
    error = failure_error(
        {"block": "step-2", "message": "ValueError: x", "line": 3, "traceback": ""},
        {"blocks": [{"id": "step-1", "stdout": "not this\n"}]},
        Job(),
    )
    assert error.detail is None
    # A result whose blocks or names the runner left out still gives a message.
    without = {"block": "live-values", "message": "NameError: name 'q' is not defined"}
    error = failure_error({**without, "line": 1, "traceback": ""}, {}, Job())
    assert error.detail is None
    assert error.hint == "a live value may use only names the lesson's code defines"


def test_drift_past_the_second_step_is_placed_in_its_own_step():
    outputs = {"step-1": "a\n", "step-2": "b\n", "step-3": "c\nd\n"}
    labels = {"step-1": "step 1", "step-2": "step 2", "step-3": "step 3"}
    job = Job(labels=labels, step_lines={"step-3": 30})
    error = main_py_drift_error(job, outputs, (list("abcd"), list("abcX")), "")
    assert error.message.endswith("the output of step 3, its line 2: 'd' became 'X'")
    assert error.line == 30


def test_a_failure_the_network_caused_gets_no_raises_advice():
    error = failed("URLError: <urlopen error [Errno -3] Temporary failure>", network=True)
    assert error.hint == NETWORK_HINT and ":raises:" not in error.hint
    assert error.message.endswith("; it read the network")


def test_an_operation_only_an_accelerator_implements_asks_for_that_hardware():
    message = (
        "NotImplementedError: MLIR translation rule for primitive 'cutlass_call_inner' not "
        "found for platform cpu"
    )
    assert failed(message).hint.startswith(
        "cutlass_call_inner runs only on an accelerator, and JAX has only CPUs here: declare "
        "the hardware the lesson needs (`hardware: gpu` in the front matter)"
    )


def test_a_module_a_library_imports_as_it_runs_names_that_library():
    trace = (
        'Traceback (most recent call last):\n  File "lesson.md", line 49, in <module>\n'
        '    builder = tfds.builder("mnist")\n'
        '  File "/env/lib/python3.11/site-packages/tensorflow_datasets/core/utils/'
        'resource_utils.py", line 33, in <module>\n    import importlib_resources\n'
    )
    message = "ModuleNotFoundError: No module named 'importlib_resources'"
    assert failed(message, traceback=trace).hint.startswith(
        "importlib_resources is not installed where the site is built (tensorflow_datasets "
        "imports it as it runs, without asking pip for it): install its package there"
    )
    assert failed(message).hint.startswith(
        "importlib_resources is not installed where the site is built: install"
    )


def test_code_that_worked_under_other_versions_is_told_why_it_fails_here():
    """A label's math a newer matplotlib refuses, and `X | None` on what is no type here:
    the author learns why code that ran where it was written fails, and what to change."""
    mathtext = (
        "ValueError: \n$m - p}$\n^\nParseException: Expected end of text, found '$'  "
        "(at char 0), (line:1, col:1)"
    )
    assert failed(mathtext).hint.startswith(
        "matplotlib cannot parse the math text $m - p}$ of a label, title or text"
    )
    union = "TypeError: unsupported operand type(s) for |: 'function' and 'NoneType'"
    hint = failed(union).hint
    assert "'|' between a function and a NoneType" in hint
    assert "from __future__ import annotations" in hint
    # Other ValueErrors and TypeErrors are the code's own.
    assert failed("ValueError: $x$ is bad").hint.startswith("fix the code")
    assert failed("TypeError: unsupported operand type(s) for +: 'int' and 'str'").hint.startswith(
        "fix the code"
    )


def test_arguments_an_installed_library_validates_and_refuses_are_another_version():
    """albumentations 2 validates its arguments with pydantic, and refuses the width= and
    height= that 1.x took (jax-ai-stack's segmentation tutorial): as its build printed it."""
    message = (
        "ValueError: 1 validation error for InitSchema\nsize\n  Field required "
        "[type=missing, input_value={'scale': (0.7, 1.0), 'ra...': 1.0, 'strict': False}, "
        "input_type=dict]\n    For further information visit "
        "https://errors.pydantic.dev/2.14/v/missing"
    )
    traceback = library_traceback(
        "A.RandomResizedCrop(width=img_size, height=img_size, scale=(0.7, 1.0)),",
        "albumentations/core/validation.py",
        "pydantic/main.py",
    )
    hint = failed(message, traceback=traceback).hint
    assert hint.startswith(
        "the installed albumentations refuses the arguments this line passes (size: Field "
        "required): the code was written for another version of albumentations"
    ), hint
    # The same words from the lesson's own pydantic model are the code's to fix.
    own = library_traceback('Settings(port="x")')
    assert failed(message, traceback=own).hint.startswith("fix the code")


def test_a_flax_list_of_modules_left_static_is_code_for_an_older_flax():
    message = (
        "ValueError: Found data on value of type '<class 'list'>' assigned to static attribute "
        "'blocks' of Pytree type '<class '__main__.ViT'>'. Static attributes should not "
        "contain data values. Consider one of the following options:"
    )
    hint = failed(message).hint
    assert hint.startswith("flax's nnx (0.12 and later) takes a plain list on a Module as")
    assert "`self.blocks = nnx.List(...)`" in hint


def test_a_library_saying_it_no_longer_does_what_the_line_asks_is_another_version():
    """Flax's bridge guide: `variable += x` raises "In-place operations are no longer
    supported for Variable" from inside flax: the version's, said with what to do."""
    quoted = library_traceback("count += 1", "numpy/core/variablelib.py")
    message = "NotImplementedError: In-place operations are no longer supported for Variable."
    hint = failed(message, traceback=quoted).hint
    assert hint.startswith(
        "the installed numpy says it no longer does what this line asks: the code was written "
        "for an older version of numpy (installed: "
    ), hint
    # The same words from the lesson's own code, or other words from a library, are the code's.
    own = library_traceback("raise NotImplementedError(...)")
    assert failed(message, traceback=own).hint.startswith("fix the code")
    changed = (
        "ValueError: Unrecognized `verbose`. Note that this changed in Optimistix version 0.1.0"
    )
    assert failed(changed, traceback=quoted).hint.startswith("the installed numpy says it no")
    required = (  # Flax's nnx.Optimizer, called as flax 0.10 took it
        "TypeError: Missing required argument `wrt`. As of Flax 0.11.0 the `wrt` argument is "
        "required, if you want to keep the previous use nnx.ModelAndOptimizer instead"
    )
    assert failed(required, traceback=quoted).hint.startswith("the installed numpy says it no")
    since = "ValueError: since the batch is empty, 2 of 3 steps were skipped"
    # No version in the library's words: raised inside it, which the hint names.
    assert failed(since, traceback=quoted).hint.startswith("it was raised inside numpy")
    other = "NotImplementedError: In-place operations need a copy."
    assert failed(other, traceback=quoted).hint.startswith("it was raised inside numpy")


def test_code_that_asks_for_a_cuda_gpu_where_there_is_none_is_told_so():
    """JAX's own words for a backend it lacks, and PyTorch's for a driver it cannot find
    (`x.to(device="cuda")` in jax-ai-stack's guide for PyTorch users)."""
    import jax

    with pytest.raises(RuntimeError) as jax_said:
        jax.devices("cuda")
    torch_said = (
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
        "and installed a driver from http://www.nvidia.com/Download/index.aspx"
    )
    for said in (str(jax_said.value), torch_said):
        hint = failed(f"RuntimeError: {said}").hint
        assert hint.startswith("the code asks for a CUDA GPU, and the machine that builds"), said
        assert "`hardware: gpu`" in hint and ":raises:" not in hint


def test_a_library_that_reaches_into_another_s_removed_internals_is_said_as_a_mismatch():
    """BlackJAX's change-of-variable page imports tensorflow-probability 0.25, whose JAX
    substrate reads jax.interpreters.xla.pytype_aval_mappings, gone from jax 0.10: not the
    page's code written for another jax, but two installed libraries that do not go
    together. The page's own use of a gone name is still the code's."""
    import importlib.metadata

    said = "AttributeError: module 'jax.interpreters.xla' has no attribute 'pytype_aval_mappings'"
    inside = library_traceback(
        "import tensorflow_probability.substrates.jax as tfp",
        "tensorflow_probability/python/internal/backend/jax/compat.py",
    )
    jax = importlib.metadata.version("jax")
    assert failed(said, traceback=inside).hint.startswith(
        "the installed tensorflow_probability uses jax.interpreters.xla.pytype_aval_mappings, "
        f"which the installed jax (installed: {jax}) lacks: it was made for another jax, and "
        "the two do not go together"
    )
    own = library_traceback("print(jax.interpreters.xla.pytype_aval_mappings)")
    assert failed(said, traceback=own).hint.startswith("the installed jax has no ")


def test_a_flax_model_of_transformers_4_says_transformers_5_removed_it():
    """Flax's transfer-learning guide imports FlaxCLIPModel, which transformers 5 removed
    with every Flax and TensorFlow model: "written for another version" is true, but the
    version to pin is known. Another name transformers lacks is not said so."""
    said = (
        "ImportError: cannot import name 'FlaxCLIPModel' from 'transformers' "
        "(/venv/lib/python3.11/site-packages/transformers/__init__.py)"
    )
    hint = failed(said).hint
    assert hint.startswith("transformers 5 removed its Flax and TensorFlow models, "), hint
    assert "FlaxCLIPModel among them" in hint and "pin transformers<5" in hint
    attribute = "AttributeError: module 'transformers' has no attribute 'TFBertModel'"
    assert "TFBertModel among them" in failed(attribute).hint
    other = "ImportError: cannot import name 'FlaxNothing' from 'flaxlike' (/x.py)"
    assert not failed(other).hint.startswith("transformers 5")


def test_a_figure_set_in_latex_where_there_is_none_says_what_the_machine_lacks():
    said = (  # Matplotlib 3.11, saving a figure of QuantEcon's five_preferences
        "the figure it drew cannot be saved as SVG: RuntimeError: Failed to process string "
        "with tex because latex could not be found"
    )
    hint = failed(said).hint
    assert hint.startswith("Matplotlib is told to set text with LaTeX (text.usetex)"), hint
    assert "texlive-latex-extra" in hint
    assert failed("RuntimeError: could not be found").hint.startswith("fix the code")
    dot = (  # graphviz 0.21, rendering NumPyro's model drawing to a file
        "ExecutableNotFound: failed to execute PosixPath('dot'), make sure the Graphviz "
        "executables are on your systems' PATH"
    )
    assert failed(dot).hint.startswith("the graphviz package draws with Graphviz's `dot`")


def test_an_assert_that_the_machine_has_a_cuda_gpu_is_the_machine_s_lack():
    """Flax's FP8 guide asserts a Hopper GPU in its first step (its traceback as the build
    showed it on CPUs): the assert fails for the machine, and the hint says so; another
    assert is the code's."""
    frame = '  File "content/01-basics/02-fp8.md", line 57, in <module>\n'
    gpu = frame + '    assert jtu.is_cuda_compute_capability_at_least("9.0")\nAssertionError'
    hint = failed("AssertionError", traceback=gpu).hint
    assert hint.startswith("the code asks for a CUDA GPU, and the machine that builds"), hint
    numpyro = (  # NumPyro's benchmark notebook: numpyro.set_platform("gpu"), under JAX 0.10
        "AssertionError: Invalid platform 'gpu'. Valid platforms are: cpu, cuda, rocm, tpu, METAL."
    )
    assert failed(numpyro).hint == hint
    total = frame + "    assert total == 4, 'four batches on the GPU'\nAssertionError"
    assert failed("AssertionError", traceback=total).hint.startswith("an assert failed")


def test_a_step_its_notebook_ran_names_the_installed_libraries_the_failure_went_through():
    import importlib.metadata

    traceback = library_traceback(
        "updates, state = optim.update(grads, state)", "jax/_src/tree_util.py", "numpy/x.py"
    )
    failure = {
        "block": "step-2",
        "message": "ValueError: pytree structure error: different types at key path",
        "line": 23,
        "traceback": traceback,
    }
    job = Job(stored_runs={"step-2": "train_rnn.ipynb (cell 10)"})
    hint = failure_error(failure, {"blocks": []}, job).hint
    jax, numpy = (importlib.metadata.version(name) for name in ("jax", "numpy"))
    assert hint.startswith(
        "train_rnn.ipynb (cell 10) ran this step without raising ValueError: the libraries it "
        "calls are likely other versions than the notebook was run with: "
        f"jax (installed: {jax}), numpy (installed: {numpy}); install the versions"
    ), hint
    # A step the notebook did not run: the library it was raised in, no stored run.
    assert failure_error(failure, {"blocks": []}, Job()).hint.startswith(
        f"it was raised inside jax (installed: {jax}), which this line calls (and in numpy)"
    )
    declared = {**failure, "declared": "TypeError"}
    assert not failure_error(declared, {"blocks": []}, job).hint.startswith("train_rnn")


def test_a_line_that_varies_gets_a_volatile_pattern_of_what_both_runs_share():
    """Orbax's checkpoint format guide lists an OCDBT checkpoint's files, whose names are
    new on every run: the hint gives the pattern that matches both runs' line, cut back to
    whole words, and none when they share too little to tell the line from others."""
    import re

    from coursesite.execution.failures import volatile_suggestion

    first = "..........b86baa203b6133d257b0cbb62cd48035"
    second = "..........1e187a85ad85d2b6dbb6c2a7b99d815b"
    pattern = volatile_suggestion(first, second)
    assert pattern == r"^\.\.\.\.\.\.\.\.\.\..*$"
    assert re.search(pattern, first) and re.search(pattern, second)
    timed = volatile_suggestion("Time: 09:27:43   BIC 13.1", "Time: 09:28:01   BIC 13.1")
    assert timed == r"^Time: 09:.*   BIC 13\.1$"  # `09:2` would cut a word
    assert volatile_suggestion("abc", "xyz") == ""
    assert volatile_suggestion("id 12", "id 13") == ""  # "id " says too little


def test_every_line_that_varies_gets_its_pattern_once():
    """The checkpoint listing's file names vary at two depths: one pattern each, in order,
    and none for a line a pattern already takes or that says too little."""
    from coursesite.execution.failures import volatile_suggestions

    expected = ["tree:", "....a1b2c3", "....d4e5f6", "...9f8e7d6c", "id 12", "done"]
    actual = ["tree:", "....0a0b0c", "....1d1e1f", "...00ff00ff", "id 13", "done"]
    assert volatile_suggestions(expected, actual) == [r"^\.\.\.\..*$", r"^\.\.\..*$"]
    assert volatile_suggestions(["same"], ["same"]) == []
    # A shorter block in main.py's output: its line is never paired with one after the
    # block, which never varied (`^loss .*$` would take the last line too).
    expected = ["h", "loss 0.5 at step 1", "loss 0.4 at step 2", "loss 0.3 at step 3"]
    actual = ["h", "loss 0.7 at step 1", "loss 0.3 at step 3"]
    assert volatile_suggestions(expected, actual) == [r"^loss 0\..* at step 1$"]


def test_a_one_element_series_taken_as_a_number_is_pandas_expired_deprecation():
    """statsmodels' GLM example prints `"%2.4f%%" % (diff*100)`, diff the difference of two
    predictions of one row each: a Series, which pandas 3 no longer takes as a number. The
    messages are Python's own, from the real calls."""
    import pandas

    series = pandas.Series([0.5])
    made = [lambda: "%2.4f" % series, lambda: float(series), lambda: f"{series:.2f}"]  # noqa: UP031
    for make in made:
        with pytest.raises(TypeError) as refused:
            make()
        hint = failed(f"TypeError: {refused.value}").hint
        assert hint.startswith("the code uses a pandas Series where Python wants a number")
        assert f"pandas {pandas.__version__} refuses" in hint and "`s.iloc[0]`" in hint
    with pytest.raises(TypeError) as other:
        print("%f" % "text")  # noqa: UP031
    assert failed(f"TypeError: {other.value}").hint.startswith("fix the code")


def test_a_series_indexed_by_position_is_pandas_3s_label_only_lookup():
    """statsmodels' concentrated_scale prints `res.params[0]`, params a Series named by
    parameter: pandas 3 reads 0 as a label only and raises KeyError inside its own
    __getitem__. The traceback is the real one; a KeyError of a dict is the code's."""
    import traceback

    import pandas

    params = pandas.Series([0.5, 0.2], index=["var.level", "var.irregular"])
    with pytest.raises(KeyError) as refused:
        params[0]
    trace = "".join(traceback.format_tb(refused.value.__traceback__))
    hint = failed("KeyError: 0", traceback=trace).hint
    assert hint.startswith("the code indexes a pandas Series by position, `s[0]`")
    assert f"pandas {pandas.__version__} reads it as a label only" in hint
    assert hint.endswith("write `s.iloc[0]`")
    with pytest.raises(KeyError) as plain:
        {}[0]
    trace = "".join(traceback.format_tb(plain.value.__traceback__))
    assert "iloc" not in failed("KeyError: 0", traceback=trace).hint


def test_an_artist_deleted_from_an_axes_list_is_matplotlibs_read_only_list():
    """`del ax.lines[1:]` (a slice, which the import leaves): Matplotlib's own refusal,
    from the real call, gets the artist's remove() as the way, not 'fix the code'."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 2])
    for deletion in ("del ax.lines[0]", "del ax.lines[0:]"):  # Python words them apart
        with pytest.raises(TypeError) as refused:
            exec(deletion, {"ax": ax})
        hint = failed(f"TypeError: {refused.value}").hint
        assert hint.startswith("Matplotlib 3.7 made an axes' lists of artists")
        assert "`ax.lines[0].remove()`" in hint
    plt.close(fig)


def test_a_method_of_a_class_the_lesson_imported_by_name_is_that_packages_version():
    """statsmodels' exponential smoothing example: `ExponentialSmoothing(aust, ...)
    .fit(use_boxcox=True)`, whose keyword moved to the constructor; Python names the class
    and its method, and the lesson imported the class by name."""
    import pandas

    quoted = '  File "lesson.md", line 9, in <module>\n    fit1 = Frame(rows).fit(boxcox=True)\n'
    message = "TypeError: DataFrame.fit() got an unexpected keyword argument 'boxcox'"
    aliases = {"DataFrame": "pandas.DataFrame"}
    hint = failed(message, traceback=quoted, aliases=aliases).hint
    assert hint.startswith(
        "pandas.DataFrame.fit of the installed pandas takes no keyword boxcox: the code was "
        f"written for another version of pandas (installed: {pandas.__version__})"
    )
    # The lesson's own class of that name is the code's to fix.
    assert failed(message, traceback=quoted).hint.startswith("fix the code")
    own = {"DataFrame": "lessonmodels.DataFrame"}
    assert failed(message, traceback=quoted, aliases=own).hint.startswith("fix the code")


def test_an_unpacking_in_a_librarys_own_code_gets_no_hint_about_the_lessons_call():
    """The unpacking hint names the call on the lesson's line; where the unpacking failed in
    a library's code, that line is the library's, and the hint would blame the lesson's."""
    from coursesite.execution.oldcodehints import unpacking_hint

    message = "ValueError: not enough values to unpack (expected 3, got 2)"
    lesson = 'File "content/lesson.md", line 9, in <module>\n    a, b, c = split(x)\n'
    library = (
        'File "/v/lib/python3.11/site-packages/lib/core.py", line 4, in f\n    p, q, r = g()\n'
    )
    said = unpacking_hint({"message": message, "traceback": lesson})
    assert said.startswith("the line unpacks what split() returns into 3 names")
    assert unpacking_hint({"message": message, "traceback": lesson + library}) == ""
    assert unpacking_hint({"message": message, "traceback": lesson.replace("split(x)", "x")}) == ""
