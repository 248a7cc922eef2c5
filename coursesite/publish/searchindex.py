"""The search index: Pagefind, run over the lesson pages in shards.

Pagefind cannot update an index, so a large site is indexed in shards, and a build indexes
again only the shards whose pages changed (see `index_search`).
"""

from __future__ import annotations

import errno
import functools
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

try:
    import pagefind_bin
except ImportError:  # a broken install: reported when the index is built, with the fix
    pagefind_bin = None

from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors, environment_error, writing
from coursesite.files import write_atomically
from coursesite.publish.sitefolder import link_all, link_or_copy
from coursesite.publish.sitestate import load_state, search_state, update_state

SEARCH = "pagefind"  # the search index's folder in the site
SHARD_PAGES = 50  # lesson pages a search shard holds at most; a prose edit re-indexes one
SHARD_LIST = "shards.json"  # in pagefind/: the shard folders, read by static/search.js
OVERLAY = "overlay/"  # in pagefind/: the changed pages of shards that were not re-indexed
OVERLAY_PAGES = 8  # pages the overlay holds at most
_SHARED = ("pagefind-entry.json",)  # besides index/, fragment/ and *.pf_meta: a shard's data
# What static/search.js loads from the first shard, besides its data: the scripts and
# (*.pagefind) the search's WebAssembly.
_SCRIPTS = ("pagefind.js", "pagefind-worker.js")
_OTHERS = ("shards", OVERLAY.rstrip("/"))  # in the first shard's folder: not its files


