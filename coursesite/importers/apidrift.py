"""Names of installed packages that an imported notebook uses and the installed versions
lack: code written for another version (`grain.sources.ReadOptions`, which grain 0.2.18
has as `grain.ReadOptions`), found before any build.

What the code names is read from its syntax tree: `import X as Y`, `from X import a`, and
attribute chains `Y.a.b` on such names. Whether each exists is asked of the installed
package in a separate interpreter, with a time limit (importing a package runs its code,
and may be slow): each part of a chain is looked up as an attribute, or else imported as
a submodule. To say nothing wrong, a name is left alone when the notebook binds it other
than by import, assigns to the chain, imports it under a `try`, or asks `hasattr` about it;
a chain is followed through modules and classes only, whose attributes are fixed. A name
a module imports only if another package is there (`grain.checkpoint.CheckpointSave` needs
orbax), or under a submodule that cannot be imported for lack of another module, is no
drift: the missing package is what to report, and the import reports it where the notebook
imports it. A call of such a name is checked against its installed signature too: a keyword
it takes in no way (no parameter of that name, no **kwargs) is refused.
"""

from __future__ import annotations

import ast
import json
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.execution.missingmodules import is_installed, provided_module
from coursesite.importers.steplines import code_tree

CHECK_SECONDS = 60
# Run in an interpreter of its own, with the notebook's packages imported there.
_CHECKER = Path(__file__).with_name("installednames.py")


@dataclass
class Drift:
    number: int  # the step
    where: str  # the cell
    offset: int  # the line in the step's code, from 0
    missing: str  # the dotted name the installed package lacks
    package: str  # its distribution ("Python" for the standard library)
    version: str  # installed
    instead: str  # a name the installed package has with the same last part, or ''
    written: str = ""  # the use as the code writes it: `jx.tree_map`, `from jax import tree_map`
    path: str = ""  # the dotted name that use is
    close: str = ""  # a name of the same module spelled almost alike (a misspelling?), or ''


@dataclass
class LackingModule:
    """A module the code imports that is there but fails to import for want of another,
    not installed at all (orbax's model helpers -> tensorflow_datasets): no drift, but the
    build fails at that import."""

    number: int  # the step
    where: str  # the cell
    offset: int  # the line in the step's code, from 0
    module: str  # the module the code imports
    lacks: str  # the module it needs


@dataclass
class RefusedKeyword:
    """A keyword a call gives that what it calls, as installed, does not take
    (`ExpSineSquared(period=)` of tinygp 0.1): the build fails there with a TypeError."""

    number: int  # the step
    where: str  # the cell
    offset: int  # the line in the step's code, from 0
    called: str  # the dotted name called
    keyword: str
    package: str  # its distribution
    version: str  # installed


@dataclass
class ApiCheck:
    drifts: list[Drift]
    lacking: list[LackingModule]
    stopped: str = ""  # what stopped the check ('' if nothing did)
    refused: list[RefusedKeyword] = field(default_factory=list)


def api_drift(steps: list[tuple[int, str, str]], local: set[str]) -> ApiCheck:
    """Each name the steps (number, cell, code) use that the installed packages lack, and
    each module they import that lacks another. Modules in `local` are the lesson's own."""
    uses = _uses(steps)
    paths = sorted(
        {use[3] for use in uses if use[3].split(".")[0] not in local and _installed(use[3])}
    )
    if not paths:
        return ApiCheck([], [])
    imported_from = {
        path: written.split()[1] for *_, path, written, _ in uses if written.startswith("from ")
    }
    imports = sorted(
        {written.split()[1] for *_, written, _ in uses if written.startswith(("import ", "from "))}
    )
    keywords: dict[str, set[str]] = {}
    for *_, path, _, given in uses:
        keywords.setdefault(path, set()).update(given)
    called = {path: sorted(given) for path, given in keywords.items() if given}
    with tempfile.TemporaryDirectory() as empty:  # no module of the notebook's is imported
        try:
            checked = subprocess.run(
                [sys.executable, "-P", str(_CHECKER)],
                input=json.dumps(
                    {
                        "names": paths,
                        "imported_from": imported_from,
                        "imports": imports,
                        "called": called,
                    }
                ),
                capture_output=True,
                text=True,
                cwd=empty,
                timeout=CHECK_SECONDS,
            )
            answer = json.loads(checked.stdout) if checked.returncode == 0 else None
        except subprocess.TimeoutExpired:
            return ApiCheck([], [], f"importing the packages took longer than {CHECK_SECONDS} s")
        except ValueError:
            answer = None
    if not isinstance(answer, dict):
        return ApiCheck(
            [], [], f"the packages could not be imported to check them{why_unchecked(checked)}"
        )
    found, needs, refused = answer["gone"], answer["needs"], answer["refused"]
    check, seen = ApiCheck([], []), set()
    for number, where, offset, path, written, given in uses:
        for keyword in (k for k in refused.get(path, ()) if k in given):
            package, installed = refused[path][keyword]
            refusal = RefusedKeyword(number, where, offset, path, keyword, package, installed)
            check.refused += [] if refusal in check.refused else [refusal]
        if path in found and (number, found[path][0]) not in seen:
            seen.add((number, found[path][0]))
            gone, package, installed, instead, close = found[path]
            check.drifts.append(
                Drift(
                    number, where, offset, gone, package, installed, instead, written, path, close
                )
            )
        elif path in needs and (number, needs[path][0]) not in seen:
            seen.add((number, needs[path][0]))
            module, lacked = needs[path]
            check.lacking.append(LackingModule(number, where, offset, module, lacked))
    return check


