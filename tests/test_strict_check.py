"""`build.py check`: strict mode fails on warnings, broken links, missing alt text, bad HTML."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, THEME, authoring_example, line_of
from coursesite.publish.sitecheck import check_links, validate_html


def run(folder, *arguments):
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *arguments],
        cwd=folder.root,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def checked_course(course_folder):
    shutil.copytree(THEME / "templates", course_folder.root / "templates")
    course_folder.write(authoring_example())
    assert run(course_folder, "-q").returncode == 0
    return course_folder


def test_a_clean_course_passes(checked_course):
    result = run(checked_course, "check")
    assert result.returncode == 0, result.stderr
    assert "check passed" in result.stdout


def test_a_warning_fails_check_but_not_the_build(checked_course):
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'import warnings\nwarnings.warn("old API")\nprint("Batch sizes:", sizes)',
    )
    checked_course.lesson_path.write_text(text)
    built = run(checked_course)
    assert built.returncode == 0 and "warning:" in built.stderr and "old API" in built.stderr
    result = run(checked_course, "check", "--accept")
    assert result.returncode == 1
    step_2 = line_of(text, "batches = [ids[i:i + 4]")  # a block's problem: its first line
    assert f"lesson.md:{step_2}: step 2 wrote to stderr: " in result.stderr


def test_broken_links_and_images_without_alt_are_found(checked_course):
    base = checked_course.root / "templates" / "base.html"
    base.write_text(
        base.read_text().replace(
            "</footer>",
            '<a href="nowhere.html">x</a><a href="#no-such-id">y</a>'
            '<img src="{{ root }}static/favicon.svg"></footer>',
        )
    )
    result = run(checked_course, "check")
    assert result.returncode == 1
    assert "link to nowhere.html: no such file in the site" in result.stderr
    assert "no element with id 'no-such-id'" in result.stderr
    assert "image without alt text" in result.stderr
    assert "site/index.html:" in result.stderr


def test_invalid_html_is_reported_with_its_line(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<!DOCTYPE html><html lang=en><head><title>t</title>"
        "</head><body>\n<p><div>x</p>\n</body></html>"
    )
    problems = validate_html(site)
    assert problems and all(p.path == "index.html" for p in problems)
    assert any(p.line == 2 and "invalid HTML" in p.message for p in problems)
    assert check_links(site) == []


def test_checks_leave_the_cache_holding_the_built_sites_state_alone(checked_course):
    """Each check builds into a temporary folder; its page and search state went with it
    only in part, and every check left one more file in .cache/search/."""
    cache = checked_course.root / ".cache"

    def states() -> dict[str, list[str]]:
        return {
            kind: sorted(path.name for path in (cache / kind).iterdir())
            for kind in ("site", "search")
        }

    built = states()
    assert len(built["site"]) == len(built["search"]) == 1  # the site/ the fixture built
    # What a check of an older version left: the next check removes it.
    (cache / "search" / "0123456789abcdef.json").write_text("{}")
    for _ in range(2):
        result = run(checked_course, "check")
        assert result.returncode == 0, result.stderr
        assert states() == built


def test_checks_leave_no_lock_file_of_their_temporary_sites(checked_course, tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary)}
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "check"],
            cwd=checked_course.root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        assert list((temporary / "coursesite-locks").iterdir()) == []
