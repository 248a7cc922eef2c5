"""A `{doc}` reference without text, given the title of the page it names.

Sphinx shows `{doc}`linear_algebra`` as the title of that page, "Linear Algebra"; a lesson
keeps a page outside the course as text (references.py), and the bare name would read
"see linear_algebra". When the notebook's checkout holds the page beside it (a Jupyter
Book's other lectures), its title is read the way the import reads a notebook's own
(titles.notebook_title) and written into the role, which then shows it.
"""

from __future__ import annotations

import re
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.importers.notebookcells import Cell
from coursesite.importers.notebooks import read_notebook
from coursesite.importers.references import in_prose, outside_code
from coursesite.importers.titles import notebook_title
from coursesite.markup.myst import ROLE_SOURCE, split_role_text

_PAGE_SUFFIXES = (".md", ".ipynb", ".myst")


def titled_doc_roles(cells: list[Cell], notebook: Path) -> None:
    """Writes, in place, the title of each page a `{doc}` of the Markdown cells names
    without text, where the checkout beside the notebook holds that page."""
    titles: dict[str, str | None] = {}

    def titled(match: re.Match[str]) -> str:
        text, target = split_role_text(match.group(2))
        if match.group(1) != "doc" or text:
            return match.group(0)
        if target not in titles:
            titles[target] = _page_title(notebook.parent, target)
        title = titles[target]
        return f"{{doc}}`{title} <{target}>`" if title else match.group(0)

    for cell in cells:
        if cell.kind == "markdown" and "{doc}" in cell.source:
            cell.source = in_prose(cell.source, lambda p: outside_code(ROLE_SOURCE, p, titled))


def _page_title(folder: Path, target: str) -> str | None:
    """The title of the page `target` names relative to `folder`, if one is there."""
    if target.startswith("/") or not re.fullmatch(r"[\w./-]+", target):
        return None
    stem = folder / target
    for page in [stem] + [stem.with_name(stem.name + suffix) for suffix in _PAGE_SUFFIXES]:
        if page.suffix in _PAGE_SUFFIXES and page.is_file():
            title = notebook_title(_cells(page), "")
            return title if title and "<" not in title and "`" not in title else None
    return None


def _cells(page: Path) -> list[Cell]:
    """The page's cells; a Markdown page with no code (prose only) as one Markdown cell."""
    try:
        return read_notebook(page)
    except BuildError:
        if page.suffix == ".ipynb":  # one the import cannot read keeps its name
            return []
    try:
        text = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [Cell("markdown", _FRONT_MATTER.sub("", text), page.name)]


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
