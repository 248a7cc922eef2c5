"""pandas calls a notebook makes as pandas before 3.0 took them.

pandas removed, between 2.0 and 3.0, calls that older notebooks make everywhere, each with
a replacement that does the same: `fillna(method='ffill')` is `ffill()` (and `'bfill'`
`bfill()`), `iteritems()` is `items()`, `DataFrame.applymap` is `map`, `read_csv`'s
`delim_whitespace=True` is `sep=r"\\s+"`, `to_csv`'s `line_terminator` is `lineterminator`;
`.ix[...]`, gone since 1.0, is `.loc[...]` where its keys are labels, as they mostly were;
`frame.sort('column')`, gone since 0.20, is `sort_values` (its `columns=` is `by=`);
`PeriodIndex(start=, end=)` and `DatetimeIndex(start=, periods=)`, ranges the indexes no
longer make, are `period_range` and `date_range`, which take the same keywords;
frequency strings pandas renamed (`freq='A'`) are written as it now spells them
(pandasfrequencies.py).
A notebook of that age fails the build with an AttributeError or "got an unexpected
keyword argument"; so, where the installed pandas lacks the old call, the import writes
the one it takes, and says so. A call only pandas makes is rewritten (`X.iteritems()` of
any X: no other library of a notebook has it); what a call of another object could also
be (`X.append(row)`) is left to the build's hint.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from types import ModuleType

from coursesite.execution.consequences import import_aliases
from coursesite.importers.callrewrites import (
    CallRewrite,
    call_of,
    kept_keywords,
    keyword_of,
    renamed_keyword,
    renamed_method,
    rewrite_notes,
)
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.pandasfrequencies import frequency_alias
from coursesite.importers.pandaskeywords import keyword_rewrite
from coursesite.importers.steplines import imported_packages

_FILLERS = {"ffill": "ffill", "pad": "ffill", "bfill": "bfill", "backfill": "bfill"}


def pandas_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each call of a lesson that imports pandas that the installed
    pandas no longer takes as pandas now takes it; the report's lines, one a step and
    call."""
    codes = [code for _, _, code in lesson.steps]
    aliases = {name for name, module in import_aliases(codes).items() if module == "pandas"}
    aliases |= {"pandas"}  # `import pandas` binds its own name
    extra = keyword_rewrite(aliases, imported_packages(lesson.steps))
    extra.append(
        CallRewrite(
            "(removed in 2.0)",
            lambda pandas: not hasattr(pandas, "datetime"),
            _timestamp(aliases),
            "a Timestamp, pandas' datetime",
        )
    )
    return rewrite_notes(lesson, "pandas", _REWRITES + extra, "pandas 3")


# What pd.datetime, an alias of datetime.datetime, was called for, which Timestamp has too.
_DATETIME_CALLS = {"today", "now", "fromtimestamp", "fromisoformat", "combine"}


