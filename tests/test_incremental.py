"""The execution cache and incremental pages, through the real build function."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, THEME, RecordingProgress, authoring_example, line_of
from coursesite.cache import parsecache
from coursesite.errors import BuildErrors
from coursesite.execution import executionkey as cache_module
from coursesite.pipeline import build

PAGE = "basics/count-batches/index.html"


def rebuild(folder, **overrides):
    progress = RecordingProgress()
    result = build(folder.options(**overrides), progress)
    return result, progress


@pytest.fixture
def built(course_folder):
    course_folder.write(authoring_example())
    result, _ = rebuild(course_folder)
    assert result.executed == ["count-batches"] and result.written
    return course_folder


def edit(folder, old, new):
    text = folder.lesson_path.read_text()
    assert old in text
    folder.lesson_path.write_text(text.replace(old, new))


def test_noop_rebuild_runs_nothing_and_writes_nothing(built):
    page = built.root / "site" / PAGE
    before = page.stat()
    result, progress = rebuild(built)
    assert result.executed == [] and result.cached == ["count-batches"]
    assert result.pages_rendered == 0 and not result.written
    after = page.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert any("up to date" in message for message in progress.messages)


def test_prose_edit_rerenders_the_page_without_running_code(built):
    edit(built, "Eleven records do not divide", "Eleven records never divide")
    result, progress = rebuild(built)
    assert result.executed == [] and progress.final("count-batches") == ("cached", "")
    assert "Eleven records never divide" in (built.root / "site" / PAGE).read_text()
    # Only the lesson's own files were rendered: its page, figure and downloads.
    own = [p for p in (built.root / "site" / "basics" / "count-batches").rglob("*") if p.is_file()]
    assert result.pages_rendered == len(own) and result.written


@pytest.mark.parametrize(
    "old, new, reason",
    [
        ("assert sizes == [4, 4, 3]\n", "assert sizes == [4, 4, 3], sizes\n", "step 2 changed"),
        ('print("Omitted:"', 'print("Left out:"', "'drop-the-remainder' changed"),
        (
            ":predict: How many records",
            ":raises: ValueError\n:predict: How many records",
            "'drop-the-remainder' changed",
        ),
    ],
)
def test_code_edit_reruns_and_says_which_block(built, old, new, reason):
    if "raises" in new:
        edit(built, 'print("Omitted:", np.setdiff1d(ids, kept).tolist())', 'raise ValueError("no")')
    edit(built, old, new)
    result, progress = rebuild(built)
    assert result.executed == ["count-batches"]
    assert progress.final("count-batches") == ("executed", reason)


def test_a_changed_raises_option_alone_runs_the_block_again(built):
    edit(built, 'print("Omitted:", np.setdiff1d(ids, kept).tolist())', 'raise ValueError("no")')
    edit(built, ":predict: How many records", ":raises: ValueError\n:predict: How many records")
    assert rebuild(built)[0].executed == ["count-batches"]
    # Only the declaration changes, not the code: the cached run raised what was declared
    # then, and only running the block again shows that it raises something else now.
    edit(built, ":raises: ValueError", ":raises: TypeError")
    progress = RecordingProgress()
    with pytest.raises(BuildErrors) as caught:
        build(built.options(), progress)
    assert "ValueError: no" in str(caught.value)
    assert ("count-batches", "running", "'drop-the-remainder' changed") in progress.events


def test_package_version_change_reruns(built, monkeypatch):
    original = cache_module.distribution_version
    monkeypatch.setattr(
        cache_module,
        "distribution_version",
        lambda name, *rest: "99.0" if name == "numpy" else original(name, *rest),
    )
    _, progress = rebuild(built)
    state, detail = progress.final("count-batches")
    assert state == "executed"
    assert re.fullmatch(r"numpy [\d.]+ → 99\.0", detail)


def test_settings_change_reruns(built):
    built.manifest.write_text(
        built.manifest.read_text().replace("timeout_seconds: 120", "timeout_seconds: 90")
    )
    _, progress = rebuild(built)
    assert progress.final("count-batches") == ("executed", "settings changed")


def test_data_file_and_local_module_are_part_of_the_key(course_folder):
    content = course_folder.root / "content"
    content.mkdir()
    (content / "sizes.txt").write_text("4 4 3")
    (content / "helpers.py").write_text("def total(xs):\n    return sum(xs)\n")
    text = authoring_example().replace("revision: v0.1.0", "revision: v0.1.0\nfiles: [sizes.txt]")
    text = text.replace(
        'print("Batch sizes:", sizes)',
        'import helpers\nprint("Batch sizes:", sizes, open("sizes.txt").read(), '
        "helpers.total(sizes))",
    )
    course_folder.write(text)
    rebuild(course_folder)
    assert "4 4 3 11" in (course_folder.root / "site" / PAGE).read_text()
    (content / "sizes.txt").write_text("4 4 3 ")
    _, progress = rebuild(course_folder)
    assert progress.final("count-batches") == ("executed", "file sizes.txt changed")
    (content / "helpers.py").write_text("def total(xs):\n    return -sum(xs)\n")
    _, progress = rebuild(course_folder)
    assert progress.final("count-batches") == ("executed", "file helpers.py changed")
    assert "4 4 3  -11" in (course_folder.root / "site" / PAGE).read_text()


def test_corrupted_cache_entry_is_recomputed(built):
    entry = built.root / ".cache" / "records" / "count-batches.json"
    entry.write_text(entry.read_text()[:200])
    _, progress = rebuild(built)
    state, detail = progress.final("count-batches")
    assert state == "executed" and f"damaged cache entry {entry}" in detail
    assert json.loads(entry.read_text())["record"]["lesson"] == "count-batches"


def test_template_change_rerenders_every_page_but_keeps_the_downloads(built, tmp_path):
    templates = tmp_path / "templates"
    shutil.copytree(THEME / "templates", templates)
    base = templates / "base.html"
    base.write_text(base.read_text().replace("Built from executable lessons", "Rebuilt"))
    site = built.root / "site"
    notebook = site / "basics" / "count-batches" / "lesson.ipynb"
    before = notebook.stat().st_ino
    result, _ = rebuild(built, templates=templates)
    assert result.executed == []
    pages = [p for p in site.rglob("*.html") if "pagefind" not in p.parts]
    assert len(pages) >= 5 and all("Rebuilt" in p.read_text() for p in pages)
    assert notebook.stat().st_ino == before  # kept (hard-linked), not rendered again
    lesson_md = templates / "lesson.md"
    lesson_md.write_text(lesson_md.read_text() + "\nEdited.\n")
    rebuild(built, templates=templates)
    assert notebook.stat().st_ino != before  # a Markdown template does feed the downloads
    assert (site / "basics" / "count-batches" / "lesson.md").read_text().endswith("Edited.\n")


def test_deleted_site_file_is_restored(built):
    (built.root / "site" / "basics" / "index.html").unlink()
    result, _ = rebuild(built)
    assert result.written and (built.root / "site" / "basics" / "index.html").is_file()


def test_force_reruns_everything(built):
    result, progress = rebuild(built, force=True)
    assert result.executed == ["count-batches"]
    assert progress.final("count-batches") == ("executed", "--force")


def test_unknown_lesson_for_only(built):
    with pytest.raises(BuildErrors) as caught:
        rebuild(built, only="count-batchs")
    assert "did you mean 'count-batches'" in str(caught.value)


def second_lesson() -> str:
    text = authoring_example().replace("title: Count what a batch holds", "title: Second")
    return text.replace("PASS: count-batches", "PASS: second")


def test_only_runs_the_named_lesson(course_folder):
    course_folder.write(authoring_example(), extra={"second": second_lesson()})
    rebuild(course_folder)
    edit(course_folder, "assert sizes == [4, 4, 3]\n", "assert sizes == [4, 4, 3], 'x'\n")
    (course_folder.root / "content" / "second.md").write_text(
        second_lesson().replace("assert sizes == [4, 4, 3]\n", "assert len(sizes) == 3\n")
    )
    result, progress = rebuild(course_folder, only="second")
    assert result.executed == ["second"]
    state, detail = progress.final("count-batches")
    assert state == "cached" and detail.startswith("stale (step 2 changed)")


def test_only_with_force_reruns_just_that_lesson(course_folder):
    course_folder.write(authoring_example(), extra={"second": second_lesson()})
    rebuild(course_folder)
    result, progress = rebuild(course_folder, only="second", force=True)
    assert result.executed == ["second"] and result.cached == ["count-batches"]
    assert progress.final("second") == ("executed", "--force")
    assert progress.final("count-batches") == ("cached", "")


def test_only_names_the_command_when_another_lesson_never_ran(course_folder):
    course_folder.write(authoring_example())
    rebuild(course_folder)
    course_folder.write(authoring_example(), extra={"second": second_lesson()})
    with pytest.raises(BuildErrors) as caught:
        rebuild(course_folder, only="count-batches", force=True)
    [error] = caught.value.errors
    assert error.message == (
        "lesson 'second' has never run, so --lesson count-batches cannot take its record "
        "from the cache"
    )
    assert "coursesite build), then use --lesson" in error.hint


def normalized_site(folder) -> dict[str, str]:
    """Site files with the run's timestamps and timings taken out."""
    files = {}
    for path in sorted((folder / "site").rglob("*")):
        if path.is_file() and path.suffix == ".zip":
            files[str(path.relative_to(folder / "site"))] = "zip"
        elif path.is_file() and "pagefind" not in path.parts:
            text = path.read_text()
            text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "TIME", text)
            text = re.sub(r'"(wall_)?seconds": [0-9.e-]+', "SECONDS", text)
            text = re.sub(r"ran in [0-9.]+ m?s", "ran in SECONDS", text)  # "Recorded execution"
            files[str(path.relative_to(folder / "site"))] = text
    return files


