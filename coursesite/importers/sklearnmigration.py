"""scikit-learn calls a notebook makes as scikit-learn before 1.4 took them.

scikit-learn renames a keyword in one release and removes the old name two releases
later; tutorials of its earlier years call them everywhere: `OneHotEncoder(sparse=False)`
is `sparse_output=False` (renamed in 1.2), the ensembles' and calibration's
`base_estimator=` is `estimator=` (1.2), `AgglomerativeClustering(affinity=)` is `metric=`
(1.2), `TSNE(n_iter=)` is `max_iter=` (1.5); `mean_squared_error(..., squared=False)` is
`root_mean_squared_error(...)` (1.4; called on its module, `metrics.`, where the new
function is too). A notebook of that age fails the build with "got an
unexpected keyword argument 'sparse'"; so, where the installed scikit-learn lacks the old
keyword and has the new one, the import writes the call as it takes it, and says so.

Only calls of scikit-learn's own classes and functions are rewritten: the name called
(`OneHotEncoder`, `preprocessing.OneHotEncoder`, `sklearn.manifold.TSNE`) must come from
an import of scikit-learn in the lesson (openTSNE's TSNE keeps its `n_iter`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable
from types import ModuleType

from coursesite.execution.consequences import import_aliases
from coursesite.importers.callrewrites import CallRewrite, keyword_of, rewrite_notes, written_with
from coursesite.importers.importedlesson import ImportedLesson

# (module, class or function, old keyword, new keyword, when it was renamed)
_RENAMED_KEYWORDS = [
    ("preprocessing", "OneHotEncoder", "sparse", "sparse_output", "1.2"),
    ("cluster", "AgglomerativeClustering", "affinity", "metric", "1.2"),
    ("cluster", "FeatureAgglomeration", "affinity", "metric", "1.2"),
    ("ensemble", "BaggingClassifier", "base_estimator", "estimator", "1.2"),
    ("ensemble", "BaggingRegressor", "base_estimator", "estimator", "1.2"),
    ("ensemble", "AdaBoostClassifier", "base_estimator", "estimator", "1.2"),
    ("ensemble", "AdaBoostRegressor", "base_estimator", "estimator", "1.2"),
    ("calibration", "CalibratedClassifierCV", "base_estimator", "estimator", "1.2"),
    ("manifold", "TSNE", "n_iter", "max_iter", "1.5"),
]
# The error metrics whose `squared=False` became a function of its own in 1.4.
_ROOTED = {
    "mean_squared_error": "root_mean_squared_error",
    "mean_squared_log_error": "root_mean_squared_log_error",
}


def sklearn_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each call of a lesson that imports scikit-learn that the installed
    scikit-learn no longer takes as it takes it now; the report's lines."""
    aliases = import_aliases([code for _, _, code in lesson.steps])
    imported = {name for name, module in aliases.items() if module.split(".")[0] == "sklearn"}
    imported.add("sklearn")  # `import sklearn.manifold` binds the package's own name

    def called(node: ast.Call, name: str) -> bool:
        """Whether `node` calls scikit-learn's `name`, under a name its imports bound."""
        dotted = _dotted(node.func)
        if dotted is None or dotted.rpartition(".")[2] != name:
            return False
        root = dotted.split(".")[0]
        return root in imported and (
            root == "sklearn" or "." in dotted or aliases[root].endswith(name)
        )

    rewrites = [
        CallRewrite(
            f"(renamed {new} in {since})",
            _lacks_keyword(module, owner, old, new),
            _renamed_keyword(called, owner, old, new),
            names_too=True,
            lines_too=True,
        )
        for module, owner, old, new, since in _RENAMED_KEYWORDS
    ]
    rewrites += [
        CallRewrite(
            "(its squared=False is a function of its own since 1.4)",
            _lacks_keyword("metrics", old, "squared", None),
            _rooted(called, old, new),
            names_too=True,
        )
        for old, new in _ROOTED.items()
    ]
    return rewrite_notes(lesson, "sklearn", rewrites, "scikit-learn")


def _dotted(function: ast.expr) -> str | None:
    """`a.b.C` for the name a call calls, or None for anything else (a call's result)."""
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute) and (owner := _dotted(function.value)):
        return f"{owner}.{function.attr}"
    return None


def _lacks_keyword(
    module: str, name: str, old: str, new: str | None
) -> Callable[[ModuleType], bool]:
    """Whether the installed `sklearn.module.name` lacks the keyword `old` (and has `new`)."""

    def removed(_: ModuleType) -> bool:
        try:
            found = getattr(importlib.import_module(f"sklearn.{module}"), name)
            parameters = inspect.signature(found).parameters
        except (ImportError, AttributeError, TypeError, ValueError):
            return False
        return old not in parameters and (new is None or new in parameters)

    return removed


def _renamed_keyword(
    called: Callable[[ast.Call, str], bool], name: str, old: str, new: str
) -> Callable[[str, ast.Call], str | None]:
    def rewrite(code: str, node: ast.Call) -> str | None:
        keyword = keyword_of(node, old)
        if keyword is None or not called(node, name):
            return None
        value = ast.get_source_segment(code, keyword.value) or ast.unparse(keyword.value)
        return written_with(code, node, keyword, f"{new}={value}")

    return rewrite


def _rooted(
    called: Callable[[ast.Call, str], bool], name: str, rooted: str
) -> Callable[[str, ast.Call], str | None]:
    """`mean_squared_error(y, p, squared=False)` as `root_mean_squared_error(y, p)`; with
    `squared=True`, the keyword left out."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        keyword = keyword_of(node, "squared")
        if keyword is None or not called(node, name) or not isinstance(keyword.value, ast.Constant):
            return None
        if keyword.value.value is True:
            return written_with(code, node, keyword, None)
        # The function of its own is reached where the old one was: on its module (a name
        # imported alone would need an import line of its own, which is not written).
        if keyword.value.value is not False or not isinstance(node.func, ast.Attribute):
            return None
        function = ast.get_source_segment(code, node.func)
        written = written_with(code, node, keyword, None)
        if function is None or written is None:
            return None
        return function.removesuffix(name) + rooted + written[len(function) :]

    return rewrite
