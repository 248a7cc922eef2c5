"""Input built to exhaust the parser: blocks and Markdown nested thousands deep, a line of a
million brackets. Each ends in a clear error at its line, or builds in linear time."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT, CourseFolder, authoring_example, line_of
from coursesite.lesson.nesting import BLOCK_DEPTH_LIMIT


def with_prose(addition: str) -> str:
    """The documented example with `addition` at the end of its Understand stage."""
    return authoring_example().replace("# Build & Run\n", addition + "\n# Build & Run\n", 1)


def nested_notes(levels: int) -> str:
    """`levels` {note} blocks, each inside the one before (each fence one colon shorter)."""
    opening = "".join(":" * (levels + 3 - level) + "{note}\n" for level in range(levels))
    closing = "".join(":" * (level + 4) + "\n" for level in range(levels))
    return opening + "deep\n" + closing


def build_keeping_a_site(folder: CourseFolder, text: str) -> subprocess.CompletedProcess:
    folder.write(text)
    site = folder.root / "site"
    site.mkdir()
    (site / "index.html").write_text("the previous site")
    (site / ".coursesite").write_text("a site a build wrote")
    return folder.cli("-q")


def assert_refused_cleanly(result: subprocess.CompletedProcess, folder: CourseFolder) -> None:
    assert result.returncode == 1, result.stderr
    assert not re.search(r"^Traceback|RecursionError|internal error:", result.stderr, re.M), (
        result.stderr
    )
    assert "hint:" in result.stderr
    assert (folder.root / "site" / "index.html").read_text() == "the previous site"


def test_blocks_nested_thousands_deep_are_refused_at_the_block_past_the_limit(course_folder):
    text = with_prose(nested_notes(2000))
    result = build_keeping_a_site(course_folder, text)
    assert_refused_cleanly(result, course_folder)
    too_deep = line_of(text, "{note}", BLOCK_DEPTH_LIMIT + 1)
    assert (
        f"lesson.md:{too_deep}: this block is nested more than {BLOCK_DEPTH_LIMIT} blocks deep"
        in result.stderr
    ), result.stderr
    assert result.stderr.count("nested more than") == 1  # the blocks inside it go unread


def test_blocks_as_deep_as_the_limit_are_read(course_folder):
    result = build_keeping_a_site(course_folder, with_prose(nested_notes(BLOCK_DEPTH_LIMIT)))
    assert result.returncode == 1  # a {note} holds no {note}: a plain error, not the limit
    assert "{note} cannot go inside {note}" in result.stderr
    assert "nested more than" not in result.stderr


def test_emphasis_nested_a_thousand_deep_is_refused_at_its_line(course_folder):
    text = with_prose("A calm line.\n\n" + "*" * 2000 + "deep" + "*" * 2000 + "\n")
    result = build_keeping_a_site(course_folder, text)
    assert_refused_cleanly(result, course_folder)
    assert f"lesson.md:{line_of(text, '*deep*')}: Markdown nested more than 100 deep" in (
        result.stderr
    )


def test_two_million_braces_on_a_line_parse_in_linear_time():
    """mdit-py-plugins' role rule copied the rest of the paragraph at each position it was
    tried: a million `{` took 30 to 40 s to parse, four times as long at each doubling
    (a 1 MB line of `[` took minutes to build). Parsed in place, two million take seconds."""
    script = "from coursesite.markup.markdown import parse_nodes\nparse_nodes('{' * 2_000_000)"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
