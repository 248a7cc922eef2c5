"""pandas frequency strings a notebook writes as pandas before 2.2 took them.

pandas 2.2 renamed its frequency aliases (`'A'` is `'Y'`, `'H'` `'h'`, `'T'` `'min'`) and
gave offsets their own spelling of period ends (`'M'` is `'ME'` for `date_range` and
`resample`, while a `Period` keeps `'M'`); pandas 3 refuses the old ones: "Invalid
frequency: A ... Did you mean Y?". The installed pandas says what to use, and this asks
it, as the call would: an offset's alias (`date_range`, `resample`) as offsets read it, a
period's (`period_range`, `to_period`) as periods read it, and one a call may take either
way (`asfreq`) only where both readings agree. The alias is written as the installed pandas
takes it, in the call (a one-line call of a string constant; callrewrites.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from coursesite.importers.installedlibrary import installed_library

# A call's frequency: its keyword, and its place among the positional arguments.
_OFFSET_CALLS = {
    "date_range": ("freq", 3),
    "bdate_range": ("freq", 3),
    "timedelta_range": ("freq", 3),
    "resample": ("rule", 0),
    "Grouper": ("freq", -1),
    "shift": ("freq", -1),
    "floor": ("freq", 0),
    "ceil": ("freq", 0),
    "DatetimeIndex": ("freq", -1),
}
_PERIOD_CALLS = {
    "period_range": ("freq", 3),
    "Period": ("freq", 1),
    "PeriodIndex": ("freq", -1),
    "to_period": ("freq", 0),
}
_EITHER_CALLS = {"asfreq": ("freq", 0), "to_timestamp": ("freq", 0)}

# How pandas says what to write instead: the old alias (or its part) and the new. Its
# refusal nests the parser's ("Invalid frequency: 15T. ... Invalid frequency: T. Did you
# mean min?"): the innermost alias named is the part to rename.
_INVALID = re.compile(r"Invalid frequency: ([^.\s]+)\.")
_DID_YOU_MEAN = re.compile(r"Did you mean ([^?\s]+)\?")
_PLEASE_USE = (
    re.compile(
        r"'(?P<old>[^']+)' is no longer supported for offsets\. Please use '(?P<new>[^']+)'"
    ),
    re.compile(r"for Period, please use '(?P<new>[^']+)' instead of '(?P<old>[^']+)'"),
)


def frequency_alias(code: str, node: ast.Call) -> str | None:
    """The call with its frequency string as the installed pandas takes it, or None."""
    assert isinstance(node.func, ast.Attribute)
    name = node.func.attr
    place = _OFFSET_CALLS.get(name) or _PERIOD_CALLS.get(name) or _EITHER_CALLS.get(name)
    constant = _argument(node, *place) if place else None
    written = ast.get_source_segment(code, node)
    segment = ast.get_source_segment(code, constant) if constant else None
    if constant is None or written is None or segment is None or segment[0] not in "'\"":
        return None
    readers = [_offset] if name in _OFFSET_CALLS else [_period] if name in _PERIOD_CALLS else []
    current = {_current(str(constant.value), reader) for reader in readers or [_offset, _period]}
    if len(current) != 1 or (new := current.pop()) is None:
        return None
    # Where the string starts in the call as written (on a later line of a call over
    # several, its column is the line's own).
    lines = written.split("\n")
    row = constant.lineno - node.lineno
    column = constant.col_offset - (node.col_offset if row == 0 else 0)
    start = sum(len(line) + 1 for line in lines[:row]) + column
    quote = segment[0]
    return written[:start] + quote + new + quote + written[start + len(segment) :]


def _argument(node: ast.Call, keyword: str, position: int) -> ast.Constant | None:
    """The call's frequency argument, where it is a string constant."""
    found: ast.expr | None = next((k.value for k in node.keywords if k.arg == keyword), None)
    if found is None and 0 <= position < len(node.args):
        found = node.args[position]
    if isinstance(found, ast.Constant) and isinstance(found.value, str):
        return found
    return None


def _current(alias: str, reads: Callable[[str], object]) -> str | None:
    """`alias` as the installed pandas takes it, following what its refusals say to use
    ('A' -> 'Y' -> 'YE' for an offset); None where it takes it as it is, or says nothing."""
    now = alias
    for _ in range(3):
        try:
            reads(now)
        except (ValueError, KeyError) as refusal:  # how pandas' parser refuses an alias
            renamed = _renamed(now, str(refusal))
            if renamed is None or renamed == now:
                return None
            now = renamed
        except Exception:  # anything else it raises says nothing to write instead
            return None
        else:
            return None if now == alias else now
    return None


def _renamed(alias: str, refusal: str) -> str | None:
    """`alias` with the part pandas' `refusal` names written as it says to, or None."""
    old, new = "", ""
    if (mean := _DID_YOU_MEAN.search(refusal)) and (named := _INVALID.findall(refusal)):
        old, new = named[-1], mean.group(1)
    for please in _PLEASE_USE:
        if found := please.search(refusal):
            old, new = found.group("old"), found.group("new")
    if not old:
        return None
    return re.sub(rf"(?<![A-Za-z]){re.escape(old)}(?![A-Za-z])", new, alias)


def _offset(alias: str) -> object:
    pandas = installed_library("pandas")
    return pandas.tseries.frequencies.to_offset(alias) if pandas else None


def _period(alias: str) -> object:
    pandas = installed_library("pandas")
    return pandas.Period("2000-01-01", freq=alias) if pandas else None
