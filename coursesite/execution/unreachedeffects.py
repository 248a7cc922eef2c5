"""What a failed block was still to do to files and containers when it stopped: the
names the paths of its unreached file writes were made of, and the containers it was
still to fill. consequences.py reads a later FileNotFoundError or KeyError through them.

A notebook that downloads its data in one cell and reads it in the next fails twice when
the download fails: the read finds no file (`../_data/train.gz`, made of `data_dir` like
the path the download was to write), and the cell after finds no key in the dict the read
was to fill. Both follow from the download.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from coursesite.importers.datafiles import writes_files

# Methods that put an item into the container they are called on.
_FILLERS = {"append", "extend", "insert", "update", "setdefault", "add"}


@dataclass
class UnreachedEffects:
    written_from: set[str] = field(default_factory=set)  # names its unreached writes' paths use
    written: set[str] = field(default_factory=set)  # the paths its unreached writes name as text
    filled: set[str] = field(default_factory=set)  # containers it was still to fill


def unreached_effects(code: str, stopped: int) -> UnreachedEffects:
    """The effects of `code`'s statements on lines `stopped` and after (1-based, in
    `code`): the names (followed through the block's assignments) of the paths it was to
    write, and the containers it was to fill."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return UnreachedEffects()
    made_of = _made_of(tree)
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    effects = UnreachedEffects()
    for node in ast.walk(tree):
        if getattr(node, "lineno", 0) < stopped:
            continue
        if isinstance(node, ast.Call) and _writes(node):
            paths = [] if _on_a_handle(node) else node.args[:1] + [k.value for k in node.keywords]
            if isinstance(node.func, ast.Attribute):  # Path(p).write_text(...), handle.write
                paths.append(node.func.value)
            for path in paths:
                effects.written_from |= _closure(_names(path), made_of)
                if isinstance(path, ast.Constant) and isinstance(path.value, str):
                    effects.written.add(path.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _FILLERS and isinstance(node.func.value, ast.Name):
                effects.filled.add(node.func.value.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            effects.filled |= {node.value.id} if isinstance(node.value, ast.Name) else set()
    effects.written_from -= imported
    return effects


def sources_of(code: str, names: set[str]) -> set[str]:
    """`names` and the names `code` made them of, through its assignments (`not_japan =
    list(df.columns)`: `df`)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(names)
    return _closure(names, _made_of(tree))


def _writes(call: ast.Call) -> bool:
    """A call that writes the files it names (the import's reading of code: datafiles.py),
    or a write on a handle, whose making names the file (`writer.write(record)`)."""
    return writes_files(call) or _on_a_handle(call)


def _on_a_handle(call: ast.Call) -> bool:
    """`handle.write(text)`: what it is given is what it writes, not where."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("write", "writelines")


def _names(node: ast.AST) -> set[str]:
    """The names `node` reads data from: not the functions it calls (`open`, `fetch`)."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in called}


def _made_of(tree: ast.Module) -> dict[str, set[str]]:
    """Each name the block assigns (or loops over), with the names its values are made of."""
    made: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets, value = [node.target], node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets, value = [node.optional_vars], node.context_expr
        else:
            continue
        for target in targets:
            for name in _names(target):
                made.setdefault(name, set()).update(_names(value))
    return made


def _closure(names: set[str], made_of: dict[str, set[str]]) -> set[str]:
    found, todo = set(names), list(names)
    while todo:
        for source in made_of.get(todo.pop(), ()):
            if source not in found:
                found.add(source)
                todo.append(source)
    return found
