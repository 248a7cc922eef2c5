"""The printed lines of an imported notebook that carry what the clock measured.

A tutorial times its code by hand (`start = time.time()`, ..., `elapsed = time.time() -
start`) and prints what it found, often worked further (`ratio = numpy_time / jax_time`):
such a line differs on every run, so the build's check of `main.py` would fail on it. A
name is clock-made when it is assigned from an expression that reads a clock
(`time.time()`, `perf_counter()`, `timeit.repeat(...)`, `datetime.now()`, QuantEcon's
`qe.toc()`), is what `with qe.Timer() as timer` binds (a timer, whose `elapsed` is what
it measured), is what a numba function returns that draws random numbers no seed reaches
(in parallel threads, or unseeded in compiled code), or uses a clock-made name, in any
cell; a `print` that uses one gets a
`volatile:` pattern made of its text: what it says literally, and `.*` where a value
goes. A library's table that prints the date and time it ran (statsmodels' `summary()`)
gets patterns of those rows.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from typing import TypeGuard

from coursesite.execution.executionrecord import literal_pattern
from coursesite.importers.datafiles import called_name
from coursesite.importers.seeding import compiled_draws, compiled_seeds
from coursesite.importers.steplines import bound_modules, code_tree

# Functions that read a clock, by module; the module's own name and its aliases count.
_CLOCKS = {
    "time": {"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns"}
    | {"process_time", "process_time_ns", "thread_time", "thread_time_ns"},
    "timeit": {"default_timer", "timeit", "repeat"},  # what they return is a duration
    "datetime": {"now", "utcnow", "today"},
    "quantecon": {"toc", "tac", "loop_timer"},
}
_EVERY_CLOCK = set().union(*_CLOCKS.values())
# Calls whose printed tables carry the date and time they ran, or how long they took, by
# the package of the lesson's imports they come from: statsmodels' results print "Date:"
# and "Time:" rows; QuantEcon's compute_fixed_point a row an iteration, "Elapsed (seconds)"
# last ("{i:<13}{d:<15.3e}{t:<18.3e}").
_STAMPED_TABLES = {
    "statsmodels": ("summary", ("^Date: ", "^Time: ")),
    "quantecon": ("compute_fixed_point", (r"^\d+ +-?\d\.\d{3}e[+-]\d+ +\d\.\d{3}e[+-]\d+ *$",)),
}
_CLASSES = {"datetime", "date"}  # datetime.datetime.now(), date.today()
# Methods that put what they are given into the container they are called on.
_FILLING = {"append", "extend", "insert", "add", "update", "appendleft", "extendleft"}
_LEAST_TEXT = 4  # letters a pattern must say literally, or it would match any line


def clock_patterns(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(where, pattern) for each print of the `steps` ((where, code), in order) that prints
    a clock-made value: one the step or a step before it made from a clock (a name a later
    step assigns from the clock, `end = date.today()`, is not yet clock-made). The pattern
    is "" for a step whose output no pattern can tell: a print of too little text
    (`print(tabulate(timings))`), or a last line whose value is clock-made."""
    trees = [(where, tree) for where, code in steps if (tree := code_tree(code)) is not None]
    names = {name: module for _, tree in trees for name, module in bound_modules(tree).items()}
    found = _stamped_tables(trees, names)
    clocks = _clock_names([tree for _, tree in trees], names)
    made: set[str] = set()
    printing: set[str] = set()  # functions and classes whose code prints what no pattern tells
    for at, (where, tree) in enumerate(trees):
        made = _clock_made([tree for _, tree in trees[: at + 1]], clocks, made)
        unpatterned = _shows_clock_made(tree, clocks, made) or bool(printing & _called(tree))
        for node in ast.walk(tree):
            if _is_print(node) and _reads(node, clocks, made):
                pattern = _pattern(node)
                if pattern and pattern not in (p for _, p in found):  # once a lesson
                    found.append((where, pattern))
                elif not pattern:
                    unpatterned = True
                    printing |= _holding(tree, node)
        if unpatterned and (where, "") not in found:  # once a step
            found.append((where, ""))
    return found


