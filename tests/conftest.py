"""Shared fixtures: a throwaway course built around one lesson, and the real course."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coursesite import DEFAULT_THEME as THEME  # noqa: E402
from coursesite.config.manifest import Course, load_course  # noqa: E402
from coursesite.config.options import BuildOptions  # noqa: E402
from coursesite.progress import Progress  # noqa: E402


class RecordingProgress(Progress):
    """Keeps every lesson state change, so tests can read what the build reported."""

    def __init__(self):
        super().__init__()
        self.events: list[tuple[str, str, str]] = []
        self.messages: list[str] = []

    def message(self, text: str) -> None:
        self.messages.append(text)

    def changed(self, status) -> None:
        self.events.append((status.slug, status.state, status.detail))

    def final(self, slug: str) -> tuple[str, str]:
        state, detail = [(s, d) for name, s, d in self.events if name == slug][-1]
        return state, detail


def authoring_example() -> str:
    """The complete example lesson printed in docs/authoring.md."""
    doc = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    match = re.search(r"## A complete lesson\s+````markdown\n(.*?)\n````", doc, re.S)
    assert match, "docs/authoring.md lost its complete example"
    return match.group(1) + "\n"


MANIFEST = """\
course:
  title: Test course
  track: Testing
settings:
  record_packages: [numpy]
  # Stand-ins for hardware that lesson code reads from its environment: test_records.py,
  # test_cluster.py (the "tpu" worker's).
  pass_environment: [HAS_DEVICE, FAKE_TPU_HOST]
  timeout_seconds: {timeout}
phases:
  - id: "01"
    slug: basics
    title: Basics
    lessons:
      - slug: count-batches
        source: content/lesson.md
{extra}"""


HOSTILE = ROOT / "tests" / "hostile"


class CourseFolder:
    """A course folder in tmp_path with one lesson whose text each test chooses."""

    def __init__(self, root: Path):
        self.root = root
        self.manifest = root / "lessons.yaml"
        self.lesson_path = root / "content" / "lesson.md"

    def write(
        self, lesson_text: str, timeout: int = 120, extra: dict[str, str] | None = None
    ) -> Course:
        """Write the course; `extra` adds lessons (slug: text) after the first."""
        self.lesson_path.parent.mkdir(parents=True, exist_ok=True)
        self.lesson_path.write_text(lesson_text, encoding="utf-8")
        entries = ""
        for slug, text in (extra or {}).items():
            (self.root / "content" / f"{slug}.md").write_text(text, encoding="utf-8")
            entries += f"      - slug: {slug}\n        source: content/{slug}.md\n"
        self.manifest.write_text(MANIFEST.format(timeout=timeout, extra=entries), encoding="utf-8")
        return load_course(self.manifest)

    def cli(self, *arguments: str, timeout: int = 300) -> subprocess.CompletedProcess:
        """The real command line, `python build.py ARGUMENTS`, run in this course folder."""
        return subprocess.run(
            [sys.executable, str(ROOT / "build.py"), *arguments],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def options(self, **overrides) -> BuildOptions:
        settings = dict(
            manifest=self.manifest,
            out=self.root / "site",
            templates=THEME / "templates",
            static=THEME / "static",
            cache=self.root / ".cache",
            jobs=2,
        )
        settings.update(overrides)
        return BuildOptions(**settings)


@pytest.fixture
def course_folder(tmp_path: Path) -> CourseFolder:
    return CourseFolder(tmp_path)


def build_lesson(folder: CourseFolder, text: str, timeout: int = 120):
    """Build a one-lesson course through build(); return the record it committed."""
    from coursesite.execution import records
    from coursesite.pipeline import build

    folder.write(text, timeout=timeout)
    build(folder.options(), RecordingProgress())
    return records.load(folder.root / "records", "count-batches").record


def build_errors(folder: CourseFolder, text: str, timeout: int = 120) -> list:
    """The BuildErrors of building a one-lesson course through build()."""
    from coursesite.errors import BuildErrors
    from coursesite.pipeline import build

    folder.write(text, timeout=timeout)
    with pytest.raises(BuildErrors) as caught:
        build(folder.options(), RecordingProgress())
    return caught.value.errors


def replace_block(text: str, start_marker: str, new_block: str) -> str:
    """`text` with the block whose opening line starts with `start_marker` replaced."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(start_marker))
    fence = re.match(r":+", lines[start]).group(0)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].rstrip() == fence)
    return "".join(lines[:start]) + new_block + "".join(lines[end + 1 :])


def path_expression(path: Path) -> str:
    """Python code for the absolute `path` with no absolute-path literal in it: a literal
    makes main.py run after the lesson's own run (sharedpaths.py), and the tests that use
    this need the two processes running at once."""
    return f"('/' + {str(path)[1:]!r})"


def no_traceback(stderr: str) -> bool:
    """Whether a command's stderr is free of tracebacks and of the internal error a bug of
    the generator is reported as (cli.run keeps its traceback aside)."""
    return "Traceback" not in stderr and "internal error:" not in stderr


def line_of(text: str, fragment: str, occurrence: int = 1) -> int:
    """1-based number of the `occurrence`-th line of `text` containing `fragment`."""
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if fragment in line]
    assert len(lines) >= occurrence, f"{fragment!r} not found {occurrence} time(s)"
    return lines[occurrence - 1]


def write_hostile_course(folder: CourseFolder) -> None:
    """The documented example with a payload in every place an author writes text."""
    text = authoring_example()
    pairs = yaml.safe_load((HOSTILE / "replacements.yaml").read_text())
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in text, old
        text = text.replace(old, new, 1)
    folder.write(text)
    (folder.root / "content" / "guide.md").write_text((HOSTILE / "guide.md").read_text())
    manifest = folder.manifest.read_text()
    folder.manifest.write_text(
        manifest.replace("    title: Basics\n", "    title: Basics\n    guide: content/guide.md\n")
    )


GZIP_MAGIC = b"\x1f\x8b"


def everything_readable(site: Path) -> str:
    """All text in the site, including inside zip files and gzip-compressed files (the
    search index)."""
    texts = []
    for path in site.rglob("*"):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                texts += [
                    archive.read(name).decode(errors="replace") for name in archive.namelist()
                ]
        elif path.is_file():
            data = path.read_bytes()
            if data.startswith(GZIP_MAGIC):
                data = gzip.decompress(data)
            texts.append(data.decode(errors="replace"))
    return "\n".join(texts)


def search_entries(site: Path) -> dict[str, str]:
    """What the search page can find: each page's URL -> the text indexed of it, from every
    shard that pagefind/shards.json lists, without the stale entries it names (those of
    pages indexed again into the overlay). A page found twice fails."""
    listed = json.loads((site / "pagefind" / "shards.json").read_text())
    entries: dict[str, str] = {}
    for shard in listed["shards"]:
        for path in sorted((site / "pagefind" / shard / "fragment").iterdir()):
            if path.name.removesuffix(".pf_fragment") in listed.get("stale", []):
                continue
            fragment = json.loads(gzip.decompress(path.read_bytes())[len(b"pagefind_dcd") :])
            assert fragment["url"] not in entries, f"{fragment['url']} is found twice"
            entries[fragment["url"]] = fragment["content"]
    return entries


def build_real_course(*arguments: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """`python build.py -q ARGUMENTS` on the project's own course (lessons.yaml at ROOT)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The project's own course, built once for every test that only reads its site."""
    out = tmp_path_factory.mktemp("real") / "site"
    result = build_real_course("--out", str(out))
    assert result.returncode == 0, result.stderr
    return out
