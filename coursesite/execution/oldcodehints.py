"""Hints for code that ran where it was written and fails under the versions installed
here, in ways Python and libraries state in their own terms: a label's math that a newer
matplotlib parses strictly, an annotation `X | None` where `X` is no longer (or was never
in this version) a type. "Fix the code" is true, but the author needs to know why code
that worked fails, and what to change."""

from __future__ import annotations

import ast
import re

from coursesite.execution.dependencies import distribution_version
from coursesite.execution.installedlibraries import failing_library, failing_line

# matplotlib's mathtext parser refusing a label, title or text: "ValueError: \n$m - p}$\n^".
_MATHTEXT = re.compile(r"ValueError: \s*(\$[^\n]*\$)\s*\n\s*\^[\s\S]*ParseException")
# `key: jax.random.PRNGKey | None`, where PRNGKey is a function: evaluated as the def runs.
_UNION = re.compile(
    r"TypeError: unsupported operand type\(s\) for \|: "
    r"'(function|builtin_function_or_method|module|str)' and '(\w+)'"
)


# Flax 0.12's nnx: a plain list of modules or arrays on a Module is static, and refused.
_FLAX_STATIC = re.compile(
    r"Found data on value of type '<class '(list|tuple|dict)'>' assigned to static attribute "
    r"'(\w+)'"
)


# Matplotlib 3.6 renamed its seaborn styles ('seaborn-v0_8-whitegrid'); 3.8 dropped the
# old names: "OSError: 'seaborn-whitegrid' is not a valid package style, ...".
_SEABORN_STYLE = re.compile(r"OSError: '(seaborn(?:-[\w-]+)?)' is not a valid package style")


# transformers 5 removed every Flax and TensorFlow model class (FlaxCLIPModel, TFBertModel).
_TRANSFORMERS_FRAMEWORK = re.compile(
    r"(?:cannot import name|module 'transformers' has no attribute) '((?:Flax|TF)[A-Z]\w*)'"
    r"(?: from 'transformers\b|$)",
    re.M,
)


# NumPy 1.25 deprecated taking an array of one element but some dimensions as a number
# (float(a) of shape (1,)); newer NumPy refuses, from float() and from a library doing it.
_SIZE_ONE_SCALAR = "only 0-dimensional arrays can be converted to Python scalars"
# The same refusal where the code assigns such an array to one element (`y[t] = G @ x`, G a
# row): NumPy's words end there. A ragged list says more ("... inhomogeneous shape ...").
_SIZE_ONE_ELEMENT = re.compile(r"ValueError: setting an array element with a sequence\.\s*\Z")


# pandas 2.1 deprecated taking a Series of one element as a number (float(s), "%f" % s) and
# pandas 3 refuses; Python's words name the Series where a number was wanted.
_SERIES_AS_NUMBER = re.compile(
    r"TypeError: (?:\w+\(\) argument must be .*?)?(?:must be )?(?:a )?real number, not "
    r"'?(Series|DataFrame)'?$|TypeError: unsupported format string passed to "
    r"(Series|DataFrame)\.__format__",
    re.M,
)


# A DataFrame used as a NumPy array: indexed by two positions (`data.exog[:5, :]`, which
# pandas takes as one column key), or asked for an ndarray's method (`frame.view(float)`).
_FRAME_AS_ARRAY = re.compile(
    r"InvalidIndexError: \((?:slice\(|-?\d+,|Ellipsis)"
    r"|'DataFrame' object has no attribute '(view|reshape|flatten|ravel|tofile|ptp)'"
)


# pandas 3 reads `s[0]` on a Series as the label 0 only; until then, an index of other
# labels fell back to the position: "KeyError: 0" from Series.__getitem__.
_POSITION_KEY = re.compile(r"KeyError: -?\d+$")
_SERIES_GETITEM = re.compile(r'[/\\]pandas[/\\]core[/\\]series\.py", line \d+, in __getitem__')


def positional_key_hint(failure: dict) -> str:
    """For `s[0]` on a Series whose index holds other labels (a model's params by name):
    a position pandas 3 no longer falls back to."""
    if not _POSITION_KEY.match(failure["message"]):
        return ""
    if not _SERIES_GETITEM.search(failure.get("traceback") or ""):
        return ""
    pandas = distribution_version("pandas") or "here"
    return (
        "the code indexes a pandas Series by position, `s[0]`, where its index holds other "
        "labels (a model's params by name): pandas took the number as a position until 3.0, "
        f"and pandas {pandas} reads it as a label only; the code was written for an older "
        "pandas: write `s.iloc[0]`"
    )


# "too many values to unpack (expected 4)", "not enough values to unpack (expected 4, got 3)"
_UNPACKING = re.compile(r"^ValueError: (?:too many|not enough) values to unpack \(expected (\d+)")


