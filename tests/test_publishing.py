"""Publishing: reproducible output, host files, base URL, and the student edition."""

import gzip
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import (
    RecordingProgress,
    authoring_example,
    build_real_course,
    everything_readable,
)
from coursesite.errors import BuildErrors
from coursesite.pipeline import build


def tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_two_builds_from_the_same_records_are_byte_identical(tmp_path):
    for name in ("a", "b"):
        result = build_real_course(
            "--frozen",
            "--out",
            str(tmp_path / name / "site"),
            "--cache",
            str(tmp_path / name / "cache"),
        )
        assert result.returncode == 0, result.stderr
    first, second = tree(tmp_path / "a" / "site"), tree(tmp_path / "b" / "site")
    assert len(first) > 20
    assert first == second
    assert not any(str(tmp_path).encode() in content for content in first.values())


def test_base_url_gives_sitemap_and_canonical_links_while_links_stay_relative(tmp_path):
    out = tmp_path / "site"
    assert (
        build_real_course(
            "--frozen",
            "--out",
            str(out),
            "--cache",
            str(tmp_path / "c"),
            "--base-url",
            "https://example.org/course",
        ).returncode
        == 0
    )
    sitemap = (out / "sitemap.xml").read_text()
    assert (
        "<loc>https://example.org/course/recovery/design-an-input-pipeline/index.html</loc>"
        in sitemap
    )
    assert "Sitemap: https://example.org/course/sitemap.xml" in (out / "robots.txt").read_text()
    page = BeautifulSoup(
        (out / "recovery" / "design-an-input-pipeline" / "index.html").read_text(), "html.parser"
    )
    assert (
        page.find("link", rel="canonical")["href"]
        == "https://example.org/course/recovery/design-an-input-pipeline/index.html"
    )
    assert page.find("meta", property="og:title")["content"] == "Design an input pipeline"
    assert page.find("meta", attrs={"name": "description"})["content"]
    assert not any(a["href"].startswith("https://example.org") for a in page.select("a[href]"))
    assert (out / ".nojekyll").is_file() and (out / "404.html").is_file()
    not_found = (out / "404.html").read_text()
    assert 'href="/course/static/style.css"' in not_found
    assert 'href="/course/index.html"' in not_found and 'href="static/' not in not_found


def test_without_base_url_there_is_no_sitemap_or_canonical(tmp_path):
    out = tmp_path / "site"
    assert (
        build_real_course("--frozen", "--out", str(out), "--cache", str(tmp_path / "c")).returncode
        == 0
    )
    assert not (out / "sitemap.xml").exists() and (out / "robots.txt").is_file()
    assert 'rel="canonical"' not in (out / "index.html").read_text()


SOLUTION_LINE = "threes = [ids[i:i + 3] for i in range(0, len(ids), 3)]"


def search_index_text(site: Path) -> str:
    """What Pagefind indexed of each page: its fragment files, which are gzip-compressed."""
    return "\n".join(
        gzip.decompress(path.read_bytes()).decode()
        for path in (site / "pagefind" / "fragment").iterdir()
    )


def test_student_edition_has_no_solution_anywhere_but_still_checks_them(course_folder):
    course_folder.write(authoring_example())
    build(course_folder.options(), RecordingProgress())
    # The controls: in the full edition the solution is on the page and in the search index.
    assert SOLUTION_LINE in search_index_text(course_folder.root / "site")
    student = course_folder.root / "student" / "site"
    build(course_folder.options(edition="student", out=student), RecordingProgress())
    text = everything_readable(student)
    assert SOLUTION_LINE not in text and "Reference solution" not in text
    assert "threes = ...  # TODO: batches of three" in text  # the scaffold stays
    index = search_index_text(student)
    assert SOLUTION_LINE not in index and "Reference solution" not in index
    # The student pages are indexed (Pagefind collapses the scaffold's two spaces).
    assert "threes = ... # TODO: batches of three" in index
    broken = authoring_example().replace(
        "assert [len(b) for b in threes] == [3, 3, 3, 2]",
        "assert [len(b) for b in threes] == [3, 3, 3, 3]",
    )
    course_folder.lesson_path.write_text(broken)
    with pytest.raises(BuildErrors, match="solution of 'Batch by three' failed"):
        build(course_folder.options(edition="student", out=student), RecordingProgress())
