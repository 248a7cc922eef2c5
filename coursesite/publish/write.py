"""Stage 5: render the pages whose inputs changed and write the site.

The site is replaced as a whole, so that readers only ever see a complete build
(sitefolder.py); the files of unchanged pages are hard-linked from the site being replaced,
and a build that changes nothing writes nothing.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path
from typing import NamedTuple

from jinja2 import TemplateError

from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors
from coursesite.files import OutputFile
from coursesite.progress import Progress
from coursesite.publish.outfolder import MARKER, MARKER_TEXT, ownership_problem
from coursesite.publish.searchindex import SEARCH, index_search
from coursesite.publish.sitefolder import (
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
from coursesite.render.pages import PageJob, folder_digest


def write_site(
    rendered: list[OutputFile],
    kept: dict[str, int | None],
    static: list[Path],
    out: Path,
    index: bool = True,
    index_state: Path | None = None,
) -> float:
    """Make `out` hold `rendered`, the `kept` files of the current `out` (relative path ->
    its inode there, if known), and the `static` folders (a later one's file replacing
    an earlier one's of the same name) as `static/`; return the seconds the search index took.

    Without `index`, the current search index is kept as it is, to be refreshed later.
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
            index_search(staging, previous=out / SEARCH, pages=[*kept, *written], state=index_state)
            indexing = time.perf_counter() - started
        else:
            for found in (out / SEARCH).rglob("*"):
                if found.is_file():
                    link_or_copy(found, staging / found.relative_to(out))
        staging.chmod(0o755)
        swap(staging, out, trash)
    except BaseException:
        if staging.exists():  # still a good spare: the next build brings it up to date
            os.rename(staging, trash / "failed" if spare(out).exists() else spare(out))
        raise
    finally:
        discard(trash)
    return indexing


class WriteOutcome(NamedTuple):
    rendered: int  # files rendered in this build
    written: bool  # whether the site folder was replaced
    site_state: dict  # the output folder's state as it now is (sitestate)
    search_seconds: float = 0.0  # of the write, spent on the search index


class RenderedSite(NamedTuple):
    """What the render stage made, for the write stage to publish."""

    state: dict  # the output folder's state before this build (sitestate)
    previous: dict[str, dict]  # the page jobs that state records
    rendered: list[OutputFile]  # the files of the jobs whose inputs changed
    kept: list[str]  # the files of the others, unchanged in the site
    jobs: dict[str, dict]  # job name -> its key and files, for the next build
    by_job: dict[str, list[OutputFile]]  # job name -> the files rendered for it


def render_changed(jobs: list[PageJob], options: BuildOptions) -> RenderedSite:
    """Render the jobs whose key changed or whose files in the site are not intact; keep
    the others' files as the site holds them."""
    state = load_state(options)
    previous = _previous_jobs(state)
    rendered: list[OutputFile] = []
    by_job: dict[str, list[OutputFile]] = {}
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
            errors.append(template_error(problem, options.template_folders))
            continue
        rendered.extend(files)
        by_job[job.name] = files
        new_jobs[job.name] = {"key": job.key, "files": [file.path for file in files]}
    if errors:
        raise BuildErrors(errors)
    return RenderedSite(state, previous, rendered, kept, new_jobs, by_job)


def write_rendered(site: RenderedSite, options: BuildOptions, progress: Progress) -> WriteOutcome:
    """Write the site, the rendered files and the kept ones, only if anything differs."""
    state, rendered, kept = site.state, site.rendered, site.kept
    static = folder_digest(*options.static_folders)
    previous_files = {path for job in site.previous.values() for path in job["files"]}
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
    )
    stamps.update(file_stamps(options.out, [file.path for file in rendered]))
    state = update_state(
        options,
        state,
        static=static,
        jobs=site.jobs,
        search="current" if index else "stale",
        stamps=stamps,
    )
    progress.message(f"wrote {len(rendered)} file(s), kept {len(kept)}, in {options.out}")
    return WriteOutcome(len(rendered), True, state, indexing)


def template_error(problem: TemplateError, templates: list[Path]) -> BuildError:
    """A template that fails to render, at its file and line (a course may bring its own
    templates/); Jinja keeps them in the traceback's template frames."""
    frames = [
        frame
        for frame in traceback.extract_tb(problem.__traceback__)
        if frame.filename
        and any(Path(frame.filename).is_relative_to(folder.resolve()) for folder in templates)
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
