"""`--out` replaces a folder as a whole, so it only takes one that is new, empty or a site."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, CourseFolder, RecordingProgress, authoring_example, no_traceback
from coursesite.errors import BuildErrors
from coursesite.pipeline import build

BUILD = [sys.executable, str(ROOT / "build.py"), "-q"]


def run(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*BUILD, *arguments], cwd=folder, capture_output=True, text=True, timeout=120
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in folder.rglob("*")
        if ".cache" not in p.parts
    }


@pytest.fixture
def course(tmp_path):
    """A course one level down, so that even `--out ..` stays within this test's folder."""
    course_folder = CourseFolder(tmp_path / "course")
    course_folder.write(authoring_example())
    root = course_folder.root
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# The course's own docs\n")
    (root / "records").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@pytest.mark.parametrize(
    "out, says",
    [
        ("docs", "docs is not empty and holds no .coursesite file"),
        ("content", "content is the course's content/ folder"),
        ("templates", "is the course's templates/ folder"),
        ("static", "is the course's static/ folder"),
        ("records", "is the course's records/ folder"),
        (".git", "is the course's .git/ folder"),
        (".", ". is the course folder (of lessons.yaml)"),
        ("..", ".. contains the course folder (of lessons.yaml)"),
        ("content/site", "content/site is inside the course's content/ folder"),
        (".cache", "is the build cache"),
        ("lessons.yaml", "lessons.yaml is a file, not a folder"),
    ],
)
def test_out_refuses_a_folder_the_build_did_not_write(course, out, says):
    # This course has no templates/ or static/ of its own: the names are refused anyway,
    # since a build finding them would take the site for its templates or static files.
    before = snapshot(course.parent)
    result = run(course, "--out", out)
    assert result.returncode == 1, result.stderr
    assert says in result.stderr, result.stderr
    assert "hint: choose" in result.stderr
    assert no_traceback(result.stderr)
    assert snapshot(course.parent) == before


def test_serve_refuses_the_same_folders(course):
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--out", "docs"],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "docs is not empty and holds no .coursesite file" in result.stderr
    assert (course / "docs" / "guide.md").read_text() == "# The course's own docs\n"


def test_a_site_the_build_wrote_is_marked_and_replaced_whole(course):
    assert run(course, "--out", "public").returncode == 0
    marker = course / "public" / ".coursesite"
    assert "written by build.py" in marker.read_text()
    (course / "public" / "stray.txt").write_text("left by hand")
    assert run(course, "--out", "public", "--force").returncode == 0
    assert not (course / "public" / "stray.txt").exists()
    assert (course / "public" / "index.html").is_file()


@pytest.mark.parametrize(
    "contents",
    [
        {},  # an empty folder
        {"index.html": "old", "static/site.js": "old"},  # a site built before the marker existed
    ],
)
def test_an_empty_folder_or_a_site_from_before_the_marker_is_built_into(course, contents):
    site = course / "site"
    site.mkdir()
    for name, text in contents.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    result = run(course)
    assert result.returncode == 0, result.stderr
    assert (site / ".coursesite").is_file() and (site / "index.html").read_text() != "old"


def test_the_writer_checks_the_folder_again_before_it_replaces_it(course_folder):
    """The command line checks first; the build itself (here without it) checks again."""
    course_folder.write(authoring_example())
    site = course_folder.root / "site"
    site.mkdir()
    (site / "notes.md").write_text("mine")
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    assert "holds no .coursesite file" in str(caught.value)
    assert [p.name for p in site.iterdir()] == ["notes.md"]
