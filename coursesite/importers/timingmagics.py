"""IPython's timing magics as plain Python: `%timeit`, `%%timeit`, `%time`, `%%time`.

`%timeit` times the statement with `timeit`, with the notebook's `-n`/`-r`, and prints
one line as IPython does (mean ± std. dev., each in the unit that fits); `%time` runs the
code once and prints its CPU and wall time. Those lines differ on every run:
TIMING_VOLATILE marks them, in the lesson and in the notebook's stored output alike.
Each function returns the lines and adds the modules they need to `modules`; the names
the timing binds start `ipython_`, so the notebook's own (`times`, `timer`) stay its own.
"""

from __future__ import annotations

import re

# What timing lines look like, IPython's (today's and those older notebooks store) and
# ours: drift and main.py checks ignore them.
TIMING_VOLATILE = [
    r" per loop \((?:best of|mean (?:±|\+-) std\. dev\. of) ",
    r"^[\d,]+ loops?, best of \d+: .* per loop$",
    r"^The slowest run took ",
    r"^(?:CPU times|Wall time): ",
]
# How IPython shows a time: three significant digits, in the largest unit that keeps the
# number at least 1. Defined once in a cell that times anything with %timeit.
IPYTHON_TIME = [
    "def ipython_time(seconds):",
    '    for scale, unit in ((1, "s"), (1e3, "ms"), (1e6, "µs")):',
    "        if seconds * scale >= 1:",
    '            return f"{seconds * scale:.3g} {unit}"',
    '    return f"{seconds * 1e9:.3g} ns"',
    "",
]


def timeit_lines(statement: str, options: str, modules: set[str], result: str = "") -> list[str]:
    """Lines that time `statement` (a Python string literal) as %timeit does: -r runs (7)
    of -n loops (as many as fill 0.2 s), printed per loop as IPython prints them,
    `1.33 s ± 12.1 ms per loop (mean ± std. dev. of 7 runs, 1 loop each)`, unless -q; with
    -o, `result` is given what IPython's TimeitResult holds, under its names."""
    modules.update(("timeit", "statistics"))
    loops = re.search(r"-n\s*(\d+)", options)
    runs = re.search(r"-r\s*(\d+)", options)
    repeat = int(runs.group(1)) if runs else 7
    rows = [
        f"ipython_timer = timeit.Timer({statement}, globals=globals())",
        f"ipython_loops = {loops.group(1)}"
        if loops
        else "ipython_loops = ipython_timer.autorange()[0]",
        f"ipython_runs = ipython_timer.repeat(repeat={repeat}, number=ipython_loops)",
        "ipython_times = [t / ipython_loops for t in ipython_runs]",
    ]
    if not re.search(r"-q\b", options):
        rows += [
            'print(f"{ipython_time(statistics.mean(ipython_times))} ± "',
            '      f"{ipython_time(statistics.pstdev(ipython_times))} per loop "',
            f'      f"(mean ± std. dev. of {repeat} run{"s" * (repeat != 1)}, "',
            """      f"{ipython_loops:,} loop{'s' * (ipython_loops != 1)} each)")""",
        ]
    if result and re.search(r"-o\b", options):
        modules.add("types")
        rows += [
            f"{result} = types.SimpleNamespace(",
            f"    loops=ipython_loops, repeat={repeat}, timings=ipython_times,",
            "    all_runs=[t * ipython_loops for t in ipython_times],",
            "    average=statistics.mean(ipython_times), stdev=statistics.pstdev(ipython_times),",
            "    best=min(ipython_times), worst=max(ipython_times),",
            ")",
        ]
    elif result:  # without -o, %timeit gives None
        rows.append(f"{result} = None")
    return rows


def time_lines(body: list[str], modules: set[str]) -> list[str]:
    """The code run once, then its CPU and wall time, as %time prints them."""
    modules.add("time")
    return [
        "ipython_wall, ipython_cpu = time.perf_counter(), time.process_time()",
        *body,
        'print(f"CPU times: total: {(time.process_time() - ipython_cpu) * 1e3:.2f} ms")',
        'print(f"Wall time: {(time.perf_counter() - ipython_wall) * 1e3:.2f} ms")',
    ]


def timed_cell_lines(magic: str, options: str, body: list[str], modules: set[str]) -> list[str]:
    """A `%%time` or `%%timeit` cell: its body (already Python) timed as a whole."""
    if magic == "time":
        return time_lines(body, modules)
    return timeit_lines(repr("\n".join(body)), options, modules)
