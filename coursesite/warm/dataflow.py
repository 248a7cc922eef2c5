"""Which blocks of a lesson must run again after an edit, from the names each block binds
and reads (as reactive notebooks find them), or why a full run must do it instead.

The warm interpreter holds the namespace the last block left. Running some blocks again in
it is right only when every name they read still holds the value a full run would give it
at that point: the analysis below refuses (falls back) wherever it cannot show that.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# Names whose use lets code reach the namespace in ways the names alone do not show.
OPAQUE = {"exec", "eval", "globals", "locals", "vars", "__import__", "__builtins__"}
# Methods that change their object in place (lists, dicts, sets, arrays' in-place kin).
MUTATING_METHODS = {
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
    "popitem", "add", "discard", "sort", "reverse", "fill", "resize", "put",
}  # fmt: skip


@dataclass(frozen=True)
class BlockNames:
    """What one block does to the lesson's namespace."""

    binds: frozenset[str]  # names it assigns, defines, imports or deletes at its top level
    reads: frozenset[str]  # names it reads before binding them itself (functions' free names too)
    mutates: frozenset[str]  # names whose object it changes in place: xs.append, d[k] = v, o.a = v
    unsure: str = ""  # why the names cannot tell what it does ("" when they can)

    @property
    def writes(self) -> frozenset[str]:
        """Names whose value may differ after the block ran."""
        return self.binds | self.mutates


class _Scope(ast.NodeVisitor):
    """The names one scope loads and stores, and the objects it changes in place; nested
    functions, classes and comprehensions add only the names they read from outside."""

    def __init__(self, nested: bool = False):
        self.loads: set[str] = set()
        self.stores: set[str] = set()
        self.mutates: set[str] = set()
        self.unsure = ""
        self.nested = nested

    def free_names(self, body: list, bound: set[str]) -> None:
        inner = _Scope(nested=True)
        for node in body:
            inner.visit(node)
        self.loads |= inner.loads - inner.stores - bound
        self.unsure = self.unsure or inner.unsure

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.id)
            if node.id in OPAQUE:
                self.unsure = self.unsure or f"it uses {node.id}()"
        else:
            self.stores.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):  # `total += x` reads total too
            self.loads.add(node.target.id)
        self.generic_visit(node)

    def _changed_in_place(self, node: ast.Attribute | ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load) and (base := _base_name(node)):
            self.mutates.add(base)
            self.loads.add(base)
        self.generic_visit(node)

    visit_Attribute = _changed_in_place
    visit_Subscript = _changed_in_place

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in MUTATING_METHODS:
            base = _base_name(function.value)
            self.mutates |= {base} if base else set()
        self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        arguments = node.args
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                self.visit(default)
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        parameters = {a.arg for a in [*every, arguments.vararg, arguments.kwarg] if a is not None}
        if isinstance(node, ast.Lambda):
            self.free_names([node.body], parameters)
            return
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.stores.add(node.name)
        self.free_names(node.body, parameters)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for part in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(part)
        self.stores.add(node.name)
        self.free_names(node.body, set())

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension_scope(node.generators, [node.elt])

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self._comprehension_scope(node.generators, [node.elt])

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension_scope(node.generators, [node.elt])

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension_scope(node.generators, [node.key, node.value])

    def _comprehension_scope(self, generators: list[ast.comprehension], parts: list) -> None:
        inner = _Scope(nested=True)
        for generator in generators:
            inner.visit(generator)
        for part in parts:
            inner.visit(part)
        self.loads |= inner.loads - inner.stores
        self.mutates |= inner.mutates
        self.unsure = self.unsure or inner.unsure

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.stores.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.unsure = self.unsure or f"it imports * from {node.module}"
            self.stores.add(alias.asname or alias.name)

    def visit_Global(self, node: ast.Global) -> None:
        if self.nested:  # a function that binds module names when some later block calls it
            self.unsure = self.unsure or f"a function in it declares global {', '.join(node.names)}"


