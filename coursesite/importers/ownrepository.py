"""Files a notebook reads from its own repository by web address, read from its checkout.

A lecture often loads its data by the address of the file in its own GitHub repository
(QuantEcon's `pd.read_csv("https://github.com/QuantEcon/lecture-python-intro/raw/main/
lectures/_static/.../life-expectancy.csv")`), so that it runs anywhere. The machine that
builds the site may have no network; the checkout the notebook is imported from holds the
same file. Such an address, in a string of the code (literals side by side joined, as
Python joins them: a long address is often split over lines), becomes the file's path
relative to the notebook, which the import then brings beside the lesson and lists in
`files:` as any file the code reads by name (beside.py). Only a file the checkout holds at
that path, and for a git checkout only an address of a repository its remotes name, is read
so.
"""

from __future__ import annotations

import ast
import functools
import io
import itertools
import os
import re
import subprocess
import tokenize
from pathlib import Path

from coursesite.importers.notebookcells import Cell, where_at

# A file's address on GitHub: `github.com/ORG/REPO/raw|blob/REF/PATH`,
# `raw.githubusercontent.com/ORG/REPO/REF/PATH`, its query (`?raw=true`) aside; REF is a
# branch, tag or commit, or spelt out (`refs/heads/main`, as QuantEcon's mle reads fp.dta).
_REF = r"(?:refs/(?:heads|tags)/)?[\w.-]+"
_ADDRESS = re.compile(
    r"""https://(?:github\.com/(?P<org>[\w.-]+)/(?P<repo>[\w.-]+)/"""
    rf"""(?:raw|blob)/{_REF}|raw\.githubusercontent\.com/(?P<org2>[\w.-]+)/(?P<repo2>[\w.-]+)/"""
    rf"""{_REF})/(?P<path>[^"'\s?#]+)(?:\?raw=true)?"""
)
_LEVELS = 6  # how far above the notebook its checkout's root may be


def own_repository_reads(cells: list[Cell], notebook: Path) -> list[str]:
    """Rewrites, in place, each code cell's addresses of files in the notebook's own
    repository that its checkout holds to their paths relative to the notebook; a note
    for each."""
    notes: list[str] = []
    folder = notebook.resolve().parent
    for cell in cells:
        if cell.kind != "code":
            continue
        said: list[str] = []
        for start, end, value in reversed(_string_runs(cell.source)):  # later offsets first
            match = _ADDRESS.fullmatch(value)
            if match is None:
                continue
            org, repo = match["org"] or match["org2"], match["repo"] or match["repo2"]
            local = _in_checkout(folder, org, repo, match["path"])
            if local is None:
                continue
            relative = Path(os.path.relpath(local, folder)).as_posix()
            quote = cell.source[start:end].lstrip("rRuU")[0]  # the notebook's own
            cell.source = cell.source[:start] + quote + relative + quote + cell.source[end:]
            said.insert(
                0,
                f"{where_at(cell, start)}: the code reads {value}, a file of "
                f"the notebook's own repository ({org}/{repo}), which its checkout holds: it "
                f"reads {relative} instead, brought beside the lesson (the machine that builds "
                "the site may have no network)",
            )
        notes += said
    return notes


def _string_runs(source: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of each string in `source`, adjacent literals joined as Python
    joins them (`'https://.../lectures/'` and `'_static/data.csv'` on the next line);
    f-strings and bytes are left out. Offsets are of `source`; tokens past a line Python
    cannot read (an IPython line) are left out."""
    lines = io.StringIO(source).readlines()  # as tokenize reads them
    starts = [0, *itertools.accumulate(len(line) for line in lines)]
    runs: list[list[tokenize.TokenInfo]] = []
    joinable = False  # whether the next string goes on the run before it
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING:
                if joinable:
                    runs[-1].append(token)
                else:
                    runs.append([token])
                joinable = True
            elif token.type not in (tokenize.NL, tokenize.COMMENT):
                joinable = False
    except (tokenize.TokenError, SyntaxError):
        pass
    found = []
    for run in runs:
        start = starts[run[0].start[0] - 1] + run[0].start[1]
        end = starts[run[-1].end[0] - 1] + run[-1].end[1]
        try:
            value = ast.literal_eval("(" + source[start:end] + "\n)")
        except (ValueError, SyntaxError):  # an f-string is no literal
            continue
        if isinstance(value, str):  # not bytes
            found.append((start, end, value))
    return found


def _in_checkout(folder: Path, org: str, repo: str, path: str) -> Path | None:
    """The file at `path` of the checkout of `org`/`repo` that holds `folder`, or None."""
    if ".." in Path(path).parts:
        return None
    for root in [folder, *folder.parents][:_LEVELS]:
        candidate = root / path
        if candidate.is_file() and _may_be(root, org, repo):
            return candidate
    return None


def _may_be(root: Path, org: str, repo: str) -> bool:
    """Whether the checkout at `root` may be `org`/`repo`: a git checkout whose remotes
    name it, or a folder that is no git checkout (a copy, which only its layout tells)."""
    remotes = _git_remotes(root)
    if remotes is None:
        return True
    named = re.compile(rf"[/:]{re.escape(org)}/{re.escape(repo)}(?:\.git)?\s", re.I)
    return bool(named.search(remotes))


@functools.lru_cache(maxsize=64)
def _git_remotes(root: Path) -> str | None:
    """`git remote -v` of the checkout at `root`, or None where it is no git checkout (or
    there is no git). Cached: a lecture may read dozens of addresses, each tried at up to
    six folders, and one git process per folder is enough."""
    try:
        remotes = subprocess.run(
            ["git", "-C", str(root), "remote", "-v"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return remotes.stdout if remotes.returncode == 0 else None
