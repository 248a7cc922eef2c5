"""Device probes: what a run's accelerator receipt ("4 TPU devices") asks, keyed by the
module the lesson imported.

The runner runs a probe after the lesson, in its process, only when the lesson imported the
probe's module (importing a library just to ask costs time: about 0.5 s for JAX; and a
lesson that did not import it used no accelerator through it). The package registers the
JAX probe; a plugin registers others with `api.device_probe` (docs/extending.md).

A probe is a standalone Python file (it runs inside the lesson's process, which holds only
the lesson's modules) defining `devices()`, which returns the platform name of each device
the library sees: ['tpu', 'tpu'] becomes '2 TPU devices', and a 'tpu', 'gpu', 'cuda' or
'rocm' platform makes the run's hardware (executionrecord.hardware_kind).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from coursesite.files import short_digest

# Written by the runner when the lesson imported no probed module: "JAX not used · 8 CPU cores".
NOT_USED = " not used · "


@dataclass(frozen=True)
class DeviceProbe:
    module: str  # the top-level module whose import makes the probe run; also its distribution
    name: str  # how the receipt names the library: "JAX"
    path: Path  # the probe's file


BUILT_IN = (DeviceProbe("jax", "JAX", Path(__file__).with_name("jaxprobe.py")),)
_PROBES: list[DeviceProbe] = list(BUILT_IN)  # the built-in ones, then the course's plugins'


def activate(plugin_probes: list[DeviceProbe]) -> None:
    """The probes of the course being built: the package's, then its plugins'."""
    _PROBES[:] = [*BUILT_IN, *plugin_probes]


def probe_names() -> str:
    """'JAX', or 'JAX or PyTorch': what the messages about a run's devices name."""
    return " or ".join(probe.name for probe in _PROBES)


def probes_payload() -> list[dict[str, str]]:
    """The probes as the runner takes them, in the job: their source travels with it (a
    Dask worker need not have the course's files)."""
    return [
        {
            "module": probe.module,
            "name": probe.name,
            "path": str(probe.path),
            "source": probe.path.read_text(encoding="utf-8"),
        }
        for probe in _PROBES
    ]


def probes_digest() -> str:
    """Part of every execution key: a new or edited probe records the devices again."""
    return short_digest(json.dumps(probes_payload()))


def probed_modules(devices: str) -> set[str]:
    """The modules whose probes a record's `devices` came from. With one probe, its
    summary stands alone ('4 TPU devices'); with several, the runner names each ('JAX: 4
    TPU devices · PyTorch: 1 CUDA device')."""
    if NOT_USED in devices:
        return set()
    if len(_PROBES) == 1:
        return {_PROBES[0].module}
    return {probe.module for probe in _PROBES if f"{probe.name}: " in devices}
