"""Data files a notebook reads by web address, fetched once by the import (`--fetch`).

A tutorial loads its data from the web (`pd.read_csv("https://.../cities.csv")`); the
machine that builds the site may have no network, and a server may move or change the
file. What the report otherwise tells the author to do by hand, `--fetch` does on the
author's machine: each address in the code that is a whole string naming a data file (its
last part has an extension, and is no web page), given to a call that reads files
(`pd.read_csv`, `np.loadtxt`, ...), directly or through a name only such calls read, is
downloaded once, saved beside the lesson under data/, and the string becomes that path,
which the front matter's `files:` lists; the build then reads the saved copy. An address
handed to anything else (`requests.get(url)`, which no path can stand in for) stays. Each
fetch, and each address that could not be fetched (it stays, and the report's network line
names it), is a line of the report.
"""

from __future__ import annotations

import ast
import posixpath
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.importers.beside import COPY_LIMIT, Brought
from coursesite.importers.datafiles import FILE_NAME, reads_files
from coursesite.importers.magics import with_ipython_lines_as_pass
from coursesite.importers.notebookcells import Cell, where_at

_ADDRESS = re.compile(r"""(?P<quote>["'])(?P<url>(?:https?|ftp)://[^"'\s]+)(?P=quote)""")
# Extensions of pages and programs, not data: what a server renders, not a file to save.
_PAGES = frozenset({"html", "htm", "php", "asp", "aspx", "jsp", "cgi", "md", "ipynb"})
FETCH_FOLDER = "data"
_TIMEOUT = 60  # seconds for one file


@dataclass
class Fetched:
    """What `--fetch` saved: the files (by their path beside the lesson) and the report."""

    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def fetch_data_addresses(cells: list[Cell]) -> Fetched:
    """Fetch each data file the code cells name by address, and rewrite, in place, each
    such string to the saved file's path (FETCH_FOLDER/NAME)."""
    fetched = Fetched()
    saved: dict[str, str] = {}  # address -> its path beside the lesson
    readable = _read_as_files(cells)
    for number, cell in enumerate(cells):
        if cell.kind != "code":
            continue
        said: list[str] = []
        for match in reversed(list(_ADDRESS.finditer(cell.source))):  # later offsets first
            if (number, match.start()) not in readable:
                continue
            url, where = match["url"], where_at(cell, match.start())
            path = saved.get(url) or _fetched(url, where, fetched, said)
            if not path:
                continue
            saved[url] = path
            quote = match["quote"]
            cell.source = (
                f"{cell.source[: match.start()]}{quote}{path}{quote}{cell.source[match.end() :]}"
            )
        fetched.notes += reversed(said)
    return fetched


def with_fetched(brought: Brought, fetched: Fetched, folder: Path) -> None:
    """Adds, in place, the fetched files to what the import brings beside the lesson in
    `folder`, as read and listed in files:."""
    for path, content in fetched.files.items():
        brought.copies[folder / path] = content
        brought.read.append(path)
        brought.listed.append(path)


def _fetched(url: str, where: str, fetched: Fetched, said: list[str]) -> str:
    """The path the file at `url` was saved to, or "" (with a note where a download failed)."""
    name = _file_name(url)
    if not name:
        return ""
    path = f"{FETCH_FOLDER}/{name}"
    if path in fetched.files:  # another address of the same name: it keeps its address
        said.append(f"{where}: {url} has the name of a file fetched already: it stays an address")
        return ""
    try:
        content = _download(url)
    except (OSError, ValueError) as problem:
        said.append(
            f"{where}: --fetch could not fetch {url} ({_reason(problem)}): it stays an address"
        )
        return ""
    fetched.files[path] = content
    said.append(
        f"{where}: the code reads {url}: fetched ({len(content):,} bytes) and saved as {path} "
        "beside the lesson, listed in files:; the code reads it there, with no network"
    )
    return path


def _read_as_files(cells: list[Cell]) -> set[tuple[int, int]]:
    """(cell, offset of its opening quote) of each string constant that a call reading
    files is given, directly or as the value of a name that only such calls use."""
    trees = {n: tree for n, c in enumerate(cells) if c.kind == "code" and (tree := _tree(c.source))}
    given = [
        (number, argument)
        for number, tree in trees.items()
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and reads_files(call)
        for argument in [*call.args, *(keyword.value for keyword in call.keywords)]
    ]
    directly = {id(node) for _, node in given}
    names_read = {node.id for _, node in given if isinstance(node, ast.Name)}
    used_otherwise = {
        node.id
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and id(node) not in directly
    }
    constants = [(number, node) for number, node in given if isinstance(node, ast.Constant)]
    only_read = names_read - used_otherwise
    constants += [
        (number, node.value)
        for number, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and len(node.targets) == 1
        and getattr(node.targets[0], "id", None) in only_read
    ]
    return {(number, _offset(cells[number].source, node)) for number, node in constants}


def _tree(source: str) -> ast.Module | None:
    """The cell's code as Python, its IPython lines (`%...`, `!...`) read as `pass`."""
    try:
        return ast.parse(with_ipython_lines_as_pass(source))
    except (SyntaxError, ValueError):
        return None


def _offset(source: str, node: ast.Constant) -> int:
    """The offset in `source` of where `node` starts (ast counts columns in UTF-8 bytes)."""
    lines = source.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: node.lineno - 1])
    line = lines[node.lineno - 1].encode()
    return before + len(line[: node.col_offset].decode(errors="ignore"))


def _file_name(url: str) -> str:
    """The name of the data file `url` names ("" for a page or a name with no extension)."""
    name = posixpath.basename(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
    if not FILE_NAME.match(name) or "*" in name:
        return ""
    return "" if name.rsplit(".", 1)[-1].lower() in _PAGES else name


def _download(url: str) -> bytes:
    """The file at `url`; ValueError if it is larger than an import copies (COPY_LIMIT)."""
    request = urllib.request.Request(url, headers={"User-Agent": "coursesite-import"})
    with urllib.request.urlopen(request, timeout=_TIMEOUT) as answer:
        content = answer.read(COPY_LIMIT + 1)
    if len(content) > COPY_LIMIT:
        raise ValueError(f"larger than {COPY_LIMIT // 2**20} MB, which an import copies")
    return content


def _reason(problem: Exception) -> str:
    reason = getattr(problem, "reason", None) or problem
    return str(reason).strip() or type(problem).__name__
