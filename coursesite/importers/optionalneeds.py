"""Packages a library needs for one of its calls without asking for them when it is
installed: its optional dependencies. Plotly's image export needs kaleido, pandas' Excel
files need openpyxl, NumPyro's model drawings graphviz, NetworkX's Graphviz layouts
pygraphviz, TensorFlow's summaries TensorBoard.
A notebook's kernel had them; the build would fail at the call, in the library's own words
(Plotly: "Image export requires the Kaleido package"). With `--install` the import installs
them with the rest; without, it names each at the step that calls.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coursesite.execution.missingmodules import is_installed
from coursesite.importers.steplines import (
    dotted_name,
    imported_packages,
    lesson_line,
    step_nodes,
)


@dataclass(frozen=True)
class OptionalNeed:
    library: str  # the module the code imports
    calls: frozenset[str]  # its methods that need the package, or functions by full name
    module: str  # the package's module, installed or not
    requirement: str  # the line pip installs it from


OPTIONAL_NEEDS = (
    OptionalNeed("plotly", frozenset({"to_image", "write_image"}), "kaleido", "kaleido>=1"),
    OptionalNeed("pandas", frozenset({"to_excel", "read_excel"}), "openpyxl", "openpyxl"),
    OptionalNeed("pandas", frozenset({"to_parquet", "read_parquet"}), "pyarrow", "pyarrow"),
    OptionalNeed("pandas", frozenset({"to_markdown"}), "tabulate", "tabulate"),
    OptionalNeed(
        "numpyro",
        frozenset({"numpyro.render_model", "numpyro.infer.inspect.render_model"}),
        "graphviz",
        "graphviz",
    ),
    # NetworkX draws with Graphviz's layouts through pygraphviz (nx-guides' LCA), whose
    # wheels carry Graphviz itself.
    OptionalNeed(
        "networkx",
        frozenset(
            f"networkx.{module}.{name}"
            for module in ("nx_agraph", "drawing.nx_agraph")
            for name in (
                "graphviz_layout",
                "pygraphviz_layout",
                "to_agraph",
                "from_agraph",
                "write_dot",
                "read_dot",
                "view_pygraphviz",
            )
        ),
        "pygraphviz",
        "pygraphviz",
    ),
    # tensorflow-datasets' builders read their resources through etils, which imports
    # importlib_resources without asking pip for it (jax-ai-stack's data-loader guides).
    OptionalNeed(
        "tensorflow_datasets",
        frozenset(f"tensorflow_datasets.{name}" for name in ("load", "builder", "data_source")),
        "importlib_resources",
        "importlib_resources",
    ),
    # TensorFlow 2.20 left TensorBoard out of its dependencies; its summaries still need it.
    OptionalNeed(
        "tensorflow",
        frozenset({"tensorflow.summary.create_file_writer"}),
        "tensorboard",
        "tensorboard",
    ),
)


@dataclass(frozen=True)
class NeededCall:
    need: OptionalNeed
    call: str  # the function or method the code calls
    number: int  # the step that calls it first
    where: str  # its cell
    offset: int  # its line in the step's code, from 0


def needed_calls(steps: list[tuple[int, str, str]]) -> list[NeededCall]:
    """The first call of each optional need, in the steps (number, cell, code) of a lesson
    that imports the library; whether its package is installed is the caller's to ask
    (uninstalled), before pip runs and after."""
    imported = imported_packages(steps)
    found: dict[OptionalNeed, NeededCall] = {}
    for number, where, _, node, bound in step_nodes(steps):
        if not isinstance(node, ast.Call):
            continue
        call, full = _called(node), dotted_name(node.func, bound)
        for need in OPTIONAL_NEEDS:
            if need in found or need.library not in imported:
                continue
            if call in need.calls or full in need.calls:
                found[need] = NeededCall(need, call, number, where, node.lineno - 1)
    return list(found.values())


def uninstalled(calls: list[NeededCall]) -> list[NeededCall]:
    """The calls whose package is not installed here."""
    return [called for called in calls if not is_installed(called.need.module)]


def needed_call_note(called: NeededCall, text: str, advice: str) -> str:
    """The report's line for a call whose package is still not installed."""
    line = lesson_line(text, called.number, called.offset)
    return (
        f"{called.where}, lesson line {line}: step {called.number} calls "
        f"{called.need.library}'s {called.call}, which needs {called.need.module}, an "
        f"optional package of {called.need.library}'s: {advice}"
    )


def _called(node: ast.Call) -> str:
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return node.func.id if isinstance(node.func, ast.Name) else ""