def index_search(
    site: Path,
    into: Path | None = None,
    previous: Path | None = None,
    pages: list[str] | None = None,
    shard_pages: int = SHARD_PAGES,
    state: Path | None = None,
    overlay_pages: int = 0,
) -> None:
    """Build the Pagefind search index of the lesson pages into `site/pagefind/` (or `into`).

    Only pages with an element marked `data-pagefind-body` (the lesson articles) are indexed;
    result URLs keep `index.html` so that they work on any static host. `pages` lists the
    site's pages (relative paths), when known; else the site is walked.

    Pagefind cannot update an index, so a large site is indexed in shards: each page belongs
    to one shard, chosen from its path alone, so that it stays there while the course grows.
    A shard whose pages are the very files it indexed last time (same inode, size and
    modification time: an unchanged page is hard-linked from the previous site) is linked
    from `previous`, the last index; only the others are indexed again. What each shard
    indexed is kept in the file `state` (`search_state`: in the cache, so that the site
    stays byte-identical from build to build). The search page merges the shards that
    `shards.json` lists (static/search.js).

    A shard of which at most half the pages changed keeps its previous index, and only its
    changed pages are indexed, into the overlay (pagefind/overlay/, at most `overlay_pages`
    pages in all; 0, the default, for none: a build asks `search_overlay`). `shards.json`
    names the overlaid pages' stale entries in their shards, which the search page leaves
    out. An edit of one lesson thus indexes one page, not its whole shard (a course under
    50 lessons is one shard). Past `overlay_pages`, the shards with the most changed pages
    are indexed again in full, which empties the overlay of their pages.
    """
    into = into or site / SEARCH
    old = _index_state(state) if previous is not None else {}
    same_pagefind = old.get("pagefind") == _pagefind_identity()
    known = old.get("pages", {}) if same_pagefind else {}  # as each page's shard indexed it
    overlaid = old.get("overlay", {}) if same_pagefind else {}  # as the overlay indexed it
    current: dict[str, list] = {}  # every page: [inode, size, mtime, whether it is indexed]
    for page in sorted(pages if pages is not None else _html_pages(site)):
        if not page.endswith(".html") or page.startswith(SEARCH + "/"):
            continue
        path = site / page
        stat = path.stat()
        identity = [stat.st_ino, stat.st_size, stat.st_mtime_ns]
        before = next(
            (e for e in (known.get(page), overlaid.get(page)) if e and e[:3] == identity), None
        )
        current[page] = before or [*identity, b"data-pagefind-body" in path.read_bytes()]
    body = [page for page, entry in current.items() if entry[3]]
    shards = _shards(body, shard_pages)
    into.mkdir(parents=True, exist_ok=True)
    old_ids = old.get("ids", {}) if same_pagefind else {}
    kept: dict[str, list[str]] = {}  # shard linked from `previous` -> its changed pages
    stale = []
    for folder, members in shards.items():
        changed = [page for page in members if known.get(page) != current[page]]
        if (
            previous is not None
            and old.get("shards", {}).get(folder) == members
            and (previous / folder / "pagefind-entry.json").is_file()
            and 2 * len(changed) <= len(members)
            and _holds(previous / folder, [old_ids.get(page) for page in members])
        ):
            kept[folder] = changed
        else:
            stale.append((folder, members))
    while sum(map(len, kept.values())) > overlay_pages:  # the fullest shards are re-indexed
        folder = max(kept, key=lambda name: len(kept[name]))
        del kept[folder]
        stale.append((folder, shards[folder]))
    overlay = sorted(page for changed in kept.values() for page in changed)
    indexed = {page: entry for page, entry in current.items() if page not in overlay}
    indexed.update({page: known[page] for page in overlay})  # what their shards still hold
    ids = {page: old_ids[page] for folder in kept for page in shards[folder]}
    stale_ids = [ids[page] for page in overlay]
    old_overlay = previous / OVERLAY if previous is not None else None
    overlay_reusable = (
        old_overlay is not None
        and overlay == sorted(overlaid)
        and all(overlaid[page] == current[page] for page in overlay)
        and (old_overlay / "pagefind-entry.json").is_file()
        and _holds(old_overlay, old.get("overlay_ids", []))
    )
    workers = min(len(stale) + 1, os.cpu_count() or 1)
    with ThreadPoolExecutor(workers) as pool:
        # Pagefind indexes the changed shards while this thread links the others.
        indexing = {
            folder: pool.submit(_index_shard, site, into, folder, members)
            for folder, members in stale
        }
        if overlay and not overlay_reusable:
            indexing[OVERLAY] = pool.submit(_index_shard, site, into, OVERLAY, overlay)
        elif overlay and old_overlay is not None:
            _link_shard(old_overlay, into / OVERLAY, primary=False)
        for folder in kept:
            assert previous is not None
            _link_shard(previous / folder, into / folder, primary=not folder)
        for future in indexing.values():
            future.result()
    for folder, _ in stale:
        ids.update(_fragment_ids(into / folder))
    overlay_ids = sorted(_fragment_ids(into / OVERLAY).values()) if overlay else []
    # An overlaid page whose content came out the same has the same id in both: the search
    # page keeps one of the two (static/search.js).
    stale_ids = sorted(set(stale_ids) - set(overlay_ids))
    listed = {"shards": [*shards, *([OVERLAY] if overlay else [])], "stale": stale_ids}
    with writing(into / SHARD_LIST):
        (into / SHARD_LIST).write_text(json.dumps(listed), encoding="utf-8")
    if state is not None:
        record = {
            "pagefind": _pagefind_identity(),
            "shards": shards,
            "pages": indexed,
            "overlay": {page: current[page] for page in overlay},
            "overlay_ids": overlay_ids,
            "ids": ids,
        }
        write_atomically(state, json.dumps(record))


def _holds(index: Path, ids: list[str | None]) -> bool:
    """Whether the index in `index` holds exactly the pages of these ids (its fragments'
    names: Pagefind names each by a hash of its content). The state file may describe an
    index that never replaced the site's (a build that failed after indexing): its word
    alone must not keep an index, nor name the stale entries of one, it does not match."""
    folder = index / "fragment"
    try:
        names = {name.removesuffix(".pf_fragment") for name in os.listdir(folder)}
    except OSError:
        return False
    return None not in ids and names == set(ids)


