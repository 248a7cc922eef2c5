"""Stage 5: write the site so that readers only ever see a complete build.

Everything goes into a fresh folder beside the output folder; only when all of it is written
does that folder replace the old site, so a failed or interrupted build leaves the previous
site untouched. Only pages whose inputs changed are rendered again; the files of the others
are hard-linked from the old site, and a build that changes nothing writes nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import traceback
from pathlib import Path
from typing import NamedTuple

import pagefind_bin
from jinja2 import TemplateError

from .errors import BuildError, BuildErrors
from .options import BuildOptions
from .outfolder import MARKER, MARKER_TEXT, ownership_problem
from .progress import Progress
from .render import OutputFile, PageJob, folder_digest
from .sitestate import file_stamps, files_intact, load_state, update_state

SEARCH = "pagefind"  # the search index's folder in the site


def write_site(rendered: list[OutputFile], kept: list[str], static: Path, out: Path,
               index: bool = True) -> None:
    """Make `out` hold `rendered`, the `kept` files of the current `out`, and `static/`.

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
    try:
        (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        shutil.copytree(static, staging / "static")
        for path in kept:
            _link_or_copy(out / path, staging / path)
        for file in rendered:
            target = staging / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(file.content, bytes):
                target.write_bytes(file.content)
            else:
                target.write_text(file.content, encoding="utf-8")
        if index or not (out / SEARCH).is_dir():
            index_search(staging)
        else:
            for found in (out / SEARCH).rglob("*"):
                if found.is_file():
                    _link_or_copy(found, staging / found.relative_to(out))
        staging.chmod(0o755)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def index_search(site: Path, into: Path | None = None) -> None:
    """Build the Pagefind search index of the lesson pages into `site/pagefind/` (or `into`).

    Only elements marked `data-pagefind-body` (the lesson articles) are indexed; result URLs
    keep `index.html` so that they work on any static host.
    """
    where = ["--output-path", str(into)] if into else ["--output-subdir", SEARCH]
    command = [pagefind_bin.get_executable(), "--site", str(site), "--keep-index-url",
               *where, "--silent"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as problem:
        raise BuildErrors([BuildError(f"the search index could not be built: {problem}",
                                      hint="reinstall the pinned pagefind-bin package "
                                           "(pip install -r requirements.txt)")]) from None
    if result.returncode != 0:
        raise BuildErrors([BuildError(
            "the search index could not be built (pagefind exited with "
            f"{result.returncode})", detail=(result.stdout + result.stderr).strip() or None,
            hint="the previous site is unchanged")])


def refresh_search(options: BuildOptions) -> bool:
    """Index the site if its last build kept the previous index; True if it did.

    The index is built beside the site and then renamed into it, so a reader searching
    meanwhile gets the previous index, never half of the new one.
    """
    state = load_state(options)
    out = options.out.resolve()
    if state.get("search") != "stale" or not out.is_dir():
        return False
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.search-", dir=out.parent))
    try:
        index_search(out, into=fresh / SEARCH)
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


def _swap(staging: Path, out: Path) -> None:
    """Replace `out` with `staging`; the old site is removed only after the rename."""
    retired = None
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, retired / "site")
    os.rename(staging, out)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


class WriteOutcome(NamedTuple):
    rendered: int  # files rendered in this build
    written: bool  # whether the site folder was replaced
    files: list[str]  # every page file the site now holds


def write_changed(jobs: list[PageJob], options: BuildOptions,
                  progress: Progress) -> WriteOutcome:
    """Render the jobs whose key changed; write the site only if anything differs."""
    state = load_state(options)
    previous = _previous_jobs(state)
    rendered: list[OutputFile] = []
    kept: list[str] = []
    new_jobs: dict[str, dict] = {}
    errors: list[BuildError] = []
    for job in jobs:
        old = previous.get(job.name)
        if old and old["key"] == job.key and not options.force and \
                files_intact(options.out, old["files"], state.get("stamps")):
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
    if not rendered and static == state.get("static") and set(kept) == previous_files \
            and state.get("search") != "stale":
        progress.message(f"{options.out} is up to date; nothing written")
        return WriteOutcome(0, False, kept)
    index = not options.defer_search_index
    write_site(rendered, kept, options.static, options.out, index)
    site_files = kept + [file.path for file in rendered]
    update_state(options, static=static, jobs=new_jobs, search="current" if index else "stale",
                 stamps=file_stamps(options.out, site_files))
    progress.message(f"wrote {len(rendered)} file(s), kept {len(kept)}, in {options.out}")
    return WriteOutcome(len(rendered), True, site_files)


def template_error(problem: TemplateError, templates: Path) -> BuildError:
    """A template that fails to render, at its file and line (a course may bring its own
    templates/); Jinja keeps them in the traceback's template frames."""
    frames = [frame for frame in traceback.extract_tb(problem.__traceback__)
              if frame.filename and Path(frame.filename).is_relative_to(templates.resolve())]
    where = frames[-1] if frames else None
    return BuildError(f"template error: {problem}", where and where.filename,
                      where and where.lineno,
                      hint="fix the template, or remove your copy from templates/ to use the "
                           "generator's own")


def _previous_jobs(state: dict) -> dict[str, dict]:
    """The page jobs the last build recorded, leaving out any entry of the wrong shape (a
    state file edited by hand, or from another version): those pages are rendered again."""
    jobs = state.get("jobs")
    if not isinstance(jobs, dict):
        return {}
    return {name: job for name, job in jobs.items()
            if isinstance(job, dict) and isinstance(job.get("key"), str)
            and isinstance(job.get("files"), list)
            and all(isinstance(path, str) for path in job["files"])}
