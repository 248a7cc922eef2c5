"""Random numbers a notebook draws without a seed, made the same on every run.

A notebook that calls `np.random.normal(...)` before anything seeds NumPy's global
generator prints other numbers each time it runs. A page claims the numbers it shows are
what its `main.py` prints, so the build refuses such a lesson (the steps and `main.py`
disagree). The import settles it where the notebook leaves the choice open: the first step
that draws from an unseeded global generator (NumPy's, Python's `random`, torch's, and
Keras's, which any call into Keras may draw from: a layer's initial weights) gets
the seed call at its top, after the step's own imports, and a generator made without a
seed (`np.random.default_rng()`) gets seed 0. A call into networkx or scikit-learn that
gives no seed (`nx.gnp_random_graph(100, 0.5)`, `KMeans(3)`) draws from NumPy's or
Python's global generator by their default, so it seeds those too. numba's generator,
from which the functions and `@jitclass` methods it compiles draw, is seeded only by
compiled code: a step that compiles one that draws gets a compiled seed call too (threads
of `prange` stay unseeded: clockreads.py marks what they give volatile). Each change is a
line of the import report. A notebook that seeds a generator itself keeps its own seed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coursesite.importers.steplines import bound_modules, dotted_name

_NUMPY_DRAWS = frozenset(
    "rand randn randint random random_sample ranf sample choice shuffle permutation normal "
    "uniform binomial poisson exponential beta gamma standard_normal multivariate_normal "
    "lognormal laplace logistic geometric multinomial dirichlet bytes".split()
)
_PYTHON_DRAWS = frozenset(
    "random randint randrange choice choices shuffle sample uniform gauss normalvariate "
    "triangular betavariate expovariate getrandbits lognormvariate".split()
)
_TORCH_DRAWS = frozenset("rand randn randint randperm normal bernoulli multinomial".split())


@dataclass(frozen=True)
class Generator:
    module: str  # the module whose functions draw from its global state
    draws: frozenset[str]
    seed: str  # the call that seeds it, in that module
    name: str  # for the report
    # Packages whose every call may draw from it, when `draws` cannot list them (Keras's
    # layers draw their initial weights, its fit() shuffles; networkx's random graphs and
    # layouts, given no seed); `module` holds the seed.
    drawn_in: tuple[str, ...] = ()
    # Methods that draw from it when called on anything, without a `random_state=`, in
    # code that imports `method_package` (SciPy's distributions: `st.norm(0, 1).rvs(5)`).
    method_draws: frozenset[str] = frozenset()
    method_package: str = ""


GENERATORS = (
    Generator(
        "numpy.random",
        _NUMPY_DRAWS,
        "seed",
        "NumPy's global random generator",
        method_draws=frozenset({"rvs"}),  # scipy.stats draws from it by default
        method_package="scipy",
        drawn_in=("networkx", "sklearn"),  # seed=None, random_state=None: this one
    ),
    Generator("random", _PYTHON_DRAWS, "seed", "Python's random module", ("networkx",)),
    Generator("torch", _TORCH_DRAWS, "manual_seed", "torch's global random generator"),
    Generator("keras.utils", frozenset(), "set_random_seed", "Keras's random seed", ("keras",)),
)
# Constructors of a generator of its own, which draw from the OS's entropy without a seed.
_UNSEEDED_MAKERS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState"})


def seeded(code: str, earlier: str, where: str) -> tuple[str, list[str]]:
    """`code` (one step's) with the seeds it needs so that its numbers repeat on every
    run, given the `earlier` steps' code; and a report line for each change."""
    try:
        tree, before = ast.parse(code), ast.parse(earlier)
    except SyntaxError:
        return code, []
    names = bound_modules(before) | bound_modules(tree)
    notes: list[str] = []
    code = _seeded_makers(code, tree, names, where, notes)
    seeds = []
    for generator in GENERATORS:
        drawn = _calls(tree, names, generator)
        if not drawn or _calls(before, names, generator, seeding=True):
            continue
        if _calls(tree, names, generator, seeding=True):
            continue
        seeds.append(_seed_lines(generator, names))
        how, would = "it draws from", "would"
        if drawn != generator.module:  # not known to draw: its package's functions may
            package = drawn.split(".")[0]
            how = f"it calls {drawn}, and {package}'s functions, given no seed, may draw from"
            would = "could"
        notes.append(
            f"{where}: {how} {generator.name}, which nothing seeds, so every run "
            f"{would} print other numbers than the page shows: {seeds[-1][-1]} was added at "
            "the top of its step"
        )
    if numba_seed := _numba_seed(tree, before, names):
        seeds.append(numba_seed)
        notes.append(
            f"{where}: a function numba compiles draws from numba's own generator, which "
            f"only compiled code seeds, so every run would print other numbers than the page "
            f"shows: {numba_seed[-1]} was added at the top of its step (draws in parallel threads "
            "stay unseeded: what they give is marked volatile)"
        )
    if not seeds:
        return code, notes
    lines = code.splitlines()
    at = _after_leading_imports(ast.parse(code))
    added = [line for group in seeds for line in group]
    return "\n".join([*lines[:at], *added, *lines[at:]]), notes


def _calls(
    tree: ast.AST, names: dict[str, str], generator: Generator, seeding: bool = False
) -> str:
    """What in `tree` draws from `generator` (or seeds it): the generator's module for its
    own function, or the other package's function called; '' for nothing."""
    wanted = {generator.seed} if seeding else generator.draws
    by_default = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            dotted = dotted_name(node.func, names)
            module, _, function = dotted.rpartition(".")
            if module == generator.module and function in wanted:
                return generator.module
            if not seeding and _drawn_by_default(node, dotted, generator):
                by_default.append((node.lineno, node.col_offset, dotted))
            if not seeding and _method_draw(node, names, generator):
                return generator.module
    # Named by the call most likely to draw: one that says so, else the first written.
    ordered = [dotted for *_, dotted in sorted(by_default)]
    return next((name for name in ordered if "random" in name), ordered[0] if ordered else "")


# The keywords by which a library's function is given a generator or seed of its own.
_SEED_KEYWORDS = frozenset({"seed", "random_state", "rng"})


def _drawn_by_default(call: ast.Call, dotted: str, generator: Generator) -> bool:
    """A call into a package that draws from `generator` when given no seed of its own."""
    package = dotted.split(".")[0]
    given = {keyword.arg for keyword in call.keywords}
    return package in generator.drawn_in and not given & _SEED_KEYWORDS


def _numba_seed(tree: ast.Module, before: ast.Module, names: dict[str, str]) -> list[str]:
    """The lines that seed numba's generator (`numba.njit(lambda seed:
    np.random.seed(seed))(0)`) when the step compiles a function that draws from it and
    nothing compiled seeds it yet, with `import numba` where the code imports only names
    from it (`from numba import jit`); or none."""
    numba = next((name for name, module in names.items() if module == "numba"), "")
    numpy = next((name for name, module in names.items() if module == "numpy"), "")
    if not numpy or compiled_seeds(before, names) or compiled_seeds(tree, names):
        return []
    if not any(compiled_draws(tree, names)):
        return []
    imported = [] if numba else ["import numba"]
    return [*imported, f"{numba or 'numba'}.njit(lambda seed: {numpy}.random.seed(seed))(0)"]


def compiled_draws(tree: ast.AST, names: dict[str, str]) -> dict[ast.FunctionDef, bool]:
    """The functions of `tree` numba compiles that draw random numbers, each with whether
    it runs in parallel threads (`@njit(parallel=True)`), where no seed reaches; `names`:
    what the imports bind (bound_modules)."""
    methods = {  # a `@jitclass`'s methods are compiled as `@njit` functions are
        method: False
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and _jitclass(node, names)
        for method in node.body
        if isinstance(method, ast.FunctionDef)
    }
    functions = {
        node: _compiled(node.decorator_list, names)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }
    return {
        node: bool(parallel)
        for node, parallel in (functions | methods).items()
        if parallel is not None and any(_numpy_random(n, names) for n in ast.walk(node))
    }


def _jitclass(node: ast.ClassDef, names: dict[str, str]) -> bool:
    """Whether numba compiles the class (`@jitclass(spec)`, numba.experimental's)."""
    return any(
        dotted_name(d.func if isinstance(d, ast.Call) else d, names) in _NUMBA_CLASSES
        for d in node.decorator_list
    )


def compiled_seeds(tree: ast.AST, names: dict[str, str]) -> bool:
    """Whether compiled code seeds numba's generator: `np.random.seed` in a function numba
    compiles, or in a lambda given to `njit`."""
    for node in ast.walk(tree):
        compiled = (
            isinstance(node, ast.FunctionDef) and _compiled(node.decorator_list, names) is not None
        ) or (isinstance(node, ast.ClassDef) and _jitclass(node, names))
        lambdas = isinstance(node, ast.Call) and _compiled([node.func], names) is not None
        if (compiled or lambdas) and any(_numpy_random(n, names, "seed") for n in ast.walk(node)):
            return True
    return False


_NUMBA_COMPILERS = ("numba.njit", "numba.jit")  # jax.jit traces: its draws are NumPy's own
_NUMBA_CLASSES = ("numba.experimental.jitclass", "numba.jitclass")


def _compiled(decorators: list[ast.expr], names: dict[str, str]) -> bool | None:
    """Whether numba compiles with these decorators to run in parallel threads
    (`@njit(parallel=True)`); False for `@njit`, `@numba.jit(nopython=True)`; None for
    no numba decorator."""
    for decorator in decorators:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted_name(called, names) in _NUMBA_COMPILERS:
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            return any(
                k.arg == "parallel" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in keywords
            )
    return None


def _numpy_random(node: ast.AST, names: dict[str, str], what: str = "") -> bool:
    """A call of `np.random.<what>`, a draw when `what` is '' (numba compiles NumPy's
    generator calls into its own generator's)."""
    if not isinstance(node, ast.Call):
        return False
    module, _, function = dotted_name(node.func, names).rpartition(".")
    return module == "numpy.random" and (function == what if what else function != "seed")


def _method_draw(call: ast.Call, names: dict[str, str], generator: Generator) -> bool:
    """Whether `call` is a draw by one of `generator`'s methods on an object of its package
    (which the code imports), with no generator of its own given."""
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in generator.method_draws
        and not any(keyword.arg == "random_state" for keyword in call.keywords)
        and any(module.split(".")[0] == generator.method_package for module in names.values())
    )


