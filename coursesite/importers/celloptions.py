"""What a notebook cell's metadata, or a {code-cell}'s options, say that a lesson keeps:
the text alternative and the name MyST-NB gives the figure the cell draws; and what it
leaves out, each said in the import report."""

from __future__ import annotations

# MyST-NB's cell options a lesson has a place for (figure_alt), and the code cell's own
# options the import reads (`load`, and `file`, its older name: includes.load_code_cells).
_MYST_NB_KEPT = ("image", "figure")
_CELL_OPTIONS_READ = ("tags", "load", "file", "mystnb", *_MYST_NB_KEPT)


def dropped_options(options: dict) -> list[str]:
    """MyST-NB's cell options (`mystnb: {code_prompt_show: ...}`) a lesson has no place
    for, described for the import report."""
    mystnb = options.get("mystnb")
    return [
        f"MyST-NB's option mystnb.{key}, which lessons lack: it was dropped"
        for key in (mystnb if isinstance(mystnb, dict) else {})
        if key not in _MYST_NB_KEPT
    ]


def unread_options(options: dict) -> list[str]:
    """A {code-cell}'s options the import has no use for (`:linenos:`), for the report."""
    return [
        f"the {{code-cell}} option {key}, which lessons lack: it was dropped"
        for key in options
        if key not in _CELL_OPTIONS_READ
    ]


def figure_alt(options: dict) -> str:
    """The text alternative MyST-NB's cell options give the figure a cell draws: the
    image's `alt`, else the figure's `caption` (`mystnb: {image: {alt}, figure: {caption}}`,
    or the older top-level `image:`/`figure:`)."""
    mystnb = options.get("mystnb")
    for where in (mystnb if isinstance(mystnb, dict) else {}, options):
        for key, field_name in (("image", "alt"), ("figure", "caption")):
            entry = where.get(key)
            if isinstance(entry, dict) and isinstance(entry.get(field_name), str):
                return " ".join(entry[field_name].split())
    return ""


def figure_label(options: dict) -> str:
    """The label MyST-NB's cell options give the figure a cell draws, which {numref} and
    {ref} reach (`mystnb: {figure: {name}}`, or the older top-level `figure:`)."""
    mystnb = options.get("mystnb")
    for where in (mystnb if isinstance(mystnb, dict) else {}, options):
        figure = where.get("figure")
        if isinstance(figure, dict) and isinstance(figure.get("name"), str):
            return figure["name"].strip()
    return ""