def test_parallel_and_serial_builds_give_the_same_site(course_folder, tmp_path):
    course_folder.write(authoring_example(), extra={"second": second_lesson()})
    rebuild(
        course_folder, jobs=1, out=course_folder.root / "serial" / "site", cache=tmp_path / "c1"
    )
    rebuild(
        course_folder, jobs=2, out=course_folder.root / "parallel" / "site", cache=tmp_path / "c2"
    )
    serial = normalized_site(course_folder.root / "serial")
    assert len(serial) >= 9
    assert serial == normalized_site(course_folder.root / "parallel")


def run_cli(folder, *arguments):
    return folder.cli(*arguments)


def test_cli_noop_fast_path_notices_any_input_change(built):
    first = run_cli(built)
    assert first.returncode == 0, first.stderr
    assert "no input changed" in run_cli(built).stdout
    edit(built, "Eleven records do not divide", "Eleven records cannot divide")
    after_edit = run_cli(built)
    assert "no input changed" not in after_edit.stdout and "wrote" in after_edit.stdout
    assert "Eleven records cannot divide" in (built.root / "site" / PAGE).read_text()
    (built.root / "site" / PAGE).unlink()
    assert "no input changed" not in run_cli(built).stdout
    assert (built.root / "site" / PAGE).is_file()


