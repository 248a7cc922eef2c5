"""The write stage: write the site from what the render stage made.

The site is replaced as a whole, so that readers only ever see a complete build
(sitefolder.py); the files of unchanged pages are hard-linked from the site being replaced,
and a build that changes nothing writes nothing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors
from coursesite.files import OutputFile
from coursesite.hooks import call, hooked
from coursesite.progress import Progress
from coursesite.publish.outfolder import MARKER, MARKER_TEXT, ownership_problem
from coursesite.publish.searchindex import SEARCH, index_search, search_overlay
from coursesite.publish.sitefolder import (
    SiteFolder,
    copy_folder,
    discard,
    link_or_copy,
    remove_leftovers,
    spare,
    staging_folder,
    swap,
    trash_folder,
    write_file,
)
from coursesite.publish.sitestate import (
    file_stamps,
    files_intact,
    load_state,
    search_state,
    update_state,
)
from coursesite.render.changed import RenderedPages
from coursesite.render.pages import folder_digest


def write_site(
    rendered: list[OutputFile],
    kept: dict[str, int | None],
    static: list[Path],
    out: Path,
    index: bool = True,
    index_state: Path | None = None,
    overlay_pages: int = 0,
) -> float:
    """Make `out` hold `rendered`, the `kept` files of the current `out` (relative path ->
    its inode there, if known), and the `static` folders (a later one's file replacing
    an earlier one's of the same name) as `static/`; return the seconds the search index took.

    Without `index`, the current search index is kept as it is, to be refreshed later.
    `overlay_pages`: how many changed pages the index may hold in its overlay instead of
    indexing their shards again (searchindex.index_search; 0: none, as a fresh build).
    `out` must be new, empty or a site a build wrote (outfolder.MARKER marks it as one).
    """
    out = out.resolve()
    problem = ownership_problem(out)  # checked first by the CLI; again, as it is about to go
    if problem:
        raise BuildErrors([problem])
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(out)
    trash = trash_folder(out)
    written = {file.path for file in rendered} | {MARKER}
    staging = staging_folder(out, kept, written, trash)
    indexing = 0.0
    try:
        write_file(staging / MARKER, MARKER_TEXT)
        for folder in static:
            copy_folder(folder, staging / "static")
        for file in rendered:
            write_file(staging / file.path, file.content)
        if index or not (out / SEARCH).is_dir():
            started = time.perf_counter()
            index_search(
                staging,
                previous=out / SEARCH,
                pages=[*kept, *written],
                state=index_state,
                overlay_pages=overlay_pages,
            )
            indexing = time.perf_counter() - started
        else:
            for found in (out / SEARCH).rglob("*"):
                if found.is_file():
                    link_or_copy(found, staging / found.relative_to(out))
        run_site_hooks(SiteFolder(staging))
        staging.chmod(0o755)
        swap(staging, out, trash)
    except BaseException:
        if staging.exists():  # still a good spare: the next build brings it up to date
            os.rename(staging, trash / "failed" if spare(out).exists() else spare(out))
        raise
    finally:
        discard(trash)
    return indexing


def run_site_hooks(site: SiteFolder) -> None:
    """Each plugin's on_site hook, on the finished site before it replaces the old one."""
    for hook in hooked("on_site"):
        try:
            call(hook, site)
        except BuildError as error:
            raise BuildErrors([error]) from None


class WriteOutcome(NamedTuple):
    rendered: int  # files rendered in this build
    written: bool  # whether the site folder was replaced
    site_state: dict  # the output folder's state as it now is (sitestate)
    search_seconds: float = 0.0  # of the write, spent on the search index


@dataclass(frozen=True)
class SiteBefore:
    """The output folder as this build found it, read before the render stage: which page
    jobs it was written from, and whether their files are still as written."""

    out: Path
    state: dict  # sitestate: the jobs, the files' stamps, the static digest, the search's
    jobs: dict[str, dict]  # job name -> {"key", "files"}

    def intact(self, files: list[str]) -> bool:
        return files_intact(self.out, files, self.state.get("stamps"))


def site_before(options: BuildOptions) -> SiteBefore:
    state = load_state(options)
    return SiteBefore(options.out, state, _previous_jobs(state))


def write_rendered(
    before: SiteBefore, pages: RenderedPages, options: BuildOptions, progress: Progress
) -> WriteOutcome:
    """Write the site, the rendered files and the kept ones, only if anything differs."""
    state, rendered, kept = before.state, pages.rendered, pages.kept
    static = folder_digest(*options.static_folders)
    previous_files = {path for job in before.jobs.values() for path in job["files"]}
    if (
        not rendered
        and static == state.get("static")
        and set(kept) == previous_files
        and state.get("search") != "stale"
    ):
        progress.message(f"{options.out} is up to date; nothing written")
        return WriteOutcome(0, False, state)
    index = not options.defer_search_index
    # Kept files are hard links to (or exact copies of) files whose stamps were just checked.
    old_stamps = state.get("stamps") or {}
    stamps = {path: old_stamps[path] for path in kept}
    inodes = {path: stamp[2] for path, stamp in stamps.items()}
    indexing = write_site(
        rendered,
        inodes,
        options.static_folders[::-1],
        options.out,
        index,
        search_state(options),
        search_overlay(options),
    )
    stamps.update(file_stamps(options.out, [file.path for file in rendered]))
    state = update_state(
        options,
        state,
        static=static,
        jobs=pages.jobs,
        search="current" if index else "stale",
        stamps=stamps,
    )
    progress.message(f"wrote {len(rendered)} file(s), kept {len(kept)}, in {options.out}")
    return WriteOutcome(len(rendered), True, state, indexing)


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
