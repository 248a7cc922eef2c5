"""The render stage: render the page jobs whose inputs changed since the site was last
written, and keep the others' files as the site holds them.

What the site holds is the write stage's to know (publish/write.py reads its state); it is
passed in as the jobs the site was written from and a test of whether their files are
still intact.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from jinja2 import TemplateError

from coursesite.errors import BuildError, BuildErrors
from coursesite.files import OutputFile
from coursesite.render.pages import PageJob


class RenderedPages(NamedTuple):
    """What the render stage made, for the write stage to publish."""

    rendered: list[OutputFile]  # the files of the jobs whose inputs changed
    kept: list[str]  # the files of the others, unchanged in the site
    jobs: dict[str, dict]  # job name -> its key and files, for the next build
    by_job: dict[str, list[OutputFile]]  # job name -> the files rendered for it


def render_changed(
    jobs: list[PageJob],
    written: dict[str, dict],
    intact: Callable[[list[str]], bool],
    templates: list[Path],
    force: bool = False,
) -> RenderedPages:
    """Render the jobs whose key differs from the one the site was `written` with (job
    name -> {"key", "files"}), or whose files are not `intact` there; keep the others'
    files. `templates` are the folders a template error may be in; `force` renders all."""
    rendered: list[OutputFile] = []
    by_job: dict[str, list[OutputFile]] = {}
    kept: list[str] = []
    new_jobs: dict[str, dict] = {}
    errors: list[BuildError] = []
    for job in jobs:
        old = written.get(job.name)
        if old and old["key"] == job.key and not force and intact(old["files"]):
            kept.extend(old["files"])
            new_jobs[job.name] = old
            continue
        try:
            files = job.render()
        except BuildError as error:
            errors.append(error)
            continue
        except TemplateError as problem:
            errors.append(template_error(problem, templates))
            continue
        rendered.extend(files)
        by_job[job.name] = files
        new_jobs[job.name] = {"key": job.key, "files": [file.path for file in files]}
    if errors:
        raise BuildErrors(errors)
    return RenderedPages(rendered, kept, new_jobs, by_job)


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
