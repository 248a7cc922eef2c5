"""The bad-input corpus (tests/bad/cases.yaml), run through the real command line."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, CourseFolder, authoring_example, line_of, no_traceback

CASES = yaml.safe_load((Path(__file__).parent / "bad" / "cases.yaml").read_text())


def apply(case: dict, folder: CourseFolder) -> tuple[Path, str]:
    """Write the example course with the case's change; return the changed file and text."""
    folder.write(authoring_example())
    path = folder.manifest if case["file"] == "manifest" else folder.lesson_path
    text = path.read_text()
    replacements = case.get("replace", [])
    for old, new in zip(replacements[::2], replacements[1::2], strict=True):
        assert old in text, f"case {case['case']!r}: {old!r} not in {path.name}"
        text = text.replace(old, new, 1)
    text += case.get("append", "")
    path.write_bytes(text.encode(case.get("encoding", "utf-8")))
    if "settings" in case:
        manifest = folder.manifest.read_text()
        folder.manifest.write_text(
            re.sub(r"  timeout_seconds: \d+\n", "  " + case["settings"] + "\n", manifest)
        )
    return path, text


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_bad_input_gets_a_clear_message_and_keeps_the_site(case, course_folder, tmp_path):
    path, text = apply(case, course_folder)
    previous = tmp_path / "site" / "index.html"
    previous.parent.mkdir()
    previous.write_text("the previous site")
    (previous.parent / ".coursesite").write_text("a site a build wrote")
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q", *case.get("arguments", [])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == case.get("exit", 1), result.stderr
    assert case["message"] in result.stderr, result.stderr
    for fragment in case.get("also", []):
        assert fragment in result.stderr, result.stderr
    for fragment in case.get("never", []):
        assert fragment not in result.stderr, result.stderr
    if case["line"]:
        line = line_of(text, case["line"], case.get("occurrence", 1))
        assert f"{path.name}:{line}: " in result.stderr, result.stderr
    else:  # "" means the error has no line, not that its line goes unchecked
        assert not re.search(r"\S+:\d+: ", result.stderr), result.stderr
    if result.returncode == 1:
        assert "hint:" in result.stderr, result.stderr
    assert not re.search(r"^Traceback", result.stderr, re.M), "a generator traceback leaked"
    assert "internal error:" not in result.stderr
    assert "coursesite/" not in result.stderr
    assert previous.read_text() == "the previous site"
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [".coursesite", "index.html"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]


def test_the_corpus_is_large_and_documented():
    assert len(CASES) >= 30
    table = (ROOT / "docs" / "reliability.md").read_text()
    missing = [case["case"] for case in CASES if f"| {case['case']} |" not in table]
    assert missing == []


def test_every_test_the_reliability_page_cites_exists():
    cited = set(re.findall(r"`(test_\w+)`", (ROOT / "docs" / "reliability.md").read_text()))
    defined = set(
        re.findall(
            r"^def (test_\w+)",
            "\n".join(path.read_text() for path in (ROOT / "tests").rglob("test_*.py")),
            re.M,
        )
    )
    assert len(cited) >= 10
    assert sorted(cited - defined) == []


def test_a_lesson_saved_with_a_byte_order_mark_builds(course_folder):
    course_folder.write(authoring_example())
    course_folder.lesson_path.write_bytes(b"\xef\xbb\xbf" + course_folder.lesson_path.read_bytes())
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr


def test_an_empty_cluster_address_is_refused_not_ignored(course_folder):
    course_folder.write(authoring_example())
    result = course_folder.cli("-q", "--cluster", "")
    assert result.returncode == 2
    assert "--cluster takes a scheduler's address" in result.stderr
    assert not (course_folder.root / "site").exists()


def test_a_build_with_its_output_closed_reports_on_stderr_without_a_traceback(course_folder):
    course_folder.write(authoring_example().replace("# Evidence", "# Evidenc"))
    result = subprocess.run(
        f"'{sys.executable}' '{ROOT / 'build.py'}' >&-",
        shell=True,
        cwd=course_folder.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "unknown stage 'Evidenc'" in result.stderr and no_traceback(result.stderr)


def python_running(code: str, folder: Path) -> subprocess.CompletedProcess:
    """`code` run by this Python in `folder`, the generator importable, temporary files
    (an internal error's report) in `folder` too."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(folder)},
    )


def test_a_python_without_the_requirements_is_told_where_to_run_the_build(tmp_path):
    """`python3 build.py` with a Python the requirements were never installed into (not the
    course's .venv) is no bug of the generator: the message names the Python, the module it
    lacks and where to run it; a module of the generator's own missing still is one."""
    for blocked, internal in (("msgspec", False), ("coursesite.cache.fingerprint", True)):
        run_without = (
            f"import sys; sys.modules[{blocked!r}] = None; sys.argv = ['build.py']\n"
            f"import runpy; runpy.run_path({str(ROOT / 'build.py')!r}, run_name='__main__')"
        )
        result = python_running(run_without, tmp_path)
        assert "Traceback" not in result.stderr
        if internal:
            assert result.returncode == 70 and "internal error" in result.stderr
            continue
        assert result.returncode == 1
        assert result.stderr.startswith(
            f"error: this Python ({sys.executable}) lacks the module msgspec, which the "
            "generator needs\n  hint: run it where its requirements are installed: `make site`"
        ), result.stderr
        assert list(tmp_path.glob("coursesite-internal-error-*")) == []


def test_a_bug_of_the_generator_is_said_as_one_with_its_traceback_kept_aside(tmp_path):
    """Whatever a command meets, a bug of ours ends it with a message, never a traceback on
    the terminal: the traceback goes to a file the message names, for a report."""
    crash = "import coursesite.cli as cli\ncli.main = lambda: [][0]\ncli.run()\n"
    result = python_running(crash, tmp_path)
    assert result.returncode == 70
    assert result.stderr.startswith(
        "error: internal error: IndexError: list index out of range\n  hint: this is a bug "
        "in the generator, not in your files; the details are in "
    ), result.stderr
    assert "Traceback" not in result.stderr
    [report] = tmp_path.glob("coursesite-internal-error-*.txt")
    assert str(report) in result.stderr
    assert report.read_text().startswith("Traceback (most recent call last):")
    assert "IndexError: list index out of range" in report.read_text()
