"""What a notebook prints of its own hand-made timings is volatile (issue #26: "volatile
output is recognised by rule"): a name assigned from a clock read, or from such a name, in
any cell, makes a print of it a `volatile:` pattern of its own text."""

from __future__ import annotations

import re
from pathlib import Path

from coursesite.importers.clockreads import clock_patterns
from coursesite.importers.lessonimport import convert
from coursesite.importers.notebooks import read_notebook

CELLS = [
    ("cell 2", "import time\nimport numpy as np\nstart = time.time()\ntotal = np.arange(9).sum()"),
    ("cell 3", "numpy_time = time.time() - start\nprint('total:', total)"),
    ("cell 4", "from time import perf_counter as clock\nt0 = clock()\njax_time = clock() - t0"),
    ("cell 5", "ratio = numpy_time / jax_time\nprint(f'JAX is {ratio:.2f} times faster.')"),
    ("cell 6", "print('took', numpy_time, 'seconds', sep=' ')\nprint(ratio)\nprint(total)"),
    ("cell 7", "import quantecon as qe\nqe.tic()\nelapsed = qe.toc()\nprint(f'{elapsed}')"),
]


def test_prints_of_clock_made_values_get_their_texts_pattern_and_others_none():
    found = clock_patterns(CELLS)
    # "": `print(ratio)`, `print(f'{elapsed}')` say no text a pattern could tell them by.
    assert found == [
        ("cell 5", r"^JAX is .* times faster\.$"),
        ("cell 6", r"^took .* seconds$"),
        ("cell 6", ""),
        ("cell 7", ""),
    ]
    faster, took = (re.compile(pattern) for _, pattern in found[:2])
    assert faster.search("JAX is 0.0021 times faster.")
    assert took.search("took 1.5 seconds")
    assert not faster.search("total: 36") and not took.search("total: 36")


def test_an_imported_notebook_lists_them_under_volatile(tmp_path: Path):
    notebook = tmp_path / "timed.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Timed\n\nWe time.\n\n"
        + "\n\n".join(f"```{{code-cell}} python3\n{code}\n```" for _, code in CELLS[:4])
    )
    imported = convert(read_notebook(notebook), "Timed", "timed.md", "t.expected.yaml")
    assert "volatile:\n  - ^JAX is .* times faster\\.$\n" in imported.text
    assert any("it prints what the clock measured" in note for note in imported.notes)


def test_what_a_timer_block_measured_is_clock_made():
    """QuantEcon's fault-tree lecture: `with qe.Timer() as timer_numpy:` ..., then
    `time_numpy = timer_numpy.elapsed`, and prints the ratio of two such times."""
    cells = [
        ("cell 4", "import quantecon as qe\nwith qe.Timer() as slow:\n    total = sum(range(9))"),
        ("cell 5", "with qe.Timer() as fast, open('f') as handle:\n    pass\nspent = slow.elapsed"),
        ("cell 6", "print(f'Speedup factor: {spent / fast.elapsed:.1f}x')\nprint(f'Sum: {total}')"),
        ("cell 7", "print(f'Lines of the file: {handle}')"),
    ]
    assert clock_patterns(cells) == [("cell 6", r"^Speedup factor: .*x$")]


def test_what_numba_draws_in_parallel_threads_differs_as_a_clock_does():
    """QuantEcon's inventory dynamics: `@njit(parallel=True)` simulates firms in `prange`,
    each drawing `np.random.randn()`; a thread's generator is its own, no seed reaches
    it, and the printed frequency of stock-outs differed between the build and main.py.
    A serial compiled function draws from numba's generator, which only a seed set in
    compiled code reaches: a clock until the notebook seeds it there."""
    cells = [
        ("cell 3", "from numba import njit, prange\nimport numpy as np\nimport numba"),
        (
            "cell 4",
            "@njit(parallel=True)\ndef stockouts(n):\n    total = 0\n"
            "    for i in prange(n):\n        total += np.random.randn() > 1\n    return total\n"
            "@numba.njit\ndef serial(n):\n    return np.random.randn(n).sum()\n"
            "@njit(parallel=True)\ndef doubled(x):\n    return 2 * x",
        ),
        ("cell 5", "freq = stockouts(100) / 100\nprint(f'Frequency of stock outs = {freq}')"),
        ("cell 6", "print(f'Serial draws: {serial(3)}')\nprint(f'Twice: {doubled(2)}')"),
        # jax.jit traces, it does not compile with numba: its keys make its draws repeat.
        (
            "cell 8",
            "import jax\nfrom jax import jit\n@jit\ndef noise(key):\n"
            "    return jax.random.normal(key)\n@jax.jit\ndef host(x):\n"
            "    return x + np.random.randn()\nprint(f'Noise: {noise(jax.random.key(0))}')\n"
            "print(f'Host: {host(1.0)}')",
        ),
    ]
    assert clock_patterns(cells) == [
        ("cell 5", r"^Frequency of stock outs = .*$"),
        ("cell 6", r"^Serial draws: .*$"),
    ]
    seeding = ("cell 7", "@njit\ndef seed(s):\n    np.random.seed(s)\nseed(0)")
    assert clock_patterns([*cells[:2], seeding, *cells[2:]]) == [
        ("cell 5", r"^Frequency of stock outs = .*$")
    ]


