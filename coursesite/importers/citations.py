"""A Jupyter Book or Sphinx project's citations (`{cite}`key``), as the text its pages show.

sphinxcontrib-bibtex renders `{cite}` from the project's BibTeX files (`bibtex_bibfiles` in
`_config.yml` or `conf.py`, `bibliography` in `myst.yml`); a lesson has no bibliography of
its own. The import reads those files with pybtex, the parser sphinxcontrib-bibtex uses,
writes each citation as author-year text (`{cite:t}` "Diamond (1965)", `{cite:p}` and
`{cite}` "(Diamond, 1965)"), and ends the notebook's prose with the works cited, as a
References section. A key the files lack, or a project with none, is left as the key in
brackets, and the report says which.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path

import latexcodec  # noqa: F401  (registers the "ulatex" codec pybtex's names are written in)
import pybtex.errors
from pybtex.database import BibliographyData, Entry, PybtexError, parse_file
from pybtex.plugin import find_plugin

from coursesite.importers.notebookcells import Cell, where_in
from coursesite.importers.references import in_prose, outside_code
from coursesite.importers.rootpaths import project_mapping, project_root
from coursesite.markup.myst import ROLE_SOURCE

# sphinxcontrib-bibtex's roles: the textual form names the authors outside the brackets.
_TEXTUAL = {"cite:t", "cite:ts", "cite:ct", "cite:cts", "footcite:t"}
_IN_TEXT = _TEXTUAL | {"cite:author", "cite:year"}  # no brackets around them
_ROLES = {"cite", "footcite", "cite:p", "cite:ps", "cite:cp", "cite:cps", "cite:alp"}
_ROLES |= _IN_TEXT | {"footcite:p"}
_BIBFILES = re.compile(r"^\s*bibtex_bibfiles\s*=\s*\[([^\]]*)\]", re.M)


@dataclass
class Bibliography:
    """The project's BibTeX entries, by key, and the files they came from."""

    entries: dict[str, Entry] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def of_checkout(cls, notebook: Path) -> Bibliography:
        root = project_root(notebook)
        found = cls()
        if root is None:
            return found
        for name in _bib_files(root):
            # As BibTeX and Sphinx do, a mistake in one entry (a key given twice: the first
            # is kept) is warned of, and the rest of the file is read.
            with pybtex.errors.capture() as mistakes:
                try:
                    data: BibliographyData = parse_file(str(root / name), bib_format="bibtex")
                except (OSError, PybtexError) as error:
                    found.problems.append(f"the bibliography {name} cannot be read ({error})")
                    continue
            found.problems += [
                f"the bibliography {name}: {mistake}: the rest of it is used"
                for mistake in mistakes
            ]
            found.files.append(name)
            found.entries.update({key.lower(): entry for key, entry in data.entries.items()})
        return found


def cite_from_checkout(cells: list[Cell], notebook: Path) -> list[str]:
    """Rewrites, in place, the citations of the Markdown cells as author-year text, and
    adds a cell after the last: the References, the works cited; the report's lines."""
    if not any(cell.kind == "markdown" and "{cite" in cell.source for cell in cells):
        return []
    bibliography = Bibliography.of_checkout(notebook)
    notes = list(bibliography.problems)
    cited: dict[str, Entry] = {}
    unfound: dict[str, list[str]] = {}  # a key no bibliography holds: where it is cited
    for cell in cells:
        if cell.kind != "markdown":
            continue

        def cited_text(match: re.Match[str], cell: Cell = cell) -> str:
            if match.group(1) not in _ROLES:
                return match.group(0)
            shown, unknown = _citation(match.group(1), match.group(2), bibliography, cited)
            for key in unknown:
                unfound.setdefault(key, []).append(where_in(cell, match.group(0)))
            return shown

        cell.source = in_prose(cell.source, lambda p: outside_code(ROLE_SOURCE, p, cited_text))
    if unfound:  # one line for all: QuantEcon's lectures cite dozens of works
        places = sorted(
            {place for found in unfound.values() for place in found},
            key=lambda place: int(number) if (number := place.rpartition(" ")[2]).isdigit() else 0,
        )
        notes.append(
            f"{', '.join(places)}: {{cite}} names {', '.join(unfound)}, but "
            f"{_missing_because(bibliography)}: each is shown as its key in brackets"
        )
    if cited:  # after every cell: a heading above a code cell would become its title
        listed = "## References\n\n" + "\n".join(_references(cited))
        cells.append(Cell("markdown", listed, "the works cited"))
        notes.append(
            f"{len(cited)} work(s) cited from {', '.join(bibliography.files)} became "
            "author-year text, listed under References at the end of the lesson's prose"
        )
    return notes


