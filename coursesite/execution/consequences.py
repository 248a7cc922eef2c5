"""Whether a block failed only because an earlier block failed, proved from names.

A failed block binds nothing from the statement that raised on: a name it defines
afterwards is left undefined, or holding what an earlier block gave it. A later block
that then fails on that name failed because of it. Said only where the names prove it:
- a NameError for a name a failed block binds;
- an AttributeError `... has no attribute 'a'` raised by an expression using `n` (`n.a`,
  `n.plot()`) where a failed block was changing `n` when it failed (`n.simulate(...)`,
  which was to set `n.a`), and any failure of a call of a method of `n` itself
  (`n.get_samples()` raising "`run` must be called before `get_samples`");
- an AttributeError `... has no attribute 'a'` raised by the expression `n.a` (or by
  `m.a`, where the block made `m` of `n`), a
  TypeError or ValueError raised by an expression that uses `n` (the expression of the
  block's own code that the traceback's positions point at, not the rest of its line), or
  a name the block made of `n` before it (`not_japan = list(df.columns)`), or a KeyError or
  IndexError raised by one that subscripts `n` (`df["Date"]`, where the failed block was
  to read a new `df` from the network), where `n` is a name
  a failed block was to (re)bind at or after the line it failed at, and neither a block
  between them nor the failing block before that expression bound it again;
- "expected E to be raised, but nothing was" in a block that reads such a name before it
  binds it: what it expects to raise depended on the binding that never happened;
- a failure raised by an expression that uses a name the path of a file write the failed
  block never reached was made of (`data_dir`: a FileNotFoundError, or a reader's own
  complaint about a file left empty), a FileNotFoundError for a file such a write names
  as text (`df.to_csv('out.csv')`), and a KeyError or IndexError raised by an expression
  that subscripts, or hands on, a container it never reached the filling of
  (unreachedeffects.py): the download that
  failed was to write that file, the read that failed was to fill that dict.
Anything else is the block's own failure (blockfailures.py reports it with its traceback).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from coursesite.execution.unreachedeffects import (
    UnreachedEffects,
    sources_of,
    unreached_effects,
)

UNDEFINED_NAME = re.compile(r"NameError: name '(\w+)' is not defined")
NO_ATTRIBUTE = re.compile(r"AttributeError: .* has no attribute '(\w+)'")
OBJECT_ATTRIBUTE = re.compile(r"AttributeError: '[\w.]+' object has no attribute")
NOTHING_RAISED = re.compile(r"expected [\w.]+ to be raised, but nothing was$")
NO_ITEM = re.compile(r"(?:KeyError|IndexError)\b")
# A path the code could not open, in Python's words or NumPy's ("rows.csv not found.", from
# np.loadtxt and np.genfromtxt).
_MISSING_FILE = re.compile(
    r"(?:FileNotFoundError|OSError): (?:\[Errno 2\] No such file or directory: '([^']+)'|"
    r"(\S+) not found\.$)"
)


def missing_path(message: str) -> str:
    """The path, as the code named it, that a failure's `message` says is missing; or ""."""
    missing = _MISSING_FILE.match(message)
    return (missing.group(1) or missing.group(2)) if missing else ""


@dataclass
class FailedBlock:
    id: str
    bound: set[str]  # every name it binds
    unreached: set[str]  # those of the module's scope bound at or after the line it failed at
    effects: UnreachedEffects = field(default_factory=UnreachedEffects)
    # Objects it was changing when it failed: `n.simulate(...)` or `n.a = ...` at or after
    # that line, which may have set attributes of `n` it never got to.
    changing: set[str] = field(default_factory=set)
    # The packages of the import statement it failed at: a package whose own import code
    # failed (aesara under NumPy 2) is left half-imported, and the next import of it fails
    # otherwise ("partially initialized module 'aesara' has no attribute 'compile'").
    importing: set[str] = field(default_factory=set)


@dataclass
class Consequence:
    cause: str  # the failed block's id
    name: str
    kind: str  # "undefined", "stale" or "expectation"


