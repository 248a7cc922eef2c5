"""Modules a notebook imports from a package of its own checkout: its own folder, imported
from the folder above (GPJax's examples write `from examples.utils import use_mpl_style`,
run from the repository's root), or a folder beside it (`from helpers.plots import
show`).

No pip install provides such a package, and pip's namesake (`examples`) is another
project. The files the code takes from it are the module files its imports name (with
each `__init__.py` on the way) and the files beside those that they name in a string
(`gpjax.mplstyle`, which `use_mpl_style` loads): beside.py copies them to the same places
beside the lesson and lists them in `files:`, so that the lesson's run folder holds the
package as the checkout did. A folder holding a project (a pyproject.toml or setup.py:
the library the checkout is, such as `gpjax/`) is no such package: that is installed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from coursesite.importers.steplines import code_tree

_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def own_package_files(code: list[str], beside: Path) -> dict[str, tuple[Path, list[str]]]:
    """For each package of the notebook's own the `code` imports: the folder its imports
    start from, and the files to bring, relative to it (`examples/utils.py`)."""
    found: dict[str, tuple[Path, list[str]]] = {}
    for dotted in sorted(_dotted_imports(code)):
        top = dotted.split(".")[0]
        base = _base_of(top, beside)
        if base is None:
            continue
        names = found.setdefault(top, (base, []))[1]
        for path in _module_files(base, dotted):
            if path.relative_to(base).as_posix() in names:
                continue  # read already, through another import of its package
            for name in [path, *_named_beside(path)]:
                relative = name.relative_to(base).as_posix()
                if relative not in names:
                    names.append(relative)
    return {top: (base, names) for top, (base, names) in found.items() if names}


def _base_of(top: str, beside: Path) -> Path | None:
    """The folder `import top` is made from: the notebook's folder when `top` is a folder
    in it, or the folder above when the notebook's own folder is named `top`."""
    if (beside / top).is_dir():
        base, package = beside, beside / top
    elif beside.name == top:
        base, package = beside.parent, beside
    else:
        return None
    if any((package / name).exists() for name in _PROJECT_FILES):
        return None
    return base


def _dotted_imports(code: list[str]) -> set[str]:
    """Every module path the code imports (`examples.utils`), and each name a `from`
    import takes from one (a submodule, or else nothing that is a file)."""
    found: set[str] = set()
    for source in code:
        tree = code_tree(source)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _module_files(base: Path, dotted: str) -> list[Path]:
    """The files `import dotted` reads under `base`: each package's `__init__.py` on the
    way, then the module's file."""
    parts = dotted.split(".")
    files = [
        init
        for depth in range(1, len(parts) + 1)
        if (init := base.joinpath(*parts[:depth], "__init__.py")).is_file()
    ]
    module = base.joinpath(*parts).with_suffix(".py")
    return [*files, module] if module.is_file() else files


def _named_beside(module: Path) -> list[Path]:
    """The files beside a module that its code names in a string (`"gpjax.mplstyle"`)."""
    try:
        tree = code_tree(module.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return []
    names = {
        node.value
        for node in (ast.walk(tree) if tree else ())
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if 0 < len(node.value) < 200 and "\n" not in node.value
    }
    found = []
    for name in sorted(names):
        path = module.parent / name
        if ".." not in Path(name).parts and path.is_file() and path.suffix != ".py":
            found.append(path)
    return found
