"""Stage 5: write the site so that readers only ever see a complete build.

Everything goes into a fresh folder beside the output folder; only when all of it is written
does that folder replace the old site, so a failed or interrupted build leaves the previous
site untouched. Only pages whose inputs changed are rendered again; the files of the others
are hard-linked from the old site, and a build that changes nothing writes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pagefind_bin
from jinja2 import TemplateError

from .errors import BuildError, BuildErrors
from .files import short_digest, write_atomically
from .options import BuildOptions
from .outfolder import MARKER, MARKER_TEXT, ownership_problem
from .progress import Progress
from .render import OutputFile, PageJob, folder_digest
from .sitestate import file_stamps, files_intact, load_state, update_state

SEARCH = "pagefind"  # the search index's folder in the site
SHARD_PAGES = 50  # lesson pages a search shard holds at most; a prose edit re-indexes one
SHARD_LIST = "shards.json"  # in pagefind/: the shard folders, read by static/search.js
_SHARED = ("pagefind-entry.json",)  # besides index/, fragment/ and *.pf_meta: a shard's data
# What static/search.js loads from the first shard, besides its data: the scripts and
# (*.pagefind) the search's WebAssembly.
_SCRIPTS = ("pagefind.js", "pagefind-worker.js")


def write_site(
    rendered: list[OutputFile],
    kept: list[str],
    static: Path,
    out: Path,
    index: bool = True,
    index_state: Path | None = None,
) -> float:
    """Make `out` hold `rendered`, the `kept` files of the current `out`, and `static/`;
    return the seconds the search index took.

    Without `index`, the current search index is kept as it is, to be refreshed later.
    `out` must be new, empty or a site a build wrote (outfolder.MARKER marks it as one).
    """
    out = out.resolve()
    problem = ownership_problem(out)  # checked first by the CLI; again, as it is about to go
    if problem:
        raise BuildErrors([problem])
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    indexing = 0.0
    try:
        (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        shutil.copytree(static, staging / "static")
        _link_all(out, staging, kept)
        for file in rendered:
            target = staging / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(file.content, bytes):
                target.write_bytes(file.content)
            else:
                target.write_text(file.content, encoding="utf-8")
        if index or not (out / SEARCH).is_dir():
            pages = kept + [file.path for file in rendered]
            started = time.perf_counter()
            index_search(staging, previous=out / SEARCH, pages=pages, state=index_state)
            indexing = time.perf_counter() - started
        else:
            for found in (out / SEARCH).rglob("*"):
                if found.is_file():
                    _link_or_copy(found, staging / found.relative_to(out))
        staging.chmod(0o755)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return indexing


def index_search(
    site: Path,
    into: Path | None = None,
    previous: Path | None = None,
    pages: list[str] | None = None,
    shard_pages: int = SHARD_PAGES,
    state: Path | None = None,
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
    """
    into = into or site / SEARCH
    old = _index_state(state) if previous is not None else {}
    known = old.get("pages", {}) if old.get("pagefind") == _pagefind_identity() else {}
    indexed: dict[str, list] = {}  # every page: [inode, size, mtime, whether it is indexed]
    for page in sorted(pages if pages is not None else _html_pages(site)):
        if not page.endswith(".html") or page.startswith(SEARCH + "/"):
            continue
        path = site / page
        stat = path.stat()
        identity = [stat.st_ino, stat.st_size, stat.st_mtime_ns]
        before = known.get(page)
        if before and before[:3] == identity:
            indexed[page] = before
        else:
            indexed[page] = [*identity, b"data-pagefind-body" in path.read_bytes()]
    body = [page for page, entry in indexed.items() if entry[3]]
    shards = _shards(body, shard_pages)
    into.mkdir(parents=True, exist_ok=True)
    stale = []
    for folder, members in shards.items():
        same = (
            all(known.get(page) == indexed[page] for page in members)
            and old.get("shards", {}).get(folder) == members
        )
        if same and previous is not None and (previous / folder / "pagefind-entry.json").is_file():
            _link_shard(previous / folder, into / folder, primary=not folder)
        else:
            stale.append((folder, members))
    workers = min(len(stale), os.cpu_count() or 1) or 1
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda shard: _index_shard(site, into, *shard), stale))
    (into / SHARD_LIST).write_text(json.dumps({"shards": list(shards)}), encoding="utf-8")
    if state is not None:
        write_atomically(
            state,
            json.dumps({"pagefind": _pagefind_identity(), "shards": shards, "pages": indexed}),
        )


def search_state(options: BuildOptions) -> Path:
    """What the index of the site `options.out` was built from (see `index_search`).

    It may describe a newer index than the site's, if a build failed after indexing: the
    pages it names then exist nowhere, so no shard is reused on its word."""
    return options.cache / "search" / f"{short_digest(str(options.out.resolve()))}.json"


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
            _link_or_copy(site / page, pages / page)
        command = [
            pagefind_bin.get_executable(),
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
    _keep_loaded_files(target, primary=not folder)


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
            subfolders[:] = [name for name in subfolders if name != "shards"]
            names = [name for name in names if name != SHARD_LIST]
        files += [name if relative == "." else os.path.join(relative, name) for name in names]
    _link_all(source, target, files)


def _index_state(state: Path | None) -> dict:
    if state is None:
        return {}
    try:
        return json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@functools.cache
def _pagefind_identity() -> str:
    """Which Pagefind built an index: another one re-indexes every shard."""
    executable = pagefind_bin.get_executable()
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
        )
        if (out / SEARCH).exists():
            os.rename(out / SEARCH, fresh / "previous")
        os.rename(fresh / SEARCH, out / SEARCH)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    update_state(options, search="current")
    return True


