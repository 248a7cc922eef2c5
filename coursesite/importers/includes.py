"""MyST's `{include}`, written into the notebook's Markdown where it stands.

Jupyter Book projects keep text that several pages share in a file of its own
(`{include} _admonition/gpu.md`). A lesson has no such directive, so the import writes the
file's text in, as Sphinx would when it builds the page, from the notebook's checkout:
relative to the notebook, or from the project's root for a path that starts with `/`
(rootpaths.py). `:start-after:`, `:end-before:`, `:start-line:` and `:end-line:` take the
part they take in MyST; `:literal:` and `:code: LANGUAGE` show it as code. A file that is
not there, or is outside the project, is left out with a line in the report that says so;
options that name no part are left to the directives' settling (mystdirectives).

Sphinx's `{literalinclude}` of a file there is shown as code the same way (its
`:language:`, else the file's; `:lines:` too), and a code cell's `:load:` option (MyST-NB)
reads its code from a file.
"""

from __future__ import annotations

import re
from pathlib import Path

from coursesite.errors import decode_utf8
from coursesite.importers.fences import directives
from coursesite.importers.notebookcells import Cell, where_at
from coursesite.importers.rootpaths import project_root

INCLUDE_LIMIT = 200_000  # bytes: shared text, not a data file


def inline_includes(cells: list[Cell], notebook: Path) -> list[str]:
    """Writes, in place, the text of each `{include}` of the Markdown cells that the
    checkout holds; the report's lines, one for each."""
    root = project_root(notebook) or notebook.resolve().parent
    notes: list[str] = []
    for cell in cells:
        if cell.kind != "markdown":
            continue
        lines = cell.source.split("\n")
        written: list[str] = []
        for directive in reversed(directives(cell.source)):  # from the end: lines stay put
            if directive.name not in ("include", "literalinclude"):
                continue
            where = where_at(cell, len("\n".join(lines[: directive.first])) + 1)
            if (path := _file(directive.argument, notebook, root)) is None:
                lines[directive.first : directive.end] = directive.placed([])
                written.insert(0, f"{where}: {_absent(directive.name, directive.argument)}")
                continue
            options = dict(directive.options)
            if directive.name == "literalinclude":  # Sphinx's: always code, in its language
                language = options.get("language", "").strip()
                options["code"] = _language(path) if language in ("", "none") else language
            text = _part(path, options)
            if text is None:
                continue
            lines[directive.first : directive.end] = directive.placed(text.split("\n"))
            shown = path.relative_to(root).as_posix()
            said = "shown as code" if "code" in options else "written in"
            written.insert(
                0,
                f"{where}: {{{directive.name}}} {directive.argument}: the text of {shown} "
                f"is {said}",
            )
        cell.source = "\n".join(lines)
        notes += written
    return notes


def load_code_cells(cells: list[Cell], notebook: Path) -> list[str]:
    """Writes, in place, the code of each code cell with MyST-NB's `load` option: the
    file's, which replaces what the cell holds, as MyST-NB runs it; the report's lines."""
    root = project_root(notebook) or notebook.resolve().parent
    notes = []
    for cell in cells:
        if cell.kind != "code" or not cell.load:
            continue
        path = _file(cell.load, notebook, root)
        try:
            data = path.read_bytes() if path else b""
        except OSError:  # unreadable: said as a file that is not there
            path = None
        if path is None or len(data) > INCLUDE_LIMIT:
            notes.append(
                f"{cell.where}: the cell's code is to be loaded from {cell.load}, which is "
                "not a file beside the notebook: the step is empty; copy that file's code "
                "into it, or put the file there and import again"
            )
            continue
        cell.source = decode_utf8(data, path).strip("\n")
        shown = path.relative_to(root).as_posix()
        notes.append(f"{cell.where}: the cell's code is loaded from {shown} (:load:)")
    return notes


def _absent(name: str, argument: str) -> str:
    what = "its code" if name == "literalinclude" else "its text"
    return (
        f"{{{name}}} {argument} names a file the notebook's checkout does not hold (or one "
        f"outside its project): it was left out; put the file there and import again, or "
        f"write {what} into the lesson"
    )


def _file(name: str, notebook: Path, root: Path) -> Path | None:
    name = name.strip()
    if not name:
        return None
    base = root if name.startswith("/") else notebook.resolve().parent
    path = (base / name.lstrip("/")).resolve()
    if not path.is_relative_to(root.resolve()) or not path.is_file():
        return None
    return path


def _language(path: Path) -> str:
    """The language of a file by its name, as Pygments (which highlights the fence) names
    it; 'text' if it knows none."""
    from pygments.lexers import find_lexer_class_for_filename

    lexer = find_lexer_class_for_filename(path.name)
    return lexer.aliases[0] if lexer and lexer.aliases else "text"


def _part(path: Path, options: dict[str, str]) -> str | None:
    """The part of the file the options take, as the lesson shows it."""
    try:
        data = path.read_bytes()
    except OSError:  # unreadable: left to the settling, which says so
        return None
    if len(data) > INCLUDE_LIMIT:
        return None
    text = decode_utf8(data, path)  # not UTF-8: the import stops at the file's line
    if (lines := _lines(options.get("lines", ""), text)) is not None:
        text = lines
    try:
        start = int(options.get("start-line", "").strip() or 0)
        end = int(options["end-line"]) if options.get("end-line", "").strip() else None
    except ValueError:  # not a line number: left to the settling, which says so
        return None
    text = "\n".join(text.split("\n")[start:end])
    if after := options.get("start-after", "").strip():
        text = text.partition(after)[2] if after in text else text
    if before := options.get("end-before", "").strip():
        text = text.partition(before)[0]
    text = text.strip("\n")
    if "literal" in options or "code" in options:
        language = options.get("code", "").strip() or "text"
        info = "python norun" if language in ("python", "python3", "ipython3") else language
        fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
        return f"{fence}{info}\n{text}\n{fence}"
    return text


def _lines(chosen: str, text: str) -> str | None:
    """The lines Sphinx's `:lines: 1-3,7,9-` option takes of `text`, or None when it is not
    given or not line numbers."""
    if not chosen.strip():
        return None
    rows, kept = text.split("\n"), []
    for part in chosen.replace(" ", "").split(","):
        span = re.fullmatch(r"(\d*)-(\d*)|(\d+)", part)
        if span is None:
            return None
        first, last, single = span.groups()
        if single:
            kept += rows[int(single) - 1 : int(single)]
        else:
            kept += rows[int(first or 1) - 1 : int(last) if last else len(rows)]
    return "\n".join(kept)