def _installed(path: str) -> bool:
    """Whether the distribution providing `path` is installed, where that is a namespace
    package's part (`mpl_toolkits.basemap`: missing_module_notes says it is not)."""
    part = provided_module(path)
    return "." not in part or is_installed(part)


def why_unchecked(checked: subprocess.CompletedProcess) -> str:
    """What ended the interpreter that imported the packages, for the report: the signal
    that killed it (two such libraries in one process can crash it), or its last line."""
    if checked.returncode < 0:
        try:
            name = signal.Signals(-checked.returncode).name
        except ValueError:
            name = f"signal {-checked.returncode}"
        return f" (the interpreter that imported them was killed by {name})"
    said = [line.strip() for line in checked.stderr.splitlines() if line.strip()]
    return f" ({said[-1][:200]})" if said else ""


def _uses(
    steps: list[tuple[int, str, str]],
) -> list[tuple[int, str, int, str, str, tuple[str, ...]]]:
    """(step, cell, line in its code, dotted name, how the code writes it, the keywords a
    call of it gives) of each name of an imported module the steps use, in order; names the
    notebook may make exist itself are left out."""
    trees = [
        (number, where, tree)
        for number, where, code in steps
        if (tree := code_tree(code)) is not None  # else the build names the line
    ]
    modules: dict[str, set[str]] = {}  # a name imports bind: what each binds it to
    bound: set[str] = set()
    assigned: set[str] = set()
    asked: set[object] = set()
    shadowed: set[int] = set()  # names a function's own local hides
    for *_, tree in trees:
        guarded = _guarded(tree)
        bound |= _module_bound(tree, shadowed)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and id(node) not in guarded:
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    modules.setdefault(name, set()).add(alias.name if alias.asname else name)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*" and id(node) not in guarded:
                        modules.setdefault(alias.asname or alias.name, set()).add(
                            f"{node.module}.{alias.name}"
                        )
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                assigned.add(ast.unparse(node))
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("hasattr", "getattr"):
                asked.update(a.value for a in node.args[1:2] if isinstance(a, ast.Constant))
    known = {
        name: next(iter(targets))
        for name, targets in modules.items()
        if len(targets) == 1 and name not in bound
    }
    uses: list[tuple[int, str, int, str, str, tuple[str, ...]]] = []
    for number, where, tree in trees:
        guarded = _guarded(tree)
        inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        keywords = {  # the keywords each called name is given
            id(n.func): tuple(k.arg for k in n.keywords if k.arg)
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and id(node) not in guarded:
                uses += [  # a package alone too: it may lack a module it imports
                    (number, where, node.lineno - 1, a.name, f"import {a.name}", ())
                    for a in node.names
                ]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if id(node) in guarded:
                    continue
                for alias in node.names:
                    if alias.name != "*":
                        written = f"from {node.module} import {alias.name}"
                        path = f"{node.module}.{alias.name}"
                        uses.append((number, where, node.lineno - 1, path, written, ()))
            elif isinstance(node, ast.Attribute) and id(node) not in inner:
                written = ast.unparse(node)
                root = written.split(".")[0]
                if id(_root(node)) in shadowed:
                    continue
                if root not in known or not all(part.isidentifier() for part in written.split(".")):
                    continue
                if any(written == a or written.startswith(a + ".") for a in assigned):
                    continue
                if node.attr in asked:
                    continue
                path = known[root] + written[len(root) :]
                given = keywords.get(id(node), ())
                uses.append((number, where, node.lineno - 1, path, written, given))
    return sorted(uses, key=lambda use: (use[0], use[2]))


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _module_bound(tree: ast.Module, shadowed: set[int]) -> set[str]:
    """The names `tree` binds other than by import in the module's scope (where they hide
    an imported module for the code after); adds to `shadowed` the ids of the names used
    inside a function (or lambda, comprehension) that binds them there itself."""
    inside: set[int] = set()
    declared: set[str] = set()  # `global name` in a function binds at module level
    for scope in (node for node in ast.walk(tree) if isinstance(node, _SCOPES)):
        nodes = [node for node in ast.walk(scope) if node is not scope]
        inside.update(map(id, nodes))
        globals_ = {n for node in nodes if isinstance(node, ast.Global) for n in node.names}
        declared |= globals_
        local = {node.arg for node in nodes if isinstance(node, ast.arg)}
        local |= {
            node.id
            for node in nodes
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
        }
        local |= {node.name for node in nodes if isinstance(node, (*_SCOPES[:2], ast.ClassDef))}
        shadowed.update(
            id(node) for node in nodes if isinstance(node, ast.Name) and node.id in local - globals_
        )
    bound = set(declared)
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _guarded(tree: ast.Module) -> set[int]:
    """The ids of the nodes inside a `try` that handles a failure (the code expects it)."""
    return {
        id(node)
        for statement in ast.walk(tree)
        if isinstance(statement, ast.Try) and statement.handlers
        for part in statement.body
        for node in ast.walk(part)
    }