def unpacking_hint(failure: dict) -> str:
    """For `a, b, c, d = f()` where f returns another number of values: a library's function
    whose installed version returns more or fewer than the code was written for (QuantEcon's
    LinearStateSpace.stationary_distributions returns five values, not four)."""
    unpacking = _UNPACKING.match(failure["message"])
    traceback = failure.get("traceback") or ""
    shown = failing_line(traceback)
    if unpacking is None or not shown or failing_library(traceback):
        return ""  # raised in a library's own code, which unpacks what it was given
    try:
        statement = ast.parse(shown).body[0]
    except (SyntaxError, IndexError):
        return ""
    if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
        return ""
    called = ast.unparse(statement.value.func)
    return (
        f"the line unpacks what {called}() returns into {unpacking.group(1)} names, and it "
        "returned another number of values: where it is a library's, the installed version "
        "returns other values than the one the code was written for; look up what it "
        "returns now (print it, or its docs) and unpack that many"
    )


# Matplotlib 3.5 made an axes' lists of artists read-only views; 3.7 refused `del`.
_ARTIST_LIST = re.compile(r"'ArtistList' object (?:doesn't|does not) support item deletion")


def old_code_hint(message: str) -> str:
    """What to change, for a failure of code written for other versions; "" if none."""
    if _ARTIST_LIST.search(message):
        return (
            "Matplotlib 3.7 made an axes' lists of artists (ax.lines, ax.patches, ...) "
            "read-only: the code was written for an older Matplotlib; take an artist off "
            "with its remove(), `ax.lines[0].remove()`, or for several `for line in "
            "list(ax.lines[1:]): line.remove()`"
        )
    if frame := _FRAME_AS_ARRAY.search(message):
        used = f".{frame.group(1)}()" if frame.group(1) else "[rows, columns] by position"
        return (
            f"the code uses a pandas DataFrame as a NumPy array ({used}): it was likely "
            "written when the data came as an array (statsmodels' datasets load() gives "
            "DataFrames now); take the array, `frame.to_numpy()`, or index by position "
            "with `frame.iloc[...]`"
        )
    if series := _SERIES_AS_NUMBER.search(message):
        kind = series.group(1) or series.group(2)
        pandas = distribution_version("pandas") or "here"
        return (
            f"the code uses a pandas {kind} where Python wants a number (float(), `%f`, a "
            "format): pandas took one of a single element as its number until 2.1 deprecated "
            f"it, and pandas {pandas} refuses; the code was written for an older pandas "
            "(a model's predict() of one row gives a Series now); take the element, "
            "`s.iloc[0]` or `s.item()`"
        )
    if removed := _TRANSFORMERS_FRAMEWORK.search(message):
        return (
            f"transformers 5 removed its Flax and TensorFlow models, {removed.group(1)} among "
            "them (they are PyTorch's only now): the code was written for transformers 4; pin "
            "transformers<5 if the other packages allow it, or use the PyTorch model"
        )
    if _SIZE_ONE_SCALAR in message or _SIZE_ONE_ELEMENT.search(message):
        numpy = distribution_version("numpy") or "here"
        where = (
            "where the code calls float() or int() or passes such an array where a library "
            "wants a number (a position Matplotlib draws at)"
            if _SIZE_ONE_SCALAR in message
            else "where the code assigns such an array to one element of another (`y[t] = G "
            "@ x` with G a row); an array of more elements never fitted one"
        )
        return (
            "NumPy 1.25 deprecated making a number of an array that has one element but some "
            f"dimensions (shape (1,) or (1, 1): a row of a column vector), and NumPy "
            f"{numpy} refuses it, {where}: the code was written for an older NumPy; take the "
            "element (`a.item()`, `a[0, 0]`) or pin numpy<2 if the other packages allow it"
        )
    if style := _SEABORN_STYLE.search(message):
        old = style.group(1)
        return (
            f"Matplotlib 3.6 renamed its style '{old}' to "
            f"'seaborn-v0_8{old.removeprefix('seaborn')}', and 3.8 dropped the old name: the "
            "code was written for an older Matplotlib; use the new name (`build.py import` "
            "writes it so)"
        )
    if mathtext := _MATHTEXT.search(message):
        return (
            f"matplotlib cannot parse the math text {mathtext.group(1)} of a label, title or "
            "text the code draws (an older matplotlib may have let it pass): fix its TeX, "
            "or write it without $...$"
        )
    if static := _FLAX_STATIC.search(message):
        kind, name = static.groups()
        wrapper = {"list": "nnx.List", "dict": "nnx.Dict", "tuple": "nnx.data"}[kind]
        return (
            f"flax's nnx (0.12 and later) takes a plain {kind} on a Module as static, and "
            f"this one holds modules or arrays: the code was written for an older flax; wrap "
            f"it, `self.{name} = {wrapper}(...)` (flax 0.12's release notes), or install the "
            "flax it was written for"
        )
    if union := _UNION.search(message):
        return (
            f"an annotation or expression puts '|' between a {union.group(1)} and a "
            f"{union.group(2)}: Python evaluates a def's annotations as it runs the def, and "
            "what the code annotates with is no type in the installed version (it was "
            "written for another); annotate with a type, or put `from __future__ import "
            "annotations` first in the step, which leaves annotations unevaluated"
        )
    return ""