def test_what_timeit_measures_is_a_clock_read_too():
    """Lineax's least squares: `time_jax = timeit.repeat(...)`, then `print("JAX time:",
    min(time_jax))`, which main.py's run printed otherwise and the build refused."""
    cells = [
        ("cell 11", "import timeit\ntime_jax = timeit.repeat(lambda: 1, number=1, repeat=3)"),
        (
            "cell 12",
            "print('JAX time:', min(time_jax))\nfrom timeit import timeit as t\nx = t('1')",
        ),
        ("cell 13", "print('took', x, 'seconds')"),
    ]
    assert clock_patterns(cells) == [
        ("cell 12", r"^JAX time: .*$"),
        ("cell 13", r"^took .* seconds$"),
    ]


def test_draws_seeded_with_today_s_date_are_volatile_where_printed():
    """BlackJAX's slice-sampling page seeds JAX with today's date: what it prints of its
    draws differs from day to day, as a timing does; a draw of a fixed key does not."""
    cells = [
        (
            "line 59",
            "from datetime import date\nimport jax\n"
            "key = jax.random.key(int(date.today().strftime('%Y%m%d')))",
        ),
        (
            "line 70",
            "draws = jax.random.normal(key, (3,))\nprint(f'mean of the draws = {draws.mean()}')",
        ),
        (
            "line 80",
            "fixed = jax.random.normal(jax.random.key(0), (3,))\n"
            "print(f'fixed mean = {fixed.mean()}')",
        ),
    ]
    assert clock_patterns(cells) == [("line 70", r"^mean of the draws = .*$")]


def test_a_name_made_from_the_clock_later_leaves_an_earlier_print_of_it_alone():
    """QuantEcon's classification lecture prints an AUC, and many cells later fetches data
    up to `datetime.date.today()` into names it reuses: the earlier print is the same every
    run, and was marked volatile (its check then ignored)."""
    cells = [
        ("line 10", "auc = 0.93\nprint(f'Initial AUC value is {auc:.4f}')"),
        (
            "line 20",
            "import datetime\nend = datetime.date.today()\nauc = len(str(end)) / 100\n"
            "print(f'AUC up to {end} is {auc}')",
        ),
        ("line 30", "print(f'Final AUC value is {auc:.4f}')"),
    ]
    assert clock_patterns(cells) == [
        ("line 20", r"^AUC up to .* is .*$"),
        ("line 30", r"^Final AUC value is .*$"),
    ]


def test_statsmodels_summary_tables_print_the_date_and_time_they_ran():
    """statsmodels' ARIMA notebook prints `res.summary()`, whose "Date:" and "Time:" rows
    are the clock's: main.py, run with its clock ahead, failed on them."""
    cells = [
        ("cell 2", "import numpy as np\nimport statsmodels.api as sm\ny = np.arange(5.0)"),
        ("cell 3", "res = sm.OLS(y, np.ones(5)).fit()\nprint(res.params)"),
        ("cell 4", "print(res.summary())\nres.summary()"),
    ]
    assert clock_patterns(cells) == [("cell 4", "^Date: "), ("cell 4", "^Time: ")]
    date, time = (re.compile(pattern) for _, pattern in clock_patterns(cells))
    assert date.search("Date:                Sat, 05 Dec 2026   AIC                 12.3")
    assert time.search("Time:                        09:27:43   BIC                 13.1")
    assert not date.search("Dep. Variable:      y   R-squared:        0.000")
    # A summary() of anything else, in a lesson without statsmodels, is no clock.
    assert (
        clock_patterns([("cell 2", "import pandas as pd\nprint(pd.Series([1]).summary())")]) == []
    )


def test_quantecons_fixed_point_table_prints_how_long_each_iteration_took():
    """QuantEcon's discrete_dp calls compute_fixed_point(..., print_skip=1), whose table
    has an "Elapsed (seconds)" column: main.py printed other times. Its rows (as
    quantecon formats them) are volatile; its header and other lines are not."""
    cells = [
        ("line 9", "import quantecon as qe\nfrom quantecon import compute_fixed_point"),
        ("line 20", "v = compute_fixed_point(T, v0, max_iter=4, print_skip=1)"),
    ]
    [(where, pattern)] = clock_patterns(cells)
    assert where == "line 20"
    row = "{i:<13}{d:<15.3e}{t:<18.3e}"  # quantecon's _print_after_skip
    assert re.search(pattern, row.format(i=1, d=5.518, t=0.001996))
    assert re.search(pattern, row.format(i=12, d=-0.0004, t=12.5))
    assert not re.search(pattern, "Iteration    Distance       Elapsed (seconds)")
    assert not re.search(pattern, "Converged in 4 steps")
    assert (
        clock_patterns([("line 2", "def compute_fixed_point(): pass\ncompute_fixed_point()")]) == []
    )


