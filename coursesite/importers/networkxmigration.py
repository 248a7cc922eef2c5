"""NetworkX calls a notebook makes as NetworkX 2 took them.

NetworkX 3.0 removed functions that tutorials of its 2.x years call everywhere, each with
its replacement in NetworkX's migration guide: `nx.info(G)` is `str(G)` (a graph's text is
what info said since 2.6), and the NumPy and SciPy matrix converters are the array ones
(`to_numpy_matrix` is `to_numpy_array`, `from_scipy_sparse_matrix`
`from_scipy_sparse_array`; `extrema_bounding(G, compute="radius")` is `radius(G,
usebounds=True)`). A notebook of that age fails the build with "module
'networkx' has no attribute 'info'"; so, where the installed NetworkX lacks the old call,
the import writes the new one, and says so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType

from coursesite.importers.callrewrites import CallRewrite, renamed_method, rewrite_notes
from coursesite.importers.importedlesson import ImportedLesson

_NETWORKX = ("nx", "networkx")
_ARRAYS = {
    "to_numpy_matrix": "to_numpy_array",
    "from_numpy_matrix": "from_numpy_array",
    "to_scipy_sparse_matrix": "to_scipy_sparse_array",
    "from_scipy_sparse_matrix": "from_scipy_sparse_array",
}


def networkx_notes(lesson: ImportedLesson) -> list[str]:
    """Writes, in place, each call of a lesson that imports NetworkX that the installed
    NetworkX no longer has as NetworkX 3 writes it; the report's lines."""
    return rewrite_notes(lesson, "networkx", _REWRITES, "NetworkX 3")


def _info(code: str, node: ast.Call) -> str | None:
    """`nx.info(G)` as `str(G)`."""
    assert isinstance(node.func, ast.Attribute)
    owner = ast.get_source_segment(code, node.func.value)
    if node.func.attr != "info" or owner not in _NETWORKX or len(node.args) != 1:
        return None
    graph = ast.get_source_segment(code, node.args[0])
    return None if graph is None or node.keywords else f"str({graph})"


# What `extrema_bounding(G, compute=...)` computed, and the call that computes it now.
_BOUNDED = {
    "diameter": "diameter({}, usebounds=True)",
    "radius": "radius({}, usebounds=True)",
    "periphery": "periphery({}, usebounds=True)",
    "center": "center({}, usebounds=True)",
    "eccentricities": "eccentricity({})",  # every node's, as a dict: the same values
}


def _extrema_bounding(code: str, node: ast.Call) -> str | None:
    """`nx.extrema_bounding(G, compute="radius")` as `nx.radius(G, usebounds=True)`:
    NetworkX 2.8 deprecated it for the measures' own `usebounds=True`."""
    assert isinstance(node.func, ast.Attribute)
    owner = ast.get_source_segment(code, node.func.value)
    if node.func.attr != "extrema_bounding" or owner not in _NETWORKX or len(node.args) > 2:
        return None
    given = {keyword.arg: keyword.value for keyword in node.keywords}
    arguments = dict(zip(("G", "compute"), node.args, strict=False)) | given
    compute = arguments.get("compute", ast.Constant("diameter"))
    graph = arguments.get("G")
    if set(arguments) - {"G", "compute"} or graph is None or not isinstance(compute, ast.Constant):
        return None
    call = _BOUNDED.get(compute.value) if isinstance(compute.value, str) else None
    text = ast.get_source_segment(code, graph)
    return f"{owner}.{call.format(text)}" if call and text else None


def _lacks(name: str) -> Callable[[ModuleType], bool]:
    return lambda networkx: not hasattr(networkx, name)


_REWRITES = [
    CallRewrite("(removed in 3.0; a graph's text is what it said)", _lacks("info"), _info),
    *(
        CallRewrite("(removed in 3.0)", _lacks(old), renamed_method(old, new))
        for old, new in _ARRAYS.items()
    ),
    CallRewrite(
        "(removed in 3.0)",
        _lacks("extrema_bounding"),
        _extrema_bounding,
        "which computes the same by the same bounds (all eccentricities: directly)",
    ),
]
