"""Modules that exist only inside a hosted notebook service (`google.colab`), which no
`pip install` brings: code importing them runs in that service alone, never where the
site is built nor in a reader's `python main.py`. The import names each such import at
its line in the lesson, and the build's hint for one says the same."""

from __future__ import annotations

from coursesite.importers.steplines import step_imports

HOSTED_ONLY = {
    "google.colab": "Google Colab",
    "kaggle_secrets": "Kaggle's notebooks",
    "kaggle_datasets": "Kaggle's notebooks",
    "pyodide": "Pyodide (JupyterLite)",
}


def hosted_only(module: str) -> str:
    """The service a module (or a module inside it) exists in alone, or ""."""
    for name, service in HOSTED_ONLY.items():
        if module == name or module.startswith(f"{name}."):
            return service
    return ""


def hosted_hint(module: str) -> str:
    service = hosted_only(module)
    return (
        f"{module} exists only inside {service}, and no pip install brings it: the lesson runs "
        "where the site is built and in a reader's python main.py; remove the lines that need "
        f"{service} (a login, a file upload, a mounted drive), or show them as code that is "
        "never run (```python norun, or the cell's skip-execution tag)"
    )


def hosted_imports(steps: list[tuple[int, str, str]]) -> list[tuple[int, str, int, str]]:
    """(step number, cell, line offset in the step, module) of each hosted-only import."""
    found = []
    for number, where, offset, names in step_imports(steps):
        hosted = [name for name in names if hosted_only(name)]
        if hosted:
            found.append((number, where, offset, min(hosted, key=len)))
    return found