def test_a_table_of_timings_tags_its_step_as_output_that_varies(tmp_path: Path):
    """QuantEcon's fault-tree lecture: each row of `results` holds a time
    (`results.append([p, f"{timer.elapsed:.4f}"])`), then `print(tabulate(results, ...))`
    prints a grid whose rows differ on every run and say no text of their own."""
    cells = [
        ("cell 2", "import time\nfrom tabulate import tabulate\nresults, sizes = [], []"),
        (
            "cell 3",
            "for p in range(3):\n    start = time.perf_counter()\n    sizes.append(2 ** p)\n"
            "    results.append([p, f'{time.perf_counter() - start:.4f}'])\n"
            "print('Timings:')\nprint(tabulate(results, headers=['p', 'Time (s)']))",
        ),
        ("cell 4", "print(tabulate([sizes]))\nsizes"),
        ("cell 5", "spent = time.perf_counter() - start\nspent"),
    ]
    assert clock_patterns(cells) == [("cell 3", ""), ("cell 5", "")]
    notebook = tmp_path / "timed.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Timed\n\nWe time.\n\n"
        + "\n\n".join(
            f"```{{code-cell}} python3\n:tags: [hide-input]\n{code}\n```" for _, code in cells
        )
    )
    imported = convert(read_notebook(notebook), "Timed", "timed.md", "t.expected.yaml")
    steps = re.findall(r":::\{step\} (\d)\. [^\n]*\n((?::.*\n)*)", imported.text)
    assert steps == [
        ("1", ":tags: [hide-input]\n"),
        ("2", ":tags: [hide-input, nbval-ignore-output]\n"),
        ("3", ":tags: [hide-input]\n"),
        ("4", ":tags: [hide-input, nbval-ignore-output]\n"),
    ]
    assert "volatile:" not in imported.text
    tagged = [note.split(":")[0] for note in imported.notes if "tagged nbval-ignore" in note]
    assert tagged == ["line 18", "line 34"]  # the code cells of cell 3 and cell 5


def test_a_cell_nbval_ignores_the_output_of_keeps_the_tag(tmp_path: Path):
    notebook = tmp_path / "tagged.md"
    notebook.write_text(
        "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n# Tagged\n\nText.\n\n"
        "```{code-cell} python3\n:tags: [nbval-ignore-output, nbval-skip]\nimport time\n"
        "print(time.time())\n```\n"
    )
    imported = convert(read_notebook(notebook), "Tagged", "tagged.md", "t.expected.yaml")
    # Tagged once: the print of a clock read would tag it too.
    assert "\n:tags: [nbval-ignore-output]\n```python\nimport time\n" in imported.text


def test_a_string_formatted_by_format_or_percent_gets_its_texts_pattern():
    """QuantEcon's Chang model prints `'Convergence achieved after {} iterations and {}
    seconds'.format(iters, round(elapsed, 2))` inside a class another step runs: with no
    pattern, only the class's step was marked, and main.py's check failed on the step that
    printed it. str.format and % templates have their text, `.*` for each field."""
    cells = [
        (
            "cell 2",
            "import time\nclass Model:\n    def solve(self):\n        t = time.time()\n"
            "        elapsed = time.time() - t\n"
            "        print('Converged after {} iterations and {:.2f} seconds'.format(3, elapsed))\n"
            "        print('took %.2f s (%d%% of it waiting)' % (elapsed, 5))",
        ),
        ("cell 3", "Model().solve()"),
    ]
    found = clock_patterns(cells)
    assert found == [
        ("cell 2", r"^Converged after .* iterations and .* seconds$"),
        ("cell 2", r"^took .* s \(.*% of it waiting\)$"),
    ]
    converged, took = (re.compile(pattern) for _, pattern in found)
    assert converged.search("Converged after 3 iterations and 136.13 seconds")
    assert took.search("took 0.51 s (5% of it waiting)")


def test_a_step_that_calls_a_function_printing_unpatterned_timings_is_marked_too():
    """A print no pattern can tell (`print(elapsed)`) inside a function or class: the step
    that calls it prints the timing, so it is marked as well as the one defining it; a
    step that calls something else is not."""
    cells = [
        (
            "cell 2",
            "import time\nclass Model:\n    def solve(self):\n        t = time.time()\n"
            "        print(time.time() - t)\n\ndef other():\n    return 1",
        ),
        ("cell 3", "model = Model()\nprint(other())"),
        ("cell 4", "model.solve()"),
    ]
    assert clock_patterns(cells) == [("cell 2", ""), ("cell 3", ""), ("cell 4", "")]
    alone = [cells[0], ("cell 3", "print(other())")]
    assert clock_patterns(alone) == [("cell 2", "")]
