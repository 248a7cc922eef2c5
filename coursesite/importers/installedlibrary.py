"""The installed version of a library, imported into the import's own process to read what
it has (its names, its signatures): the migrations ask it whether an old call is gone."""

from __future__ import annotations

import importlib
from types import ModuleType


def installed_library(name: str) -> ModuleType | None:
    """The module `name`, or None where it is not installed or fails to import (the build
    says why, at the step that imports it)."""
    try:
        return importlib.import_module(name)
    except Exception:  # any error of the library's own import code: nothing to ask it
        return None