def _base_name(node: ast.expr) -> str | None:
    """`xs` for xs, xs.a, xs[0].b and xs.a[1]: the name whose object the expression is part of."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Found:
    """What the statements of a block, seen so far, bind, read and change in place."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.reads: set[str] = set()
        self.mutates: set[str] = set()
        self.unsure = ""

    def scan(self, node: ast.AST) -> None:
        """One statement or expression, run after everything scanned before it."""
        scope = _Scope()
        scope.visit(node)
        self.reads |= scope.loads - self.bound
        self.mutates |= scope.mutates - self.bound
        self.bound |= scope.stores
        self.unsure = self.unsure or scope.unsure

    def statements(self, body: list[ast.stmt]) -> None:
        """In order, into compound statements: the loop variable `v` of `for v in xs:` is
        bound before the body reads it."""
        for statement in body:
            if isinstance(statement, (ast.For, ast.AsyncFor)):
                self.scan(statement.iter)
                self.scan(statement.target)
                self.statements(statement.body + statement.orelse)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                for item in statement.items:
                    self.scan(item)
                self.statements(statement.body)
            elif isinstance(statement, (ast.If, ast.While)):
                self.scan(statement.test)
                self.statements(statement.body + statement.orelse)
            elif isinstance(statement, (ast.Try, ast.TryStar)):
                self.statements(statement.body)
                for handler in statement.handlers:
                    if handler.type is not None:
                        self.scan(handler.type)
                    self.bound |= {handler.name} if handler.name else set()
                    self.statements(handler.body)
                self.statements(statement.orelse + statement.finalbody)
            else:
                self.scan(statement)


def block_names(source: str) -> BlockNames:
    """The names `source` binds, reads and changes in place, statement by statement: a name
    read after the block bound it is its own, not a read."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return BlockNames(frozenset(), frozenset(), frozenset(), "it does not parse")
    found = _Found()
    found.statements(tree.body)
    return BlockNames(
        frozenset(found.bound - {"*"}),
        frozenset(found.reads),
        frozenset(found.mutates),
        found.unsure,
    )


@dataclass(frozen=True)
class RerunPlan:
    """The blocks (by position) to run again in the warm namespace, in order; or why a full
    run must show the edit instead (`fallback`)."""

    rerun: list[int]
    fallback: str = ""


def plan_rerun(old: list[str], new: list[str], labels: list[str]) -> RerunPlan:
    """What to run again after the blocks' code went from `old` to `new` (the warm
    namespace is what running `old` in order left): the edited blocks and every later block
    that reads a name one of them writes, and so on.

    It falls back unless each block run again reads every name as a full run would give it
    at that point: from a block that runs again before it, or from an earlier block that
    nothing after it wrote since (in the run that made the namespace)."""
    if len(old) != len(new):
        return RerunPlan([], "a block was added or removed")
    edited = [i for i, (before, after) in enumerate(zip(old, new, strict=True)) if before != after]
    if not edited:
        return RerunPlan([])
    was = [block_names(source) for source in old]
    now = [block_names(source) for source in new]
    for i in edited:
        if dropped := sorted(was[i].binds - now[i].binds):
            return RerunPlan([], f"{labels[i]} no longer binds {', '.join(dropped)}")
    rerun = _readers_closure(edited, was, now)
    for i in rerun:
        if now[i].unsure:
            return RerunPlan([], f"{labels[i]} cannot be followed: {now[i].unsure}")
        if stale := _stale_reads(i, set(rerun), was, now):
            return RerunPlan(
                [],
                f"{labels[i]} would read {stale} as the last run left it, not as a full run would",
            )
    return RerunPlan(rerun)


def _readers_closure(edited: list[int], was: list[BlockNames], now: list[BlockNames]) -> list[int]:
    """The edited blocks and every later block reading a name one of those writes."""
    rerun: list[int] = []
    written: set[str] = set()
    for i in range(edited[0], len(now)):
        if i in edited or now[i].reads & written:
            rerun.append(i)
            written |= was[i].writes | now[i].writes
    return rerun


def _stale_reads(i: int, rerun: set[int], was: list[BlockNames], now: list[BlockNames]) -> str:
    """A name block `i` reads (or changes in place) whose value in the warm namespace is
    not the one a full run would give it there; "" when there is none."""
    for name in sorted(now[i].reads | now[i].mutates):
        writers = [j for j in range(i) if name in now[j].writes]
        if writers and writers[-1] in rerun:
            continue  # written afresh just before
        since = writers[-1] + 1 if writers else 0
        # Since the last writer that stays, no block of the run that made the namespace
        # (this one included) may have written it.
        if any(name in was[k].writes for k in range(since, len(was))):
            return name
    return ""
