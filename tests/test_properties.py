"""Property tests: for any input, the parser returns a lesson or raises our own error with a
location; it never crashes with another exception."""

from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import CourseFolder
from coursesite.config.manifest import load_course
from coursesite.errors import BuildErrors
from coursesite.lesson.parse import parse_lesson

FRONT = (
    "---\ntitle: T\nsummary: S\nminutes: 5\nhardware: cpu\noutcomes: [o]\n"
    "expected_result: E\nrevision: v1\n---\n"
)
FRAGMENTS = [
    "# Understand",
    "# Build & Run",
    "# Experiment",
    "# Exercise & Check",
    "# Evidence",
    "# Stage",
    "## A section",
    "### Sub",
    "Plain text ünïcödé ✓ 漢字",
    "",
    "",
    ":::{step} 1. First",
    ":::{step} 2. Second",
    ":::{step} x",
    ":::{experiment} E",
    "::::{figure} F",
    ":::{read}",
    ":::{connect}",
    "::::{exercise} X",
    ":::{hint}",
    ":::{check} Q?",
    ":::{pause} Why?",
    ":::{diagnose}",
    ":::{carry-forward}",
    ":::{evidence}",
    ":::{unknown}",
    ":::",
    "::::",
    ":::::",
    ":predict: p",
    ":expected: e",
    ":kind: transfer",
    ":alt: a",
    ":raises: ValueError",
    ":bogus: b",
    "```python",
    "```python scaffold",
    "```python solution",
    "```text",
    "```",
    "~~~",
    "x = 1",
    "print('hi')",
    "def f(:",
    "figure = {'kind': 'bar'}",
    "- [x] right",
    "- [ ] wrong",
    "- item",
    "$x^2$",
    "$$",
    "\\frac{",
    "$\\frac{1}{$",
    "[link](lesson:missing#anchor)",
    "{value}`x + 1`",
    "{value}`(`",
    "| a | b |",
    "|---|---|",
    "<script>alert(1)</script>",
    "\t\tindented",
    "---",
]
lesson_bodies = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=30), max_size=60)


def assert_located(errors: BuildErrors, path: Path, line_count: int) -> None:
    assert errors.errors, "BuildErrors without any error"
    for error in errors.errors:
        assert error.path is not None and Path(error.path).name == path.name
        assert error.line is not None and 1 <= error.line <= line_count + 1, error
        assert error.message


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(body=lesson_bodies, with_front=st.booleans())
# Random bodies seldom hold all five stages, so the whole-lesson checks get their own examples.
@example(
    body=["# Understand", "# Build & Run", "# Experiment", "# Exercise & Check", "# Evidence"],
    with_front=True,
)
@example(
    body=[
        "# Understand",
        "# Build & Run",
        ":::{step} 2. Second",
        "```python",
        "x = 1",
        "```",
        ":::",
        "# Experiment",
        "# Exercise & Check",
        "# Evidence",
    ],
    with_front=True,
)
def test_any_lesson_text_parses_or_fails_with_a_location(tmp_path_factory, body, with_front):
    folder = CourseFolder(tmp_path_factory.mktemp("prop"))
    text = (FRONT if with_front else "") + "\n".join(body) + "\n"
    course = folder.write(text)
    try:
        lesson = parse_lesson(course.lessons[0])
    except BuildErrors as errors:
        assert_located(errors, folder.lesson_path, len(text.splitlines()))
    else:
        assert [s.title for s in lesson.stages] == [
            "Understand",
            "Build & Run",
            "Experiment",
            "Exercise & Check",
            "Evidence",
        ]


KEYS = [
    "course",
    "title",
    "track",
    "description",
    "settings",
    "phases",
    "id",
    "slug",
    "lessons",
    "source",
    "guide",
    "timeout_seconds",
    "record_packages",
    "titel",
    "x",
]
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from(["basics", "content/lesson.md", "../x", "Title", "01", "A b"])
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(KEYS), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=values | st.text(max_size=200))
def test_any_manifest_loads_or_fails_with_a_location(tmp_path_factory, document):
    folder = tmp_path_factory.mktemp("manifest")
    (folder / "content").mkdir()
    (folder / "content" / "lesson.md").write_text(FRONT)
    text = document if isinstance(document, str) else yaml.safe_dump(document)
    manifest = folder / "lessons.yaml"
    manifest.write_text(text)
    try:
        load_course(manifest)
    except BuildErrors as errors:
        assert_located(errors, manifest, len(text.splitlines()))