def _holding(tree: ast.Module, node: ast.AST) -> set[str]:
    """The functions and classes of `tree` whose code holds `node`: a step that calls one
    prints what it prints."""
    return {
        scope.name
        for scope in ast.walk(tree)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and any(inner is node for inner in ast.walk(scope))
    }


def _called(tree: ast.Module) -> set[str]:
    """The names a step calls, by their last part: `solve` of `model.solve()`."""
    return {called_name(call) for call in ast.walk(tree) if isinstance(call, ast.Call)} - {""}


def _shows_clock_made(tree: ast.Module, clocks: tuple[set[str], set[str]], made: set[str]) -> bool:
    """Whether the value a step shows (its last line's, as a notebook shows it) is
    clock-made."""
    if not tree.body or not isinstance(last := tree.body[-1], ast.Expr):
        return False
    return not _is_print(last.value) and _reads(last, clocks, made)


def _stamped_tables(
    trees: list[tuple[str, ast.Module]], names: dict[str, str]
) -> list[tuple[str, str]]:
    """(where, pattern) for the rows of the first table a library prints with the date and
    time it ran (`results.summary()` of a lesson that imports statsmodels); `names`: what
    the imports bind (bound_modules)."""
    imported = {module.split(".")[0] for module in names.values()}
    found = []
    for package, (method, patterns) in _STAMPED_TABLES.items():
        if package not in imported:
            continue
        where = next((w for w, tree in trees if _calls_method(tree, method)), None)
        found += [(where, pattern) for pattern in patterns] if where else []
    return found


def _calls_method(tree: ast.Module, method: str) -> bool:
    """Whether the code calls `method`, on an object or module or by its name alone."""
    return method in _called(tree)


def _clock_made(
    trees: list[ast.Module], clocks: tuple[set[str], set[str]], made: set[str]
) -> set[str]:
    """`made` and every name the `trees` assign from a clock or a clock-made name, until no
    assignment makes another (a chain may run backwards through a function's body)."""
    made = set(made)
    while True:
        before = len(made)
        for tree in trees:
            for node in ast.walk(tree):
                made |= _assigned_from_clock(node, clocks, made)
        if len(made) == before:
            return made


def _clock_names(trees: list[ast.Module], names: dict[str, str]) -> tuple[set[str], set[str]]:
    """The names a clock module goes by (`time`, `qe`) and the clock functions imported
    by name (`perf_counter`), with the notebook's functions whose results differ on every
    run as a clock's do (_parallel_draws)."""
    modules, functions = set(_CLOCKS) | _CLASSES, _parallel_draws(trees, names)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in _CLOCKS:
                        modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom) and node.module in _CLOCKS:
                for alias in node.names:
                    if alias.name in _CLOCKS[node.module]:
                        functions.add(alias.asname or alias.name)
                    elif alias.name in _CLASSES:
                        modules.add(alias.asname or alias.name)
    return modules, functions


def _parallel_draws(trees: list[ast.Module], names: dict[str, str]) -> set[str]:
    """The functions a notebook compiles with numba that draw random numbers where no seed
    reaches: numba's generator is its own, which only a seed set in compiled code sets
    (seeding.py adds one), and in parallel threads (`@njit(parallel=True)`, `prange`) each
    thread's is its own again. What they return differs on every run (QuantEcon's inventory
    dynamics: a frequency of stock-outs over firms simulated in `prange`)."""
    seeded = any(compiled_seeds(tree, names) for tree in trees)
    return {
        function.name
        for tree in trees
        for function, parallel in compiled_draws(tree, names).items()
        if parallel or not seeded
    }


