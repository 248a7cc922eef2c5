"""What a lesson's run used: the versions of the packages it names and the devices the
probes of the libraries it imported saw. The companion of runner.py, loaded by it from this
file and, like it, importing nothing from the generator: it runs in the lesson's process.
"""

import importlib.metadata
import os
import sys
from collections import Counter


def package_versions(names):
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def device_receipt(probes):
    """('4 TPU devices', ['tpu']): the devices the probes of the modules the lesson imported
    saw, and their platforms (execution/probes.py). Asked after the lesson ran, and only of
    the probes whose module it imported; a lesson that imported none used no accelerator."""
    ran = [probe for probe in probes if probe["module"] in sys.modules]
    if not ran:
        names = " or ".join(probe["name"] for probe in probes) or "no probed library"
        return f"{names} not used · {os.cpu_count()} CPU cores", []
    summaries, platforms = [], set()
    for probe in ran:
        summary, seen = probe_devices(probe)
        summaries.append(summary if len(probes) == 1 else f"{probe['name']}: {summary}")
        platforms.update(seen)
    return " · ".join(summaries), sorted(platforms)


def probe_devices(probe):
    """('2 GPU devices', ['gpu']): what one probe's devices() saw."""
    namespace: dict = {"__name__": f"_coursesite_probe_{probe['module']}"}
    try:
        exec(compile(probe["source"], probe["path"], "exec"), namespace)
        platforms = [str(platform).lower() for platform in namespace["devices"]()]
    except Exception as error:  # no usable backend: say so in the record
        return f"no {probe['name']} devices ({type(error).__name__})", []
    if not platforms:
        return f"no {probe['name']} devices", []
    counts = Counter(name.upper() for name in platforms)
    summary = ", ".join(f"{n} {kind} device{'s' if n != 1 else ''}" for kind, n in counts.items())
    return summary, sorted(set(platforms))