def test_formulas_are_converted_once_and_the_memo_follows_the_course(built):
    memo_file = next((built.root / ".cache" / "mathml").glob("latex2mathml-*.json"))
    assert "inline\x0011 - 8 = 3" in json.loads(memo_file.read_text())
    edit(built, "the remainder of $11 / 4$", "what $11 / 4$ leaves")  # prose only
    rebuild_in_fresh_process = (
        "import sys\nfrom coursesite.cli import main\nmain(['-q'])\n"
        "print('latex2mathml' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", rebuild_in_fresh_process],
        cwd=built.root,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "False", done.stderr  # every formula came from the memo
    page = (built.root / "site" / PAGE).read_text()
    assert "<mn>11</mn><mo>/</mo><mn>4</mn></mrow></math></span> leaves." in page
    edit(built, "$11 - 8 = 3$", "$12 - 8 = 4$")
    rebuild(built)
    memo = json.loads(memo_file.read_text())
    assert "inline\x0012 - 8 = 4" in memo and "inline\x0011 - 8 = 3" not in memo


def test_only_changed_lesson_files_are_parsed_again(course_folder, monkeypatch):
    parsed = []
    original = parsecache.parse_lesson
    monkeypatch.setattr(
        parsecache,
        "parse_lesson",
        lambda ref, *rest: parsed.append(ref.slug) or original(ref, *rest),
    )
    second = authoring_example().replace("Count what a batch holds", "Count again")
    course_folder.write(authoring_example(), extra={"count-again": second})
    rebuild(course_folder)
    assert sorted(parsed) == ["count-again", "count-batches"]
    parsed.clear()
    edit(course_folder, "the remainder of", "what is left of")
    rebuild(course_folder)
    assert parsed == ["count-batches"]
    # A lesson moved in the course keeps its parse but takes its new place.
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(manifest.replace('- id: "01"', '- id: "07"'))
    rebuild(course_folder)
    assert parsed == ["count-batches"]
    assert (
        "07.02"
        in (course_folder.root / "site" / "basics" / "count-again" / "index.html").read_text()
    )
    # The parser's own code is part of the key.
    monkeypatch.setattr(parsecache, "parser_version", lambda: "another parser")
    rebuild(course_folder)
    assert sorted(parsed) == ["count-again", "count-batches", "count-batches"]


