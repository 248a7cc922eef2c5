"""pandas calls a notebook makes as pandas before 3.0 took them.

pandas removed, between 2.0 and 3.0, calls that older notebooks make everywhere, each with
a replacement that does the same: `fillna(method='ffill')` is `ffill()` (and `'bfill'`
`bfill()`), `iteritems()` is `items()`, `DataFrame.applymap` is `map`, `read_csv`'s
`delim_whitespace=True` is `sep=r"\\s+"`, `to_csv`'s `line_terminator` is `lineterminator`.
A notebook of that age fails the build with an AttributeError or "got an unexpected
keyword argument"; so, where the installed pandas lacks the old call, the import writes
the one it takes, and says so. A call only pandas makes is rewritten (`X.iteritems()` of
any X: no other library of a notebook has it); what a call of another object could also
be (`X.append(row)`) is left to the build's hint.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import code_tree, imported_packages

_FILLERS = {"ffill": "ffill", "pad": "ffill", "bfill": "bfill", "backfill": "bfill"}


@dataclass(frozen=True)
class _Rewrite:
    since: str  # "(deprecated in 2.1)"
    removed: Callable[[ModuleType], bool]  # whether the installed pandas lacks it
    rewrite: Callable[[str, ast.Call], str | None]  # the call as pandas takes it now


def pandas_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each call of a lesson that imports pandas that the installed
    pandas no longer takes as pandas now takes it; the report's lines, one a step and
    call."""
    if "pandas" not in imported_packages(lesson.steps) or (pandas := _pandas()) is None:
        return []
    rewrites = [rewrite for rewrite in _REWRITES if rewrite.removed(pandas)]
    renames: dict[int, list[Rename]] = {}
    reasons: dict[Rename, str] = {}
    for number, _, code in lesson.steps:
        for rename, rewrite in _rewritten_calls(code, rewrites):
            renames.setdefault(number, []).append(rename)
            reasons[rename] = rewrite.since
    applied = rename_in_lesson(lesson, renames)
    wheres = {number: where for number, where, _ in lesson.steps}
    return [
        f"{wheres[number]}: step {number} calls {rename.old}, which pandas 3 no longer takes "
        f"{reasons[rename]}: the step now calls {rename.new}, which does the same"
        for number, rename in sorted(applied, key=lambda applied: applied[0])
    ]


def _pandas() -> ModuleType | None:
    try:
        return importlib.import_module("pandas")
    except Exception:  # no pandas here, or one that fails to import (the build says): none
        return None


def _rewritten_calls(code: str, rewrites: list[_Rewrite]) -> Iterator[tuple[Rename, _Rewrite]]:
    """Each one-line call of the code that one of `rewrites` writes anew."""
    if (tree := code_tree(code)) is None:
        return
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.lineno == node.end_lineno
        ):
            continue
        written = ast.get_source_segment(code, node)
        for rewrite in rewrites:
            if written and (new := rewrite.rewrite(code, node)) and new != written:
                yield Rename(written, new), rewrite
                break


def _keywords(node: ast.Call, *, dropping: ast.keyword) -> list[str]:
    return [ast.unparse(k) for k in node.keywords if k is not dropping]


def _call(code: str, node: ast.Call, name: str, arguments: list[str]) -> str | None:
    assert isinstance(node.func, ast.Attribute)
    owner = ast.get_source_segment(code, node.func.value)
    return None if owner is None else f"{owner}.{name}({', '.join(arguments)})"


def _keyword(node: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in node.keywords if k.arg == name), None)


def _fillna(code: str, node: ast.Call) -> str | None:
    assert isinstance(node.func, ast.Attribute)
    method = _keyword(node, "method")
    if node.func.attr != "fillna" or node.args or method is None:
        return None
    if not isinstance(method.value, ast.Constant):
        return None
    filler = _FILLERS.get(str(method.value.value))
    if filler is None:
        return None
    return _call(code, node, filler, _keywords(node, dropping=method))


def _renamed_method(old: str, new: str) -> Callable[[str, ast.Call], str | None]:
    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        function = ast.get_source_segment(code, node.func)
        written = ast.get_source_segment(code, node)
        if node.func.attr != old or function is None or written is None:
            return None
        return function.removesuffix(old) + new + written[len(function) :]

    return rewrite


def _renamed_keyword(
    methods: tuple[str, ...], old: str, new: Callable[[ast.keyword], str | None]
) -> Callable[[str, ast.Call], str | None]:
    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        keyword = _keyword(node, old)
        if node.func.attr not in methods or keyword is None or (written := new(keyword)) is None:
            return None
        arguments = [ast.unparse(argument) for argument in node.args]
        kept = _keywords(node, dropping=keyword)
        return _call(code, node, node.func.attr, [*arguments, *kept, written])

    return rewrite


def _whitespace_separator(keyword: ast.keyword) -> str | None:
    if isinstance(keyword.value, ast.Constant) and keyword.value.value is True:
        return 'sep=r"\\s+"'
    return None


def _takes(function: str, keyword: str) -> Callable[[ModuleType], bool]:
    def removed(pandas: ModuleType) -> bool:
        owner, _, name = function.rpartition(".")
        found = getattr(pandas.DataFrame if owner else pandas, name)
        return keyword not in inspect.signature(found).parameters

    return removed


def _has(name: str) -> Callable[[ModuleType], bool]:
    return lambda pandas: not hasattr(pandas.DataFrame, name) and not hasattr(pandas.Series, name)


_REWRITES = [
    _Rewrite("(deprecated in 2.1)", _takes("DataFrame.fillna", "method"), _fillna),
    _Rewrite("(removed in 2.0)", _has("iteritems"), _renamed_method("iteritems", "items")),
    _Rewrite("(renamed map in 2.1)", _has("applymap"), _renamed_method("applymap", "map")),
    _Rewrite(
        "(deprecated in 2.2)",
        _takes("read_csv", "delim_whitespace"),
        _renamed_keyword(
            ("read_csv", "read_table", "read_fwf"), "delim_whitespace", _whitespace_separator
        ),
    ),
    _Rewrite(
        "(renamed lineterminator in 1.5)",
        _takes("DataFrame.to_csv", "line_terminator"),
        _renamed_keyword(
            ("to_csv",), "line_terminator", lambda k: f"lineterminator={ast.unparse(k.value)}"
        ),
    ),
]
