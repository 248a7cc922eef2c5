"""How a script (main.py, the whole recorded run) goes on past a block declared to raise.

`except TracerBoolConversionError:` is only valid Python when the script has that name:
a builtin exception, or one the lesson's own code imports. A notebook's stored error names
the class alone (jax.errors.TracerBoolConversionError, equinox's EquinoxRuntimeError), which
the code seldom imports; evaluating the clause would then raise NameError in the middle of
handling the exception. Such a name is matched on the exception's classes instead, as the
build's runner matches it (runner.declared).
"""

from __future__ import annotations

import ast
import builtins


def guarded(source: str, raises: str, bound: frozenset[str], handler: str, named: bool) -> str:
    """`source` in a try whose except clause catches `raises` and runs `handler` (one line,
    which may use the exception as `error` when `named`); any other exception goes on."""
    indented = "\n".join("    " + line if line.strip() else "" for line in source.splitlines())
    if _reachable(raises, bound):
        return f"try:\n{indented}\nexcept {raises}{' as error' if named else ''}:\n    {handler}"
    attribute = "__name__" if "." not in raises else "__module__ + '.' + kind.__qualname__"
    return "\n".join(
        [
            f"try:\n{indented}\nexcept Exception as error:  # {raises}: not a name this file has",
            f'    if not any(kind.{attribute} == "{raises}" for kind in type(error).__mro__):',
            "        raise",
            f"    {handler}",
        ]
    )


def names_bound(sources: list[str]) -> frozenset[str]:
    """The names the top level of `sources` binds: imports, assignments, defs, classes."""
    names: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # the build reports it at the block; nothing is bound here
            continue
        for node in tree.body:
            names.update(_bound_by(node))
    return frozenset(names)


def _bound_by(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _reachable(raises: str, bound: frozenset[str]) -> bool:
    root = raises.split(".")[0]
    if "." not in raises and isinstance(getattr(builtins, raises, None), type):
        return True
    return root in bound