class LessonFailures:
    """The failed blocks so far, in the order the lesson ran, and what blocks did after
    each: `blocks` are the job's ({id, code, line, program}), `path` the lesson's."""

    def __init__(self, blocks: list[dict], path: str) -> None:
        self.blocks = {block["id"]: block for block in blocks}
        self.order = [block["id"] for block in blocks if block.get("program", True)]
        self.order += [block["id"] for block in blocks if not block.get("program", True)]
        self.path = path
        self.failed: list[FailedBlock] = []
        self.modules = _imported_names([block["code"] for block in blocks])

    def consequence(self, failure: dict) -> Consequence | None:
        """What earlier failure `failure` is a consequence of, or None; then notes it."""
        found = self._of(failure)
        self._note(failure)
        return found

    def note_raised(self, block_id: str) -> None:
        """A block that raised as it declares (`:raises:`): what it binds after the line
        that raised is as undefined as a failed block's (an imported notebook's cell of
        imports whose stored run raised ImportError at its first). Where it raised is not
        known, so only a name left undefined follows from it."""
        if block := self.blocks.get(block_id):
            self.failed.append(FailedBlock(block_id, bound_names(block["code"]), set()))

    def _of(self, failure: dict) -> Consequence | None:
        message = failure["message"]
        if undefined := UNDEFINED_NAME.match(message):
            name = undefined.group(1)
            cause = next((f for f in reversed(self.failed) if name in f.bound), None)
            return Consequence(cause.id, name, "undefined") if cause else None
        block = self.blocks.get(failure["block"])
        if block is None:
            return None
        failing = self._expression(failure, block)
        stopped = self._stopped_at(failure, block) or 0
        if imported := _imported_packages(failing):
            cause = next((f for f in reversed(self.failed) if imported & f.importing), None)
            if cause is not None:
                return Consequence(cause.id, sorted(imported & cause.importing)[0], "unfinished")
        if failing is not None and (found := self._unreached_effect(failing, message, block["id"])):
            return found
        if failing is not None and (attribute := NO_ATTRIBUTE.match(message)):
            read = ""
            if isinstance(failing, ast.Attribute) and isinstance(failing.value, ast.Name):
                read = failing.value.id if failing.attr == attribute.group(1) else ""
            # `read`, or what the block made it of (`forecasts = pd.DataFrame(forecastlist)`
            # before `forecasts.dangerRatings`, where the failed block was to fill the list).
            made_of = sources_of(block["code"], {read}) if read else set()
            stale = self._stale(block, lambda n: n in made_of, stopped, "stale")
            # Only an object's attribute: a module's or class's missing one is no state.
            return stale or (self._unfinished(failing) if OBJECT_ATTRIBUTE.match(message) else None)
        if failing is not None and message.startswith(("TypeError", "ValueError")):
            # What it uses, and what the block made that of (`not_japan = list(df.columns)`
            # before `not_japan.remove("Japan")`: a ValueError on a stale `df`).
            used = sources_of(
                block["code"], {n.id for n in ast.walk(failing) if isinstance(n, ast.Name)}
            )
            return self._stale(block, lambda n: n in used, stopped, "stale")
        if failing is not None and NO_ITEM.match(message):
            looked_up = _subscripted(failing)
            return self._stale(block, lambda n: n in looked_up, stopped, "stale")
        if NOTHING_RAISED.match(message):
            first = _first_loads(block["code"])  # a name it reads before it binds it
            return self._stale(block, lambda n: n in first, 0, "expectation")
        # A method of the very object the failed call was changing, which checks the state
        # that call was to set (NumPyro's "`run` must be called before `get_samples`"),
        # whatever it raises.
        if (
            isinstance(failing, ast.Call)
            and isinstance(failing.func, ast.Attribute)
            and isinstance(failing.func.value, ast.Name)
            and failing.func.value.id not in self.modules  # a module holds no such state
        ):
            return self._unfinished(failing.func.value)
        return None

    def _unfinished(self, failing: ast.AST) -> Consequence | None:
        """The failed block that was changing an object `failing` uses (reads an attribute
        of, or calls a method of that reads one) when it failed."""
        used = {n.id for n in ast.walk(failing) if isinstance(n, ast.Name)}
        for cause in reversed(self.failed):
            if shared := sorted(used & cause.changing):
                return Consequence(cause.id, shared[0], "unfinished")
        return None

    def _expression(self, failure: dict, block: dict) -> ast.AST | None:
        """The expression of `block` that raised, as the traceback's positions give it (in
        `block`'s own line: inside a function it called, names are the function's); None
        when the runner gave no positions."""
        tree = _parsed(block["code"])
        end = block["line"] + len(block["code"].splitlines())
        inside = [p for p in failure.get("positions", []) if block["line"] <= p[0] < end]
        if tree is None or not inside or None in inside[0]:
            return None
        line, column, end_line, end_column = inside[0]
        where = (line - block["line"] + 1, column, end_line - block["line"] + 1, end_column)
        return next(
            (
                node
                for node in ast.walk(tree)
                if isinstance(node, (ast.expr, ast.stmt))
                and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == where
            ),
            None,
        )

    def _stale(
        self, block: dict, uses: Callable[[str], bool], stopped: int, kind: str
    ) -> Consequence | None:
        """The failed block that was to rebind a name `uses` says the failing statement
        used, at or after its failing line, with no block between them and no line of
        `block` before `stopped` binding it again."""
        own = bindings(block["code"], everywhere=False)
        for cause in reversed(self.failed):
            for name in sorted(cause.unreached - self._bound_between(cause.id, block["id"])):
                rebound = any(n == name and block["line"] + at < stopped for n, at in own)
                if not rebound and uses(name):
                    return Consequence(cause.id, name, kind)
        return None

    def _unreached_effect(self, failing: ast.AST, message: str, failed: str) -> Consequence | None:
        """The failed block whose unreached file write made of a name `failing` uses, or
        whose unreached filling of a container `failing` subscripts (a KeyError or
        IndexError) or hands on (those, or a ValueError or TypeError: `plot(x, accuracies)`
        of a list a loop was to fill), it follows from: what it reads was never written, or
        never filled."""
        # A module is no path: `pd` of an unreached `pd.ExcelWriter('x.xlsx')` is not what
        # a later `pd.read_csv(url)` reads.
        used = {n.id for n in ast.walk(failing) if isinstance(n, ast.Name)} - self.modules
        subscripted = _subscripted(failing)
        for cause in reversed(self.failed):
            paths = self._derived(cause.effects.written_from, cause.id, failed)
            shared = used & paths
            if NO_ITEM.match(message):  # looked up in it, or by what it was handed to
                shared |= (subscripted | used) & cause.effects.filled
            elif message.startswith(("ValueError", "TypeError")):  # its emptiness refused
                shared |= used & cause.effects.filled
            if (missing := missing_path(message)) and missing in cause.effects.written:
                shared.add(missing)  # the file it was to write, named as it is
            if shared:
                return Consequence(cause.id, sorted(shared)[0], "unfinished")
        return None

    def _derived(self, names: set[str], cause: str, failed: str) -> set[str]:
        """`names`, and the module's names that blocks run after `cause` assigned from
        them before `failed` ran (`pytree_path = directory / 'ckpt-0'`, then `spec =
        {'path': pytree_path}`): a read through any of them reads where the unreached
        write was to write."""
        derived = set(names)
        start = self.order.index(cause) + 1 if cause in self.order else len(self.order)
        end = self.order.index(failed) if failed in self.order else len(self.order)
        for block in self.order[start:end]:
            tree = _parsed(self.blocks[block]["code"])
            for node in tree.body if tree else []:
                value = getattr(node, "value", None)
                if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or not value:
                    continue
                if {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & derived:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    derived |= {
                        n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                    }
        return derived

    def _bound_between(self, first: str, last: str) -> set[str]:
        """The module's names that the blocks run after `first` and before `last` bound."""
        failed = {block.id: block for block in self.failed}
        start = self.order.index(first) if first in self.order else len(self.order)
        end = self.order.index(last) if last in self.order else len(self.order)
        bound: set[str] = set()
        for between in self.order[start + 1 : end]:
            names = {n for n, _ in bindings(self.blocks[between]["code"], everywhere=False)}
            bound |= names - failed[between].unreached if between in failed else names
        return bound

    def _note(self, failure: dict) -> None:
        block = self.blocks.get(failure["block"])
        if block is None:
            return
        found = bindings(block["code"], everywhere=False)
        stopped = self._stopped_at(failure, block)
        unreached = {n for n, at in found if stopped is not None and block["line"] + at >= stopped}
        effects = (
            unreached_effects(block["code"], stopped - block["line"] + 1)
            if stopped is not None
            else UnreachedEffects()
        )
        changing = _changed_objects(block["code"], stopped - block["line"] if stopped else None)
        importing = _imported_packages(self._expression(failure, block))
        self.failed.append(
            FailedBlock(
                block["id"], bound_names(block["code"]), unreached, effects, changing, importing
            )
        )

    def _stopped_at(self, failure: dict, block: dict) -> int | None:
        """The line of `block` its failure stopped it at; None if it ran to its end (it
        failed after running: nothing it expected was raised, what it drew, ...)."""
        if not failure.get("traceback"):
            return None
        end = block["line"] + len(block["code"].splitlines())
        frames = re.findall(r'File "(.*)", line (\d+)', failure["traceback"])
        lines = [int(n) for name, n in frames if name == self.path]
        return next((n for n in lines if block["line"] <= n < end), block["line"])


def _imported_packages(statement: ast.AST | None) -> set[str]:
    """The top packages an import statement imports (`aesara` of `import aesara.tensor as
    at`); none for another statement, or a relative import (the lesson's own)."""
    if isinstance(statement, ast.Import):
        return {alias.name.split(".")[0] for alias in statement.names}
    if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
        return {statement.module.split(".")[0]}
    return set()


@functools.lru_cache(maxsize=1024)  # each failure reads the blocks before it again
def _subscripted(node: ast.AST) -> set[str]:
    """The names `node` subscripts (`df` of `df["Date"]`)."""
    return {
        n.value.id
        for n in ast.walk(node)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
    }


def _parsed(code: str) -> ast.Module | None:
    """The syntax tree of a block's code (shared: never change it), or None."""
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _changed_objects(code: str, stopped: int | None) -> set[str]:
    """The names whose objects `code` calls a method of (`closed.simulate(...)`) or sets
    an attribute of (`closed.path = ...`) at or after its line `stopped` (from 0)."""
    tree = _parsed(code)
    if tree is None or stopped is None:
        return set()
    changed = set()
    for node in ast.walk(tree):
        target = node.func if isinstance(node, ast.Call) else node
        if isinstance(node, ast.Assign | ast.AugAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if (
            isinstance(node, ast.Call | ast.Assign | ast.AugAssign)
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and node.lineno - 1 >= stopped
        ):
            changed.add(target.value.id)
    return changed


def _first_loads(code: str) -> set[str]:
    """The module-scope names `code` reads before (or without) binding them itself."""
    tree = _parsed(code)
    if tree is None:
        return set()
    bound_at: dict[str, int] = {}
    for name, at in bindings(code, everywhere=False):
        bound_at[name] = min(at + 1, bound_at.get(name, at + 1))
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and node.lineno <= bound_at.get(node.id, node.lineno)
    }


def import_aliases(codes: list[str]) -> dict[str, str]:
    """The module each name the `codes` import stands for: `ocp` for `import
    orbax.checkpoint.experimental.v1 as ocp`, `v1` for `from orbax.checkpoint import v1`."""
    return dict(_aliases_of(tuple(codes)))


@functools.lru_cache(maxsize=64)  # every migration of an import asks it of the same steps
def _aliases_of(codes: tuple[str, ...]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for code in codes:
        tree = _parsed(code)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                aliases |= {a.asname: a.name for a in node.names if a.asname}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                aliases |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
    return aliases


def _imported_names(codes: list[str]) -> set[str]:
    """The names the `codes` bind by importing (`jax`, `jnp`, `mesh_utils`)."""
    names = set()
    for code in codes:
        tree = _parsed(code)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import | ast.ImportFrom):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def used_names(code: str) -> set[str]:
    """The names `code` reads, anywhere in it (in its functions too)."""
    tree = _parsed(code)
    return set() if tree is None else names_read(tree)


def names_read(tree: ast.AST) -> set[str]:
    """The names a syntax tree reads, anywhere in it."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def bound_names(code: str) -> set[str]:
    """The names `code` assigns, defines or imports anywhere (nested scopes too: a
    name too many only makes a NameError read as a consequence, which it then most
    likely is). Nothing for code that does not parse: it failed before binding anything."""
    return {name for name, _ in bindings(code)}


# What binds names of its own: what is bound in it is not the module's.
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def bindings(code: str, everywhere: bool = True) -> list[tuple[str, int]]:
    """(name, line in `code` from 0) of each binding `code` makes (see bound_names); with
    `everywhere` False, only those of the module's scope, which blocks after it see."""
    tree = _parsed(code)
    return [] if tree is None else tree_bindings(tree, everywhere)


def tree_bindings(tree: ast.AST, everywhere: bool = True) -> list[tuple[str, int]]:
    """bindings(), of a syntax tree already parsed."""
    nodes = list(ast.walk(tree))
    if not everywhere:
        inside = {
            id(inner)
            for scope in nodes
            if isinstance(scope, _SCOPES)
            for inner in ast.walk(scope)
            if inner is not scope
        }
        nodes = [node for node in nodes if id(node) not in inside]
    found: list[tuple[str, int]] = []
    for node in nodes:
        at = getattr(node, "lineno", 1) - 1
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.append((node.id, at))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, at))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found += [((a.asname or a.name).split(".")[0], at) for a in node.names]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.append((node.name, at))
    return found