def _fragment_ids(index: Path) -> dict[str, str]:
    """Page (relative path) -> the id Pagefind gave it in `index`: its fragment's name.
    A fragment is gzip-compressed JSON after a 12-byte signature."""
    ids = {}
    folder = index / "fragment"
    for path in folder.iterdir() if folder.is_dir() else ():
        data = json.loads(gzip.decompress(path.read_bytes())[len(b"pagefind_dcd") :])
        ids[unquote(data["url"]).lstrip("/")] = path.name.removesuffix(".pf_fragment")
    return ids


def _shards(body: list[str], shard_pages: int) -> dict[str, list[str]]:
    """Shard folder (relative to pagefind/, "" for the first) -> its pages, in order.

    The number of shards is a power of two, so that when it doubles as the course grows
    each shard splits in two. The first shard, at the index's root, also holds Pagefind's
    scripts; if it would be empty, the whole site is one shard.
    """
    count = 1
    while count * shard_pages < len(body):
        count *= 2
    shards: dict[int, list[str]] = {}
    for page in body:
        number = int.from_bytes(hashlib.blake2b(page.encode(), digest_size=4).digest(), "big")
        shards.setdefault(number % count, []).append(page)
    if count > 1 and 0 not in shards:
        return {"": body} if body else {}
    return {(f"shards/{number}/" if number else ""): shards[number] for number in sorted(shards)}


def _index_shard(site: Path, into: Path, folder: str, members: list[str]) -> None:
    """Index the pages `members` of `site` into `into/folder`.

    Pagefind reads a folder holding links to those pages alone: given the whole site and a
    glob of them, each Pagefind would walk every file of the site (10,000 at 1,000 lessons).
    """
    target = into / folder
    pages = Path(tempfile.mkdtemp(prefix=".pages-", dir=into.parent))
    try:
        for page in members:
            link_or_copy(site / page, pages / page)
        command = [
            pagefind_executable(),
            "--site",
            str(pages),
            "--keep-index-url",
            "--output-path",
            str(target),
            "--silent",
        ]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as problem:
            raise BuildErrors(
                [
                    BuildError(
                        f"the search index could not be built: {problem}",
                        hint="reinstall the pinned pagefind-bin package "
                        "(pip install -r requirements.txt)",
                    )
                ]
            ) from None
    finally:
        shutil.rmtree(pages, ignore_errors=True)
    if result.returncode != 0:
        raise BuildErrors(
            [
                BuildError(
                    "the search index could not be built (pagefind exited with "
                    f"{result.returncode})",
                    detail=(result.stdout + result.stderr).strip() or None,
                    hint="the previous site is unchanged",
                )
            ]
        )
    _check_written(target, primary=not folder)
    _keep_loaded_files(target, primary=not folder)


def _check_written(target: Path, primary: bool) -> None:
    """Fail if Pagefind could not write its index into `target`: on a full disk it leaves
    empty files and still exits with 0 (Pagefind 1.5), and no file it writes is empty.
    The first shard's folder also holds the others (shards/), which other Pagefinds may be
    writing at this moment: they are theirs to check."""
    entry = target / "pagefind-entry.json"
    empty = []
    for folder, subfolders, names in os.walk(target):
        if primary and folder == str(target):
            subfolders[:] = [name for name in subfolders if name not in _OTHERS]
        empty += [Path(folder, name) for name in names if not os.path.getsize(Path(folder, name))]
    if entry.is_file() and not empty:
        return
    unwritten = empty[0] if empty else entry
    if not os.statvfs(target).f_bavail:
        full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(unwritten))
        raise BuildErrors([environment_error(full)])
    raise BuildErrors(
        [
            BuildError(
                "the search index could not be built: pagefind did not write this file",
                unwritten,
                hint="build again; if it happens again, reinstall the pinned pagefind-bin "
                "package (pip install -r requirements.txt)",
            )
        ]
    )


