"""pandas calls that give by position what pandas 2 and 3 take by keyword only.

pandas 2.0 made all but the first arguments of many methods keyword-only
(`df.drop('col', 1)` is `df.drop('col', axis=1)`, `pd.concat(frames, 1)` is
`pd.concat(frames, axis=1)`, `df.pivot('date', 'name', 'value')` names index, columns
and values), and 3.0 did so for the writers (`df.to_excel('f.xlsx', 'sheet')` is
`sheet_name='sheet'`). A notebook of that age fails the build with "takes 2 positional
arguments but 3 were given"; so, where the installed pandas takes fewer positional
arguments than the call gives, the import names each extra one as the pandas the notebook
was written for ordered them (the order of 1.5's signatures: pivot's is no longer the one
it declares), and says so.

Only calls no other library of a notebook makes so are rewritten: the methods below on any
object, in a lesson that imports none of the libraries with methods of those names and
other meanings (PySpark's `drop('a', 'b')`, Polars'); `concat` and the readers only as
functions of the pandas the lesson imports.
"""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Callable

from coursesite.importers.callrewrites import CallRewrite
from coursesite.importers.installedlibrary import installed_library

# Each method's parameters, in the order pandas 1.5 took them by position (self left out).
_METHODS = {
    "drop": ("labels", "axis", "index", "columns", "level", "inplace", "errors"),
    "dropna": ("axis", "how", "thresh", "subset", "inplace"),
    "drop_duplicates": ("subset", "keep", "inplace", "ignore_index"),
    "set_index": ("keys", "drop", "append", "inplace", "verify_integrity"),
    "reset_index": ("level", "drop", "inplace", "col_level", "col_fill"),
    "sort_values": ("by", "axis", "ascending", "inplace", "kind", "na_position"),
    "sort_index": ("axis", "level", "ascending", "inplace", "kind", "na_position"),
    "pivot": ("index", "columns", "values"),
    "rename": ("mapper", "index", "columns", "axis", "copy", "inplace", "level", "errors"),
    "interpolate": ("method", "axis", "limit", "inplace", "limit_direction"),
    "to_csv": ("path_or_buf", "sep", "na_rep", "float_format", "columns", "header", "index"),
    "to_excel": ("excel_writer", "sheet_name", "na_rep", "float_format", "columns", "header"),
    "to_json": ("path_or_buf", "orient", "date_format", "double_precision", "force_ascii"),
}
_FUNCTIONS = {
    "concat": ("objs", "axis", "join", "ignore_index", "keys", "levels", "names"),
    "read_csv": ("filepath_or_buffer", "sep", "delimiter", "header", "names", "index_col"),
    "read_table": ("filepath_or_buffer", "sep", "delimiter", "header", "names", "index_col"),
}
# Libraries whose objects have methods of those names that take other arguments.
_OTHER_FRAMES = {"pyspark", "polars", "cudf", "ibis", "vaex"}


def keyword_rewrite(aliases: set[str], imported: set[str]) -> list[CallRewrite]:
    """The rewrite for a lesson that imports pandas under the names `aliases` and imports
    the top-level modules `imported`; none where another library's frames could be meant."""
    if imported & _OTHER_FRAMES:
        return []
    return [
        CallRewrite(
            "(it takes all but its first arguments by keyword only)",
            lambda _: True,  # asked of each call: whether the installed one takes so many
            _named_extras(aliases),
        )
    ]


def _named_extras(aliases: set[str]) -> Callable[[str, ast.Call], str | None]:
    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        name, owner = node.func.attr, node.func.value
        function = isinstance(owner, ast.Name) and owner.id in aliases and name in _FUNCTIONS
        order = _FUNCTIONS[name] if function else _METHODS.get(name)
        if order is None or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        installed = _parameters(name, function)
        taken = installed[0] if installed else 0
        if installed is None or not taken < len(node.args) <= len(order):
            return None
        extras = set(order[taken : len(node.args)])
        if extras - installed[1] or extras & {k.arg for k in node.keywords}:
            return None  # a keyword it no longer has, or given twice: the build says so
        arguments = [ast.get_source_segment(code, a) or ast.unparse(a) for a in node.args]
        given = arguments[taken:]
        named = [f"{key}={value}" for key, value in zip(order[taken:], given, strict=False)]
        written = ast.get_source_segment(code, node.func)
        kept = [ast.get_source_segment(code, k) or ast.unparse(k) for k in node.keywords]
        return f"{written}({', '.join([*arguments[:taken], *named, *kept])})"

    return rewrite


@functools.cache  # asked of every call of a name the table lists
def _parameters(name: str, function: bool) -> tuple[int, frozenset[str]] | None:
    """How many arguments the installed pandas takes by position for `name` (a method of
    DataFrame, or a function of pandas), and the names of all it takes; None where it is
    not installed."""
    pandas = installed_library("pandas")
    found = getattr(pandas if function else pandas.DataFrame, name, None) if pandas else None
    try:
        parameters = inspect.signature(found).parameters.values()  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    taken = sum(p.kind in kinds and p.name != "self" for p in parameters)
    return taken, frozenset(p.name for p in parameters)