def test_cached_parse_still_notices_a_missing_data_file(course_folder):
    (course_folder.root / "content").mkdir()
    (course_folder.root / "content" / "sizes.txt").write_text("4 4 3")
    # sizes.txt is named in the summary first: only the YAML's own marks find the entry.
    course_folder.write(
        authoring_example()
        .replace("revision: v0.1.0", "revision: v0.1.0\nfiles:\n  - sizes.txt")
        .replace("summary: Batch", "summary: Read sizes.txt. Batch")
    )
    rebuild(course_folder)
    (course_folder.root / "content" / "sizes.txt").unlink()
    with pytest.raises(BuildErrors) as caught:
        rebuild(course_folder)
    [error] = caught.value.errors
    assert "data file 'sizes.txt' not found" in error.message
    assert error.line == line_of(course_folder.lesson_path.read_text(), "- sizes.txt")


@pytest.mark.parametrize("damaged", ["count-batches.pickle", "outlines.msgpack"])
def test_damaged_parse_cache_entry_is_parsed_again(built, tmp_path, damaged):
    entry = built.root / ".cache" / "parsed" / damaged
    entry.write_bytes(b"not a pickle")
    # The lesson file is unchanged: only the entry is bad. A new template makes the build
    # need the whole lesson again, which only the pickle holds.
    templates = tmp_path / "templates"
    shutil.copytree(THEME / "templates", templates)
    base = templates / "base.html"
    base.write_text(base.read_text().replace("Built from executable lessons", "Built, run"))
    result, progress = rebuild(built, templates=templates)
    assert result.cached == ["count-batches"] and result.pages_rendered
    assert entry.read_bytes() != b"not a pickle"
    assert "Eleven records do not divide" in (built.root / "site" / PAGE).read_text()
    if damaged.endswith(".pickle"):
        assert any(str(entry) in message for message in progress.messages)


def test_prose_kept_between_builds_is_what_a_fresh_build_renders(course_folder, tmp_path):
    """Pages re-rendered with the prose memo (caches.ProseMemo) equal a fresh build's, and
    a change elsewhere that changes a lesson's prose HTML (the title a {doc} link shows)
    is not served from it."""
    other = authoring_example().replace("title: Count what a batch holds", "title: Other")
    linking = authoring_example().replace(
        "Eleven records do not divide", "See {doc}`other`. Eleven records do not divide"
    )
    course_folder.write(linking, extra={"other": other})
    rebuild(course_folder)
    page = (course_folder.root / "site" / PAGE).read_text()
    assert re.search(r"See <a [^>]*>Other</a>", page)
    assert any((course_folder.root / ".cache" / "prose").iterdir())
    # Every page rendered again, its prose from the memo: the same bytes.
    template = tmp_path / "templates"
    shutil.copytree(THEME / "templates", template)
    base = template / "base.html"
    assert "</footer>" in base.read_text()
    base.write_text(base.read_text().replace("</footer>", "<!-- v2 --></footer>"))
    result, _ = rebuild(course_folder, templates=template)
    assert result.pages_rendered > 0
    again = (course_folder.root / "site" / PAGE).read_text()
    assert again.replace("<!-- v2 -->", "") == page
    # The other lesson's new title must reach this page's prose, not the memo's old HTML.
    path = course_folder.root / "content" / "other.md"
    path.write_text(path.read_text().replace("title: Other", "title: Renamed"))
    rebuild(course_folder, templates=template)
    assert re.search(r"See <a [^>]*>Renamed</a>", (course_folder.root / "site" / PAGE).read_text())


def test_an_unchanged_lesson_keeps_its_warnings_and_its_errors(built):
    """Validation remembers a lesson and record that passed it (the parse cache), so an
    unchanged lesson is not loaded to be checked again: its warnings are reported by
    every build all the same, and a lesson that failed fails again."""
    edit(built, "Eleven records do not divide", "TODO: say why eleven records do not divide")
    first, _ = rebuild(built)
    second, _ = rebuild(built)
    todo = [(w.message, w.line) for w in first.warnings if "TODO" in w.message]
    assert todo and todo == [(w.message, w.line) for w in second.warnings if "TODO" in w.message]
    # What else the checks read is part of what they remember: here, the code width.
    manifest = built.manifest.read_text()
    built.manifest.write_text(manifest.replace("settings:\n", "settings:\n  code_width: 30\n"))
    narrow, _ = rebuild(built)
    assert not [w for w in first.warnings if "longer than" in w.message]
    assert [w for w in narrow.warnings if "longer than 30" in w.message]
    # An :alt: on a block that draws nothing changes the text, not the code: the record
    # stays cached, and the check fails, build after build.
    edit(
        built,
        ":expected: Eight records survive",
        ":alt: A chart.\n:expected: Eight records survive",
    )
    for _ in range(2):
        with pytest.raises(BuildErrors) as caught:
            rebuild(built)
        assert any(
            "has an :alt: option but shows no image" in e.message for e in caught.value.errors
        )