def _keep_loaded_files(target: Path, primary: bool) -> None:
    """Remove what Pagefind writes that no page loads: its UI bundles (static/search.js
    draws the results itself), and in a shard other than the first, the scripts and
    WebAssembly too (it is merged into the first shard's instance, which alone loads them)."""
    for path in target.iterdir():
        if not path.is_file() or path.name in _SHARED or path.suffix == ".pf_meta":
            continue
        if not (primary and (path.name in _SCRIPTS or path.suffix == ".pagefind")):
            path.unlink()


def _link_shard(source: Path, target: Path, primary: bool) -> None:
    """Hard-link an unchanged shard's files; the first shard's folder also holds the
    others (shards/) and the index's own files, which are not its."""
    files = []
    for folder, subfolders, names in os.walk(source):
        relative = os.path.relpath(folder, source)
        if primary and relative == ".":
            subfolders[:] = [name for name in subfolders if name not in _OTHERS]
            names = [name for name in names if name != SHARD_LIST]
        files += [name if relative == "." else os.path.join(relative, name) for name in names]
    link_all(source, target, files)


def _index_state(state: Path | None) -> dict:
    if state is None:
        return {}
    try:
        return json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def pagefind_executable() -> str:
    """The Pagefind program, which the pagefind-bin package puts beside its module; an
    error saying how to install it when it is not there."""
    try:
        if pagefind_bin is None:
            raise FileNotFoundError
        return str(pagefind_bin.get_executable())
    except FileNotFoundError:
        where = (
            f"not in {Path(pagefind_bin.__file__).parent}"
            if pagefind_bin is not None
            else "the Python package pagefind_bin is not installed"
        )
    raise BuildErrors(
        [
            BuildError(
                f"cannot build the search index: the program pagefind is missing ({where})",
                hint="Pagefind comes with the pagefind-bin package: install the version the "
                "course pins with pip install -r requirements.txt (or pip install pagefind-bin)",
            )
        ]
    )


@functools.cache
def _pagefind_identity() -> str:
    """Which Pagefind built an index: another one re-indexes every shard."""
    executable = pagefind_executable()
    stat = os.stat(executable)
    return f"{executable} {stat.st_size} {stat.st_mtime_ns}"


def _html_pages(site: Path) -> list[str]:
    pages: list[str] = []
    for folder, subfolders, files in os.walk(site):
        if folder == str(site):
            subfolders[:] = [name for name in subfolders if name not in (SEARCH, "static")]
        relative = os.path.relpath(folder, site)
        pages.extend(
            name if relative == "." else f"{relative}/{name}"
            for name in files
            if name.endswith(".html")
        )
    return pages


def search_overlay(options: BuildOptions) -> int:
    """How many changed pages a build's index may hold in its overlay: none with
    --frozen, the way a course is published, so that two such builds of the same input
    give byte-identical sites, however many builds came before (docs/publishing.md)."""
    return 0 if options.frozen else OVERLAY_PAGES


def refresh_search(options: BuildOptions) -> bool:
    """Index the site if its last build kept the previous index; True if it did.

    The index is built beside the site and then renamed into it, so a reader searching
    meanwhile gets the previous index, never half of the new one. Unchanged shards of the
    previous index are linked, not indexed again (see `index_search`).
    """
    state = load_state(options)
    out = options.out.resolve()
    if state.get("search") != "stale" or not out.is_dir():
        return False
    pages = [path for job in state.get("jobs", {}).values() for path in job["files"]]
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.search-", dir=out.parent))
    try:
        index_search(
            out,
            into=fresh / SEARCH,
            previous=out / SEARCH,
            pages=pages or None,
            state=search_state(options),
            overlay_pages=search_overlay(options),
        )
        if (out / SEARCH).exists():
            os.rename(out / SEARCH, fresh / "previous")
        os.rename(fresh / SEARCH, out / SEARCH)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    update_state(options, search="current")
    return True
