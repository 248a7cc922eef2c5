"""`build.py import NOTEBOOK --phase ID`: check the request, convert the notebook
(lessonimport.convert), settle what the build would otherwise find (images it cannot
publish, modules it would lack), then write the lesson and list it in lessons.yaml, whole
or not at all, and say what is left to do."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from coursesite.config.manifest import PHASE_ID, Course
from coursesite.config.manifestedit import ManifestLayoutError, with_lesson
from coursesite.importers.acceleratorrequests import accelerator_notes
from coursesite.importers.beside import COPY_LIMIT, Brought, bring_from_beside
from coursesite.importers.citations import cite_from_checkout
from coursesite.importers.colabtpu import colab_tpu_notes
from coursesite.importers.courselabels import course_labels, distinct_labels, heading_anchors
from coursesite.importers.doctitles import titled_doc_roles
from coursesite.importers.fetching import Fetched, fetch_data_addresses, with_fetched
from coursesite.importers.flaxmigration import flax_notes
from coursesite.importers.footnotes import place_footnotes
from coursesite.importers.includes import inline_includes, load_code_cells
from coursesite.importers.installing import (
    Installation,
    install,
    pin_requirements,
)
from coursesite.importers.jaxmigration import jax_notes
from coursesite.importers.kernelnames import kernel_name_imports
from coursesite.importers.lessonimport import (
    ImportedLesson,
    convert,
    lesson_slug,
    notebook_title,
)
from coursesite.importers.lessontext import with_listed, with_time_limit
from coursesite.importers.linkedimages import settle_linked_images
from coursesite.importers.mathtextlabels import mathtext_notes
from coursesite.importers.matplotlibmigration import matplotlib_notes
from coursesite.importers.matplotlibstyles import style_notes
from coursesite.importers.matplotlibtex import usetex_notes
from coursesite.importers.moduleneeds import (
    added_path_notes,
    hosted_only_notes,
    installed_here,
    missing_module_notes,
    optional_need_notes,
    own_modules,
    to_install,
    unimportable_notes,
)
from coursesite.importers.networkreads import network_notes
from coursesite.importers.networkxmigration import networkx_notes
from coursesite.importers.numpymigration import numpy_method_notes
from coursesite.importers.optionalneeds import (
    needed_calls,
    uninstalled,
)
from coursesite.importers.ownrepository import own_repository_reads
from coursesite.importers.pandasmigration import pandas_notes
from coursesite.importers.pathmodules import modules_from_added_paths
from coursesite.importers.projecttime import lesson_time
from coursesite.importers.references import OtherSites
from coursesite.importers.reportnotes import grouped_notes
from coursesite.importers.rootpaths import from_project_root
from coursesite.importers.sklearnmigration import sklearn_notes
from coursesite.importers.steplines import lesson_line, syntax_notes
from coursesite.importers.undefinednames import undefined_name_notes
from coursesite.importers.versionasserts import version_assert_notes
from coursesite.importers.versiondrift import api_drift_notes
from coursesite.lesson.completeness import PLACEHOLDER


@dataclass
class ImportRequest:
    notebook: Path
    manifest: Path
    phase: str
    slug: str | None = None
    origin: str | None = None  # the references: site the notebook comes from
    install: bool = False  # pip install the packages it imports that are missing
    fetch: bool = False  # download the data files its code reads by address


@dataclass
class PlannedLesson:
    """What an import will write, all of it known before anything is."""

    lesson: ImportedLesson
    path: Path  # the lesson file
    expected_path: Path
    images: dict[Path, bytes]
    manifest: str  # lessons.yaml with the lesson listed
    slug: str
    installation: Installation


def import_notebook(request: ImportRequest) -> list[str]:
    """Write the lesson and list it in lessons.yaml; return what to tell the author.

    Raises BuildError/BuildErrors (nothing written) on a notebook or manifest it cannot use.
    """
    from coursesite.config.manifest import load_course
    from coursesite.errors import BuildError
    from coursesite.importers.staging import staged_import

    if not re.fullmatch(PHASE_ID, request.phase):
        raise BuildError(
            f"'{request.phase}' is not a phase id",
            hint='--phase takes the id of a phase in lessons.yaml: letters and digits, like "01"',
        )
    course = load_course(request.manifest)  # a course, before anything is made in it
    with staged_import(course.root, request.manifest) as staging:
        if request.manifest.read_text(encoding="utf-8") != course.manifest_text:
            course = load_course(request.manifest)  # an import finished meanwhile
        plan = _plan(request, course)
        # Images first: the many large files, while nothing of the import is in place.
        for image, content in plan.images.items():
            staging.write(image, content)
        staging.write(plan.path, plan.lesson.text)
        if plan.lesson.expected:
            staging.write(plan.expected_path, plan.lesson.expected)
        staging.commit(plan.manifest, lambda: load_course(request.manifest))
    plan.lesson.notes += pin_requirements(course.root, plan.installation, plan.slug)
    written = [plan.path] + ([plan.expected_path] if plan.lesson.expected else [])
    return _report(plan.lesson, request, plan.path, written + list(plan.images), course.root)


def _plan(request: ImportRequest, course: Course) -> PlannedLesson:
    """Convert the notebook and settle where everything goes; BuildError/BuildErrors for
    anything that stops the import."""
    from coursesite.errors import BuildError
    from coursesite.importers.notebooks import read_notebook_file
    from coursesite.plugins import load_plugins

    if request.origin is not None and request.origin not in course.references:
        names = ", ".join(course.references) or "none"
        raise BuildError(
            f"--from names '{request.origin}', which is not a site in references:",
            request.manifest,
            hint=f"sites in lessons.yaml's references: {names} (docs/authoring.md)",
        )
    notebook_file = read_notebook_file(request.notebook)
    cells = notebook_file.cells
    title = notebook_title(cells, request.notebook.stem.replace("_", " ").replace("-", " "))
    slug, listed = request.slug or lesson_slug(title), {ref.slug for ref in course.lessons}
    if slug in listed and request.slug:
        raise BuildError(
            f"a lesson with the slug '{slug}' is already listed",
            request.manifest,
            hint="choose another with --slug",
        )
    # Two tutorials of one title ("Jupyter Notebooks"): the second gets the next free slug.
    slug, first_choice = _free_slug(slug, listed), slug
    phase = next((p for p in course.phases if p.id == request.phase), None)
    members = [ref for ref in course.lessons if ref.phase.id == request.phase]
    if members:
        folder = members[0].source.parent
    else:
        phase_slug = _free_slug(lesson_slug(title), {p.slug for p in course.phases})
        folder = course.root / "content" / f"{request.phase}-{phase_slug}"
    path = folder / f"{len(members) + 1:02d}-{slug}.md"
    expected_path = path.with_name(f"{slug}.expected.yaml")
    for taken in (path, expected_path):
        if taken.exists():
            raise BuildError(
                "a file is already there", taken, hint="move it away, or choose another --slug"
            )
    # Named relative to the course: the course must not carry this machine's paths.
    notebook = Path(os.path.relpath(request.notebook.resolve(), course.root.resolve()))
    sites = OtherSites.of(course.references, request.origin)
    load_plugins(course, request.manifest)  # their block kinds are kept, as the build keeps them
    # What the notebook's checkout settles before the cells are read as a lesson.
    from_checkout = [*notebook_file.notes, *inline_includes(cells, request.notebook)]
    from_checkout += load_code_cells(cells, request.notebook)
    from_checkout += place_footnotes(cells)
    from_checkout += from_project_root(cells, request.notebook)
    from_checkout += cite_from_checkout(cells, request.notebook)
    titled_doc_roles(cells, request.notebook)
    from_checkout += own_repository_reads(cells, request.notebook)
    from_checkout += kernel_name_imports(cells)
    fetched = fetch_data_addresses(cells) if request.fetch else Fetched()
    from_checkout += fetched.notes
    lesson = convert(cells, title, notebook.as_posix(), expected_path.name, sites)
    lesson.notes[:0] = from_checkout
    linked = settle_linked_images(lesson, folder, course.root, request.notebook)
    # Before any note names a lesson line: listing files adds lines to the front matter.
    brought = bring_from_beside(lesson.steps, lesson.code, folder, request.notebook.parent)
    with_fetched(brought, fetched, folder)
    lesson.text = with_listed(lesson.text, brought.listed, linked.written)
    time_limit, said = lesson_time(
        request.notebook, notebook_file.metadata, course.settings.timeout_seconds
    )
    lesson.text = with_time_limit(lesson.text, time_limit)
    lesson.notes += said
    labels = course_labels([ref.source for ref in course.lessons])
    anchors = heading_anchors(lesson.text)
    lesson.text, renamed = distinct_labels(lesson.text, anchors, slug, "a heading of the lesson")
    lesson.text, renamed_too = distinct_labels(lesson.text, labels, slug)
    renamed += renamed_too
    lesson.notes += renamed
    lesson.notes += brought.notes + network_notes(lesson.text, lesson.steps)
    lesson.notes += syntax_notes(lesson.text, lesson.steps)
    if slug != first_choice:
        lesson.notes.append(
            f"a lesson with the slug '{first_choice}' is already listed: this one is '{slug}' "
            "(import again with --slug to choose another)"
        )
    lesson.notes += _over_output_limit(lesson, course.settings.output_limit)
    own = own_modules(lesson, folder, request.notebook.parent)
    from_paths = modules_from_added_paths(lesson.steps)
    lesson.notes += added_path_notes(from_paths)
    own |= set(from_paths) | set(brought.packages)  # pip's namesakes are other projects
    calls = needed_calls(lesson.steps)  # of a library's optional packages
    requirements, modules = (
        to_install(lesson, own, uninstalled(calls)) if request.install else ([], [])
    )
    installation = install(requirements, modules)
    lesson.notes += unimportable_notes(installation, lesson, modules)
    lesson.notes += missing_module_notes(lesson, own, installation.refused)
    lesson.notes += optional_need_notes(lesson, uninstalled(calls))
    lesson.notes += hosted_only_notes(lesson) + accelerator_notes(lesson)
    lesson.notes += colab_tpu_notes(lesson)  # before the check of names: it is settled
    lesson.notes += style_notes(lesson)
    lesson.notes += usetex_notes(lesson)
    lesson.notes += mathtext_notes(lesson)
    lesson.notes += pandas_notes(lesson)
    lesson.notes += matplotlib_notes(lesson)
    lesson.notes += numpy_method_notes(lesson)
    lesson.notes += networkx_notes(lesson)
    lesson.notes += sklearn_notes(lesson)
    lesson.notes += flax_notes(lesson)
    lesson.notes += jax_notes(lesson)
    # After the migrations: a keyword they wrote anew (read_csv's delim_whitespace) is
    # settled, not refused.
    lesson.notes += api_drift_notes(lesson, own)
    lesson.notes += version_assert_notes(lesson)
    lesson.notes += undefined_name_notes(lesson)
    lesson.notes += _data_files(lesson, folder, course.root, request.notebook.parent, brought)
    source = path.relative_to(course.root).as_posix()
    new_phase = {"id": request.phase, "slug": phase_slug, "title": title} if phase is None else {}
    try:
        manifest = with_lesson(course.manifest_text, request.phase, slug, source, new_phase)
    except ManifestLayoutError as problem:
        raise BuildError(
            f"cannot add the lesson: {problem}",
            request.manifest,
            hint=f"list it by hand: slug: {slug}, source: {source}",
        ) from None
    images = {folder / name: content for name, content in lesson.images.items()}
    images |= linked.copies | brought.copies
    for taken, content in list(images.items()):
        if taken.is_file() and taken.read_bytes() == content:  # the same image (by digest)
            del images[taken]
        elif taken.exists():
            raise BuildError(
                "a file is already there", taken, hint="move it away, then import again"
            )
    return PlannedLesson(lesson, path, expected_path, images, manifest, slug, installation)


def _over_output_limit(lesson: ImportedLesson, limit: int) -> list[str]:
    """What the build would refuse: a step that prints more than the page can show."""
    return [
        f"{where}: its stored output is {size:,} characters, and the build refuses a step "
        f"that prints more than settings.output_limit ({limit:,}): make it print less (a "
        "count, the first lines), or raise output_limit in lessons.yaml"
        for where, size in lesson.printed.items()
        if size > limit
    ]


def _data_files(
    lesson: ImportedLesson, folder: Path, root: Path, beside: Path, brought: Brought
) -> list[str]:
    """What the build would fail on for want of a data file or a folder: each file the
    code reads by name, and each folder it writes into without making it first, at its
    line in the lesson. A lesson's code runs in a folder holding the files its front
    matter lists (`files:`), and nothing else of the course: no folder beside the lesson
    or the notebook is there."""
    from coursesite.importers.datafiles import data_reads, writes_without_folder

    notes = []
    for number, where, offset, name in data_reads(lesson.steps):
        if name in brought.read:
            continue
        line = lesson_line(lesson.text, number, offset)
        target = (folder.relative_to(root) / name).as_posix()
        listed = f"list it in the front matter's files: [{name}]"
        if (folder / name).is_file():
            todo = f"it is beside the lesson: {listed}, so that the build copies it for the code"
        elif (beside / name).is_file():  # outside the notebook's folder, a link, too large
            todo = (
                f"copy it from beside the notebook to {target} and {listed} (the import "
                "copies only regular files in the notebook's folder, up to "
                f"{COPY_LIMIT >> 20} MB)"
            )
        else:
            todo = (
                f"it is not beside the notebook: save it as {target} and {listed} (or, if "
                "the code should make it, make it in a step before this one)"
            )
        what = (
            f"files named {name} (* stands for what the code computes)"
            if "*" in name
            else (f"the file {name}")
        )
        notes.append(f"{where}, lesson line {line}: step {number} reads {what}; {todo}")
    # Reported, not settled: a makedirs line the notebook never had would be code the
    # reader sees as the notebook's, and only the author knows whether the folder is the
    # code's output (make it) or data the lesson should bring (a reported read).
    for number, where, offset, name, made_in in writes_without_folder(lesson.steps, brought.listed):
        line = lesson_line(lesson.text, number, offset)
        notes.append(
            f"{where}, lesson line {line}: step {number} writes the file {name} into the "
            f"folder {made_in}/, which no step makes before it: the build runs the code in a "
            f"folder of its own, without the notebook's {made_in}/, so the write fails "
            f"(FileNotFoundError); make the folder in the step first: "
            f"os.makedirs({made_in!r}, exist_ok=True) (after import os)"
        )
    return notes


def _free_slug(slug: str, taken: set[str]) -> str:
    candidate, number = slug, 2
    while candidate in taken:
        candidate, number = f"{slug}-{number}", number + 1
    return candidate


def _report(
    lesson: ImportedLesson, request: ImportRequest, path: Path, written: list[Path], root: Path
) -> list[str]:
    lines = [f"imported {request.notebook} as {path.relative_to(root)}"]
    if lesson.expected:
        lines.append(
            f"  its stored outputs are in {written[1].name}: the next build compares the "
            "fresh output of every step with them and warns about each difference"
        )
    if lesson.images:
        lines.append(f"  saved {len(lesson.images)} image(s) pasted into the notebook in images/")
    if lesson.installs:
        missing = [line for line in lesson.installs if not installed_here(line)]
        lines.append(f"  the notebook installs: {' '.join(lesson.installs)}")
        lines.append(
            f"    not installed where you build: {' '.join(missing)} (install them before the "
            "next build, or import with --install)"
            if missing
            else "    (installed where you build already)"
        )
    lines += [f"  {request.notebook}: {note}" for note in grouped_notes(lesson.notes)]
    lines.append(
        f"  to finish: fill in the {PLACEHOLDER} lines and the empty stages "
        "(`build.py check` lists them), then run `python build.py`"
    )
    return lines