def _missing_because(bibliography: Bibliography) -> str:
    if bibliography.files:
        return "no bibliography of the project holds it"
    if bibliography.problems:
        return "the project's bibliography cannot be read (see above)"
    return "the project names no bibliography (bibtex_bibfiles in _config.yml or conf.py)"


def _citation(
    role: str, content: str, bibliography: Bibliography, cited: dict[str, Entry]
) -> tuple[str, list[str]]:
    """The text a citation shows, and the keys no bibliography holds."""
    keys = [key.strip() for key in content.split(",") if key.strip()]
    parts, unknown = [], []
    for key in keys:
        entry = bibliography.entries.get(key.lower())
        if entry is None:
            parts.append(f"[{key}]")
            unknown.append(key)
            continue
        cited.setdefault(key.lower(), entry)
        parts.append(_cited_as(role, entry))
    if role in _IN_TEXT or len(unknown) == len(keys):
        return ", ".join(parts), unknown
    return f"({'; '.join(parts)})", unknown


def _cited_as(role: str, entry: Entry) -> str:
    authors, year = _authors(entry), entry.fields.get("year", "n.d.")
    if role == "cite:author":
        return authors
    if role == "cite:year":
        return year
    return f"{authors} ({year})" if role in _TEXTUAL else f"{authors}, {year}"


def _authors(entry: Entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_plain(" ".join(person.last_names)) for person in people]
    if not names:
        return _plain(entry.fields.get("organization", "") or entry.fields.get("title", "?"))
    if len(names) == 1:
        return names[0]
    return f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al."


def _plain(latex: str) -> str:
    """BibTeX's LaTeX as text: `G{\\"o}del` as Gödel."""
    try:
        text = codecs.decode(latex.encode("utf-8"), "latex")
    except (ValueError, TypeError):
        text = latex
    return re.sub(r"[{}]", "", text).strip()


def _references(cited: dict[str, Entry]) -> list[str]:
    """Each work cited, as pybtex's plain style writes it in Markdown, in authors' order."""
    style = find_plugin("pybtex.style.formatting", "plain")()
    lines = []
    for key, entry in sorted(cited.items(), key=lambda item: (_authors(item[1]), item[0])):
        try:
            text = style.format_entry(key, entry).text.render_as("markdown")
        except (PybtexError, KeyError):  # a field its kind requires is missing
            title = _plain(entry.fields.get("title", key))
            text = f"{_authors(entry)} ({entry.fields.get('year', 'n.d.')}). {title}."
        lines.append("- " + " ".join(text.split()))
    return lines


def _bib_files(root: Path) -> list[str]:
    """The BibTeX files the project's configuration names, relative to its root."""
    names: list[str] = []
    config = root / "_config.yml"
    if config.is_file():
        data = project_mapping(config)
        sphinx = (data.get("sphinx") or {}).get("config") or {}
        names += _strings(data.get("bibtex_bibfiles")) + _strings(sphinx.get("bibtex_bibfiles"))
    myst = root / "myst.yml"
    if myst.is_file():
        names += _strings((project_mapping(myst).get("project") or {}).get("bibliography"))
    conf = root / "conf.py"
    if conf.is_file() and (match := _BIBFILES.search(conf.read_text(errors="replace"))):
        names += re.findall(r"""["']([^"']+)["']""", match.group(1))
    return list(dict.fromkeys(names))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