def _seed_lines(generator: Generator, names: dict[str, str]) -> list[str]:
    """The lines that seed `generator` with 0, through a name the code already binds to its
    module when there is one."""
    for name, module in names.items():
        if module == generator.module:
            return [f"{name}.{generator.seed}(0)"]
        if generator.module.startswith(f"{module}."):
            rest = generator.module[len(module) + 1 :]
            return [f"{name}.{rest}.{generator.seed}(0)"]
    return [f"import {generator.module}", f"{generator.module}.{generator.seed}(0)"]


def _seeded_makers(
    code: str, tree: ast.Module, names: dict[str, str], where: str, notes: list[str]
) -> str:
    """`code` with seed 0 given to each generator it makes without one."""
    lines = code.splitlines()
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and dotted_name(node.func, names) in _UNSEEDED_MAKERS
        and node.end_lineno == node.lineno
    ]
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset), reverse=True):
        line = lines[call.lineno - 1]
        end = len(line.encode()[: call.end_col_offset].decode(errors="ignore"))
        if line[end - 2 : end] != "()":
            continue
        lines[call.lineno - 1] = f"{line[: end - 1]}0{line[end - 1 :]}"
        notes.append(
            f"{where}: '{line.strip()}' makes a random generator without a seed, so every "
            "run would print other numbers than the page shows: it was given seed 0"
        )
    return "\n".join(lines)


def _after_leading_imports(tree: ast.Module) -> int:
    """The line after the step's leading docstring and imports: where a seed may go."""
    at = 0
    for statement in tree.body:
        is_docstring = (
            at == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        )
        if not (isinstance(statement, ast.Import | ast.ImportFrom) or is_docstring):
            break
        at = statement.end_lineno or at
    return at
