"""The devices a notebook's code asks JAX for, made on a machine that has only CPUs.

JAX's sharding tutorials build a mesh of 8 devices (`jax.make_mesh((4, 2), ...)`) and are
run on CPUs as often as on accelerators: XLA makes N CPU devices when `XLA_FLAGS` holds
`--xla_force_host_platform_device_count=N` before jax is imported, which is how JAX's own
documentation runs them. The import finds the largest count the code asks for in literal
numbers (a mesh shape given to `make_mesh` or `create_device_mesh`, a `reshape` of
`jax.devices()`, `len(jax.devices())` or `jax.device_count()` compared with a number) and,
unless the notebook sets the flag itself, sets it at the top of the first step, with a
line of the report. On a machine whose accelerators are that many the flag changes
nothing: it counts CPU devices only.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from coursesite.importers.datafiles import called_name
from coursesite.importers.notebookcells import Cell

FLAG = "xla_force_host_platform_device_count"
_MESH_MAKERS = frozenset({"make_mesh", "create_device_mesh", "create_hybrid_device_mesh"})
_COUNTERS = frozenset({"device_count", "local_device_count"})
_MAGIC = re.compile(r"^\s*[!%]")


@dataclass(frozen=True)
class DeviceNeed:
    count: int = 0  # 0 or 1: nothing to do
    asked_by: str = ""  # the code that asks for them, for the report

    @classmethod
    def of(cls, cells: list[Cell]) -> DeviceNeed:
        """What the notebook's code cells that run ask for."""
        runs = [c.source for c in cells if c.kind == "code" and "skip-execution" not in c.tags]
        return devices_needed(runs)


def devices_needed(sources: list[str]) -> DeviceNeed:
    """The most devices the code `sources` ask for; 0 when the notebook sets the flag
    itself or asks for none by a literal number."""
    if any(FLAG in source for source in sources):
        return DeviceNeed(0)
    best = DeviceNeed(0)
    for source in sources:
        python = "\n".join("" if _MAGIC.match(line) else line for line in source.splitlines())
        try:
            tree = ast.parse(python)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            count = _asked(node)
            if count > best.count:
                # One line of the report, however the call is wrapped in the code.
                text = " ".join((ast.get_source_segment(python, node) or "").split())
                best = DeviceNeed(count, text if len(text) <= 80 else text[:77] + "...")
    return best


def device_setup(need: DeviceNeed) -> list[str]:
    """The lines that make the CPU devices `need` asks for, before anything imports jax."""
    if need.count < 2:
        return []
    return [
        "import os",
        "",
        f"# XLA makes {need.count} CPU devices, as many as the code asks for, where no "
        "accelerator has them.",
        f'os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --{FLAG}={need.count}"',
        "",
    ]


def device_note(need: DeviceNeed) -> list[str]:
    if need.count < 2:
        return []
    return [
        f"the code asks for {need.count} devices ({need.asked_by}): the first step now sets "
        f"XLA_FLAGS (--{FLAG}={need.count}) before anything imports jax, so that a machine "
        "with only CPUs has them; where accelerators have them it changes nothing"
    ]


def with_device_setup(code: str, need: DeviceNeed) -> str:
    """`code`, the first step's, with the device setup at its top (after any `from
    __future__` import, which must come first)."""
    setup = device_setup(need)
    if not setup:
        return code
    lines = code.splitlines()
    at = 0
    try:
        for statement in ast.parse(code).body:
            if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
                break
            at = statement.end_lineno or at
    except SyntaxError:
        pass
    return "\n".join([*lines[:at], *setup, *lines[at:]]).strip("\n")


def _asked(node: ast.AST) -> int:
    """The devices `node` asks for by a literal number, or 0."""
    if isinstance(node, ast.Call) and called_name(node) in _MESH_MAKERS and node.args:
        return _product(node.args[0])
    if isinstance(node, ast.Call) and called_name(node) == "reshape" and _on_devices(node.func):
        shape = node.args[0] if len(node.args) == 1 else ast.Tuple(elts=list(node.args))
        return _product(shape)
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        left, right = node.left, node.comparators[0]
        for counted, number in ((left, right), (right, left)):
            if _counts_devices(counted) and isinstance(number, ast.Constant):
                return number.value if isinstance(number.value, int) else 0
    return 0


def _product(shape: ast.expr) -> int:
    if isinstance(shape, ast.Tuple | ast.List) and shape.elts:
        sizes = [
            e.value
            for e in shape.elts
            if isinstance(e, ast.Constant) and isinstance(e.value, int) and e.value > 0
        ]
        if len(sizes) == len(shape.elts):
            return math.prod(sizes)
    return 0


def _on_devices(func: ast.expr) -> bool:
    """Whether a `.reshape` is called on something made of `jax.devices()`."""
    receiver = func.value if isinstance(func, ast.Attribute) else func
    return any(
        isinstance(node, ast.Call) and called_name(node) == "devices" for node in ast.walk(receiver)
    )


def _counts_devices(node: ast.expr) -> bool:
    """`len(jax.devices())`, `jax.device_count()`, `jax.local_device_count()`."""
    if not isinstance(node, ast.Call):
        return False
    if called_name(node) in _COUNTERS:
        return True
    return (
        called_name(node) == "len"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Call)
        and called_name(node.args[0]) == "devices"
    )