def _remove_leftovers(out: Path) -> None:
    """Staging folders of builds that were killed before they could clean up.

    The build lock guarantees that no other build is writing next to `out` right now.
    """
    for prefix in (f".{out.name}.new-", f".{out.name}.old-", f".{out.name}.search-"):
        for folder in out.parent.glob(prefix + "*"):
            shutil.rmtree(folder, ignore_errors=True)


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copy2(source, target)


def _link_all(source: Path, target: Path, paths: list[str]) -> None:
    """`_link_or_copy` for every one of `paths` (relative to both folders); os.path and one
    mkdir per folder, because a large site keeps ~10,000 files from build to build."""
    made: set[str] = set()
    source_root, target_root = str(source), str(target)
    for path in paths:
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(os.path.join(target_root, folder), exist_ok=True)
            made.add(folder)
        origin, copy = os.path.join(source_root, path), os.path.join(target_root, path)
        try:
            os.link(origin, copy)
        except OSError:  # a file system without hard links
            shutil.copy2(origin, copy)


def _swap(staging: Path, out: Path) -> None:
    """Replace `out` with `staging`; the old site is removed only after the rename."""
    retired = None
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, retired / "site")
    os.rename(staging, out)
    if retired is not None:
        _discard(retired)


def _discard(folder: Path) -> None:
    """Delete a retired site without making the author wait for it.

    Deleting a large site (11,000 files at 1,000 lessons) took longer than the rest of a
    prose-edit build, and nothing needs it gone: the new site is in place. A detached
    process deletes it; if that process is stopped first, the next build that writes
    removes what is left (`_remove_leftovers`).
    """
    try:
        subprocess.Popen(
            [sys.executable, "-c", _DELETE_FOLDER, str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C in the terminal after the build is not for it
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)


_DELETE_FOLDER = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"


class WriteOutcome(NamedTuple):
    rendered: int  # files rendered in this build
    written: bool  # whether the site folder was replaced
    site_state: dict  # the output folder's state as it now is (sitestate)
    search_seconds: float = 0.0  # of the write, spent on the search index


def write_changed(jobs: list[PageJob], options: BuildOptions, progress: Progress) -> WriteOutcome:
    """Render the jobs whose key changed; write the site only if anything differs."""
    state = load_state(options)
    previous = _previous_jobs(state)
    rendered: list[OutputFile] = []
    kept: list[str] = []
    new_jobs: dict[str, dict] = {}
    errors: list[BuildError] = []
    for job in jobs:
        old = previous.get(job.name)
        if (
            old
            and old["key"] == job.key
            and not options.force
            and files_intact(options.out, old["files"], state.get("stamps"))
        ):
            kept.extend(old["files"])
            new_jobs[job.name] = old
            continue
        try:
            files = job.render()
        except BuildError as error:
            errors.append(error)
            continue
        except TemplateError as problem:
            errors.append(template_error(problem, options.templates))
            continue
        rendered.extend(files)
        new_jobs[job.name] = {"key": job.key, "files": [file.path for file in files]}
    if errors:
        raise BuildErrors(errors)
    static = folder_digest(options.static)
    previous_files = {path for job in previous.values() for path in job["files"]}
    if (
        not rendered
        and static == state.get("static")
        and set(kept) == previous_files
        and state.get("search") != "stale"
    ):
        progress.message(f"{options.out} is up to date; nothing written")
        return WriteOutcome(0, False, state)
    index = not options.defer_search_index
    indexing = write_site(rendered, kept, options.static, options.out, index, search_state(options))
    # Kept files are hard links to (or exact copies of) files whose stamps were just checked.
    old_stamps = state.get("stamps") or {}
    stamps = {path: old_stamps[path] for path in kept}
    stamps.update(file_stamps(options.out, [file.path for file in rendered]))
    state = update_state(
        options,
        state,
        static=static,
        jobs=new_jobs,
        search="current" if index else "stale",
        stamps=stamps,
    )
    progress.message(f"wrote {len(rendered)} file(s), kept {len(kept)}, in {options.out}")
    return WriteOutcome(len(rendered), True, state, indexing)


def template_error(problem: TemplateError, templates: Path) -> BuildError:
    """A template that fails to render, at its file and line (a course may bring its own
    templates/); Jinja keeps them in the traceback's template frames."""
    frames = [
        frame
        for frame in traceback.extract_tb(problem.__traceback__)
        if frame.filename and Path(frame.filename).is_relative_to(templates.resolve())
    ]
    where = frames[-1] if frames else None
    return BuildError(
        f"template error: {problem}",
        where and where.filename,
        where and where.lineno,
        hint="fix the template, or remove your copy from templates/ to use the generator's own",
    )


def _previous_jobs(state: dict) -> dict[str, dict]:
    """The page jobs the last build recorded, leaving out any entry of the wrong shape (a
    state file edited by hand, or from another version): those pages are rendered again."""
    jobs = state.get("jobs")
    if not isinstance(jobs, dict):
        return {}
    return {
        name: job
        for name, job in jobs.items()
        if isinstance(job, dict)
        and isinstance(job.get("key"), str)
        and isinstance(job.get("files"), list)
        and all(isinstance(path, str) for path in job["files"])
    }
