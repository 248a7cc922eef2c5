"""Every module a lesson imports that is not installed where it is built, in one message.

A block that fails on `import cv2` stops at that line: `import orbax` below it, or in a
later block, never runs, so the runner's failure names cv2 alone and each further missing
package would take one more round. The build asks the interpreter instead (this process
runs the same Python as the lesson's, here or on a Dask worker): every top-level module of
the lesson's import statements that `importlib.util.find_spec` does not find, apart from
the lesson's own modules beside it, is missing; the hint names them all, with the step
that imports each and the requirement to install (the notebook's own `pip install` line
for it, kept in the lesson as a comment, or its distribution's name).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys

from coursesite.execution.dependencies import module_paths_imported_by, modules_imported_by
from coursesite.importers.hostedmodules import hosted_only
from coursesite.importers.requirements import distribution_of, requirement_line

NO_MODULE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")
PIP_INSTALL = re.compile(r"pip3? install\s+([^\n#]+)")


def missing_module(message: str) -> str | None:
    """The module a failure's message says is missing ('cv2'; in a namespace package, the
    part a distribution provides: 'mpl_toolkits.basemap'), or None."""
    found = NO_MODULE.match(message)
    return provided_module(found.group(1)) if found else None


def missing_modules(blocks: list[dict], local: set[str]) -> dict[str, list[str]]:
    """Each module the `blocks` ({id, code}) import that no installed module provides, in
    the order they import them -> the ids of the blocks importing it: a top-level module,
    or in a namespace package that distributions share (`mpl_toolkits`, `google`) the part
    one of them provides (`mpl_toolkits.basemap`). `local` are the lesson's own modules
    (they travel with it)."""
    found: dict[str, list[str]] = {}
    for block in blocks:
        for module in sorted(modules_imported_by((block["code"],)) - local):
            if not is_installed(module):
                found.setdefault(module, []).append(block["id"])
            elif _namespace_package(module):
                for part in sorted(_namespace_parts(block["code"], module)):
                    if not hosted_only(part) and not is_installed(part):
                        found.setdefault(part, []).append(block["id"])
    return found


def provided_module(dotted: str) -> str:
    """The module of `dotted` a distribution provides: its top-level package, or within
    namespace packages (which several distributions fill) the first part that is not one."""
    parts = dotted.split(".")
    depth = 1
    while depth < len(parts) and (
        ".".join(parts[:depth]) in _SHARED_NAMESPACES or _namespace_package(".".join(parts[:depth]))
    ):
        depth += 1
    return ".".join(parts[:depth])


# Namespace packages that no distribution installs alone, so that where none of theirs is
# installed there is nothing to ask: google-cloud-storage provides google.cloud.storage.
_SHARED_NAMESPACES = {"google", "google.cloud"}


def _namespace_package(module: str) -> bool:
    spec = _spec_of(module)
    return spec is not None and spec.origin is None and bool(spec.submodule_search_locations)


def _namespace_parts(code: str, package: str) -> set[str]:
    """The modules of the namespace `package` that the code imports, as provided_module
    names them."""
    inside = [p for p in module_paths_imported_by((code,)) if p.startswith(f"{package}.")]
    return {provided_module(path) for path in inside}


def is_installed(module: str) -> bool:
    return _spec_of(module) is not None


def is_third_party(module: str) -> bool:
    """Whether `module` is an installed distribution's: not the lesson's own, nor Python's."""
    if module in sys.stdlib_module_names or module in ("__main__", "builtins"):
        return False
    spec = _spec_of(module)
    origin = (spec.origin or "") if spec else ""
    return "site-packages" in origin or "dist-packages" in origin


def _spec_of(module: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def missing_modules_hint(missing: dict[str, list[str]], labels: dict[str, str], text: str) -> str:
    """What to do about `missing` (missing_modules): install them all, named as the
    lesson's `pip install` lines (in its `text`) name them."""
    installs = [
        word
        for line in PIP_INSTALL.findall(text)
        for word in line.split()
        if not word.startswith("-")
    ]
    where = ", ".join(
        f"{module} ({', '.join(dict.fromkeys(labels.get(b, b) for b in blocks))})"
        for module, blocks in missing.items()
    )
    requirements = dict.fromkeys(
        requirement_line(distribution_of(module), installs) for module in missing
    )
    what, them = ("this module", "it") if len(missing) == 1 else ("these modules", "them")
    return (
        f"the lesson imports {what}, not installed where the site is built: {where}; "
        f"install {them} there (pip install {' '.join(requirements)}) and build again"
    )
