"""The site a build replaces is kept as the spare and brought up to date by the next build
(coursesite/publish/sitefolder.py): what that build publishes must be exactly what a build into an
empty folder writes, and the site being replaced must not change while it is served."""

import os
import shutil
from pathlib import Path

import pytest

from conftest import THEME, authoring_example, search_entries
from coursesite.errors import BuildErrors
from coursesite.pipeline import build
from coursesite.publish import searchindex

SECOND = authoring_example().replace("Count what a batch holds", "Count it again")


def tree(folder):
    """Every file (relative path -> bytes) and folder under `folder`."""
    files, folders = {}, set()
    for parent, subfolders, names in os.walk(folder):
        relative = os.path.relpath(parent, folder)
        folders.update(os.path.normpath(os.path.join(relative, name)) for name in subfolders)
        for name in names:
            path = Path(parent, name)
            files[os.path.normpath(os.path.join(relative, name))] = path.read_bytes()
    return files, folders


def fresh_build(folder, tmp_path, **overrides):
    """The same course built into a folder no build wrote before."""
    out = tmp_path / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    build(folder.options(out=out, **overrides))
    return tree(out)


@pytest.fixture
def two_builds(course_folder):
    """A course built twice, so that the first site is now the spare."""
    course_folder.write(authoring_example(), extra={"second": SECOND})
    build(course_folder.options())
    edit = course_folder.lesson_path.read_text().replace("do not divide", "never divide")
    course_folder.lesson_path.write_text(edit)
    build(course_folder.options())
    assert (course_folder.root / ".site.spare" / "basics").is_dir()
    return course_folder


def test_a_rebuild_that_renders_every_page_leaves_the_replaced_site_untouched(two_builds, tmp_path):
    site = two_builds.root / "site"
    before = tree(site)
    templates = tmp_path / "templates"
    shutil.copytree(THEME / "templates", templates)
    base = templates / "base.html"
    base.write_text(base.read_text().replace("Built from executable lessons", "Built, run"))
    build(two_builds.options(templates=templates))
    # The replaced site is now the spare. Most of its files were hard links shared with
    # the site the build filled: writing into one would have changed the published site.
    assert tree(two_builds.root / ".site.spare") == before
    after = tree(site)
    assert after == fresh_build(two_builds, tmp_path, templates=templates)
    assert b"Built, run" in after[0]["basics/count-batches/index.html"]


def test_a_recycled_spare_holds_exactly_what_an_empty_folder_would(two_builds, tmp_path):
    spare = two_builds.root / ".site.spare"
    # What an author, a crash or a tool may have left in the spare: none of it may survive.
    (spare / "stray.html").write_text("<p>stray</p>")
    (spare / "basics" / "old-lesson").mkdir()
    (spare / "basics" / "old-lesson" / "index.html").write_text("old")
    page = spare / "basics" / "count-batches" / "index.html"
    page.unlink()
    page.write_text("damaged")
    # The second lesson goes: its folder must go too.
    manifest = two_builds.manifest.read_text()
    two_builds.manifest.write_text(manifest.split("      - slug: second")[0])
    build(two_builds.options())
    assert tree(two_builds.root / "site") == fresh_build(two_builds, tmp_path)
    assert not (two_builds.root / "site" / "basics" / "second").exists()


def test_a_build_that_fails_while_writing_leaves_the_site_and_a_good_spare(
    two_builds, tmp_path, monkeypatch
):
    site = two_builds.root / "site"
    before = tree(site)
    edit = two_builds.lesson_path.read_text().replace("never divide", "cannot divide")
    two_builds.lesson_path.write_text(edit)
    # Pagefind fails: the page is already written into the staging folder by then.
    monkeypatch.setattr(searchindex.pagefind_bin, "get_executable", lambda: "/bin/false")
    with pytest.raises(BuildErrors) as caught:
        build(two_builds.options())
    assert "the search index could not be built" in str(caught.value)
    assert tree(site) == before
    # The half-updated staging folder is the spare again; the next build makes it right.
    assert (two_builds.root / ".site.spare" / "basics").is_dir()
    monkeypatch.undo()
    build(two_builds.options())
    after, fresh = tree(site), fresh_build(two_builds, tmp_path)
    # The edited page's entry is in the search index's overlay (README, Search), which a
    # fresh build has not: the same pages are found with the same text.
    assert (site / "pagefind" / "overlay").is_dir()
    assert without_search(after) == without_search(fresh)
    assert search_entries(site) == search_entries(tmp_path / "fresh")
    assert b"cannot divide" in after[0]["basics/count-batches/index.html"]


def test_a_frozen_build_after_an_edit_is_byte_identical_to_a_fresh_one(two_builds, tmp_path):
    """--frozen, the way a course is published, keeps no overlay in the search index."""
    site = two_builds.root / "site"
    assert (site / "pagefind" / "overlay").is_dir()  # the author's build after an edit
    edit = two_builds.lesson_path.read_text().replace("never divide", "cannot divide")
    two_builds.lesson_path.write_text(edit)
    build(two_builds.options(frozen=True))
    assert not (site / "pagefind" / "overlay").exists()
    assert tree(site) == fresh_build(two_builds, tmp_path, frozen=True)


def without_search(site_tree):
    files, folders = site_tree
    return (
        {path: data for path, data in files.items() if not path.startswith("pagefind/")},
        {folder for folder in folders if not folder.startswith("pagefind")},
    )