def _timestamp(aliases: set[str]) -> Callable[[str, ast.Call], str | None]:
    """`pd.datetime(2020, 1, 1)` and `pd.datetime.today()` as `pd.Timestamp(...)` and
    `pd.Timestamp.today()`: pandas 2.0 removed its alias of datetime.datetime, and its
    Timestamp is a datetime (a call of the standard library's `datetime.datetime` stays)."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        function, written = node.func, ast.get_source_segment(code, node)
        assert isinstance(function, ast.Attribute)
        alias: ast.expr | None = function.value
        if isinstance(alias, ast.Attribute) and function.attr in _DATETIME_CALLS:
            alias = alias.value if alias.attr == "datetime" else None
        elif function.attr != "datetime":
            alias = None
        if not (isinstance(alias, ast.Name) and alias.id in aliases) or written is None:
            return None
        old = f"{alias.id}.datetime"
        return f"{alias.id}.Timestamp{written[len(old) :]}" if written.startswith(old) else None

    return rewrite


def _fillna(code: str, node: ast.Call) -> str | None:
    assert isinstance(node.func, ast.Attribute)
    method = keyword_of(node, "method")
    if node.func.attr != "fillna" or node.args or method is None:
        return None
    if not isinstance(method.value, ast.Constant):
        return None
    filler = _FILLERS.get(str(method.value.value))
    if filler is None:
        return None
    return call_of(code, node, filler, kept_keywords(node, dropping=method))


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


def _ix(code: str, node: ast.Subscript) -> str | None:
    """`frame.ix[rows, columns]` as `frame.loc[rows, columns]`."""
    assert isinstance(node.value, ast.Attribute)
    owner = ast.get_source_segment(code, node.value.value)
    key = ast.get_source_segment(code, node.slice)
    if node.value.attr != "ix" or owner is None or key is None:
        return None
    return f"{owner}.loc[{key}]"


# Keywords of pandas' old DataFrame.sort and Series.sort that neither list.sort nor NumPy's
# ndarray.sort (axis=, kind=, order=) takes.
_SORT_KEYWORDS = {"columns", "ascending", "inplace", "na_position"}


def _sort(code: str, node: ast.Call) -> str | None:
    """`frame.sort('p', inplace=True)` as `frame.sort_values('p', inplace=True)`: a call
    that names columns, as text, or takes a keyword list.sort lacks; `items.sort()` stays."""
    assert isinstance(node.func, ast.Attribute)
    keywords = {keyword.arg for keyword in node.keywords}
    by_name = bool(node.args) and _names_columns(node.args[0])
    if node.func.attr != "sort" or not (by_name or keywords & _SORT_KEYWORDS):
        return None
    arguments = [ast.unparse(argument) for argument in node.args]
    for keyword in node.keywords:
        name = "by" if keyword.arg == "columns" else keyword.arg
        arguments.append(f"{name}={ast.unparse(keyword.value)}" if name else ast.unparse(keyword))
    return call_of(code, node, "sort_values", arguments)


def _names_columns(argument: ast.expr) -> bool:
    """Whether `argument` is a column's name or a list of them, as text (a cmp function,
    Python 2's list.sort argument, is not)."""
    names = argument.elts if isinstance(argument, ast.List) else [argument]
    return bool(names) and all(
        isinstance(name, ast.Constant) and isinstance(name.value, str) for name in names
    )


# The index classes that made ranges before pandas 1.0/3.0, and the functions that do now.
_RANGES = {"PeriodIndex": "period_range", "DatetimeIndex": "date_range"}


def _index_range(code: str, node: ast.Call) -> str | None:
    """`pd.PeriodIndex(start='1950-01', end='2015-12', freq='M')` as `pd.period_range(...)`
    with the same keywords: a range, not an index of given values (no data, positional or
    named), which the classes still make."""
    assert isinstance(node.func, ast.Attribute)
    keywords = {keyword.arg for keyword in node.keywords}
    if node.func.attr not in _RANGES or node.args or "data" in keywords:
        return None
    if not keywords & {"start", "end", "periods"}:
        return None
    return call_of(code, node, _RANGES[node.func.attr], [ast.unparse(k) for k in node.keywords])


def _has(name: str) -> Callable[[ModuleType], bool]:
    return lambda pandas: not hasattr(pandas.DataFrame, name) and not hasattr(pandas.Series, name)


_REWRITES = [
    CallRewrite(
        "(removed in 1.0)",
        _has("ix"),
        _ix,
        "which does the same where the index holds the labels .ix was given (where it "
        "took them as positions, write .iloc)",
        of=ast.Subscript,
    ),
    CallRewrite("(removed in 0.20)", _has("sort"), _sort),
    CallRewrite("(removed in 3.0 and 1.0)", _takes("PeriodIndex", "start"), _index_range),
    CallRewrite("(deprecated in 2.1)", _takes("DataFrame.fillna", "method"), _fillna),
    # Whether the installed pandas refuses the alias is asked of each alias.
    CallRewrite(
        "(its frequency aliases were renamed in 2.2)",
        lambda _: True,
        frequency_alias,
        lines_too=True,
    ),
    CallRewrite("(removed in 2.0)", _has("iteritems"), renamed_method("iteritems", "items")),
    CallRewrite("(renamed map in 2.1)", _has("applymap"), renamed_method("applymap", "map")),
    CallRewrite(
        "(deprecated in 2.2)",
        _takes("read_csv", "delim_whitespace"),
        renamed_keyword(
            ("read_csv", "read_table", "read_fwf"), "delim_whitespace", _whitespace_separator
        ),
        lines_too=True,
    ),
    CallRewrite(
        "(renamed lineterminator in 1.5)",
        _takes("DataFrame.to_csv", "line_terminator"),
        renamed_keyword(
            ("to_csv",), "line_terminator", lambda k: f"lineterminator={ast.unparse(k.value)}"
        ),
        lines_too=True,
    ),
]