def _is_clock_call(node: ast.AST, clocks: tuple[set[str], set[str]]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    modules, functions = clocks
    function = node.func
    if isinstance(function, ast.Name):
        return function.id in functions
    if isinstance(function, ast.Attribute):
        base = function.value
        base_name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        return function.attr in _EVERY_CLOCK and base_name in modules
    return False


def _reads(node: ast.AST, clocks: tuple[set[str], set[str]], made: set[str]) -> bool:
    return any(
        _is_clock_call(inner, clocks)
        or (isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and inner.id in made)
        for inner in ast.walk(node)
    )


def _assigned_from_clock(
    node: ast.AST, clocks: tuple[set[str], set[str]], made: set[str]
) -> set[str]:
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return {
            name.id
            for item in node.items
            if _is_timer(item.context_expr) and item.optional_vars is not None
            for name in _names(item.optional_vars)
        }
    if (container := _filled(node)) is not None and _reads(node, clocks, made):
        return {name.id for name in _names(container)}  # results.append([p, elapsed])
    if isinstance(node, ast.Assign):
        value, targets = node.value, node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        value, targets = node.value, [node.target]
    else:
        return set()
    if not _reads(value, clocks, made):
        return set()
    return {name.id for target in targets for name in _names(target)}


def _filled(node: ast.AST) -> ast.expr | None:
    """The container a call of a method puts its arguments into (`rows` of
    `rows.append(row)`), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value if node.func.attr in _FILLING else None
    return None


def _is_timer(node: ast.expr) -> bool:
    """`qe.Timer()`, `codetiming.Timer(...)`: a context manager that measures the time its
    block took, which `with ... as timer` binds (`timer.elapsed`)."""
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name.lower().endswith("timer")


def _names(target: ast.AST) -> Iterator[ast.Name]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node


def _is_print(node: ast.AST) -> TypeGuard[ast.Call]:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )


def _pattern(call: ast.Call) -> str:
    """`^JAX is .* times faster\\.$` for `print(f"JAX is {ratio} times faster.")`: its text,
    and `.*` where a value goes; "" when it says too little to tell its line."""
    sep = next((k.value for k in call.keywords if k.arg == "sep"), ast.Constant(" "))
    end = next((k.value for k in call.keywords if k.arg == "end"), ast.Constant("\n"))
    if not (isinstance(sep, ast.Constant) and isinstance(end, ast.Constant)) or end.value != "\n":
        return ""  # a line made of more than this call: no pattern can tell it
    parts = [_argument_pattern(argument) for argument in call.args]
    pattern = literal_pattern(str(sep.value)).join(parts)
    pattern = re.sub(r"(?:\.\*)+", ".*", pattern)
    literal = re.sub(r"\\(.)", r"\1", pattern.replace(".*", ""))
    if "\n" in literal or sum(ch.isalpha() for ch in literal) < _LEAST_TEXT:
        return ""
    return f"^{pattern}$"


def _argument_pattern(argument: ast.expr) -> str:
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return literal_pattern(argument.value)
    if isinstance(argument, ast.JoinedStr):
        return "".join(
            literal_pattern(str(part.value)) if isinstance(part, ast.Constant) else ".*"
            for part in argument.values
        )
    if template := _format_template(argument):  # 'took {} s'.format(t), 'took %.2f s' % t
        return template
    return ".*"


# A %-format's conversion: `%d`, `%.2f`, `%(name)s`, `%-8s`; `%%` is a percent sign.
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z%]")


def _format_template(argument: ast.expr) -> str:
    """The pattern of a string formatted by `str.format` or `%`: its text, `.*` for each
    field; "" for anything else, or a template Python would refuse."""
    if (
        isinstance(argument, ast.Call)
        and isinstance(argument.func, ast.Attribute)
        and argument.func.attr == "format"
        and isinstance(template := argument.func.value, ast.Constant)
        and isinstance(template.value, str)
    ):
        try:
            pieces = list(string.Formatter().parse(template.value))
        except ValueError:
            return ""
        return "".join(
            literal_pattern(text) + (".*" if field is not None else "")
            for text, field, _, _ in pieces
        )
    if (
        isinstance(argument, ast.BinOp)
        and isinstance(argument.op, ast.Mod)
        and isinstance(argument.left, ast.Constant)
        and isinstance(argument.left.value, str)
    ):
        texts = _PERCENT_FIELD.split(argument.left.value)
        fields = _PERCENT_FIELD.findall(argument.left.value)
        written = [literal_pattern(texts[0])]
        for field, text in zip(fields, texts[1:], strict=True):
            written += [literal_pattern("%") if field == "%%" else ".*", literal_pattern(text)]
        return "".join(written)
    return ""
