from pathlib import Path

import pytest

from conftest import ROOT, line_of
from coursesite.config.manifest import load_course
from coursesite.errors import BuildErrors

VALID = """\
course:
  title: A course
  track: A track
phases:
  - id: "06"
    slug: recovery
    title: Recovery
    lessons:
      - slug: first-lesson
        source: first.md
      - slug: second-lesson
        source: second.md
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "first.md").write_text("x")
    (tmp_path / "second.md").write_text("x")
    manifest = tmp_path / "lessons.yaml"
    manifest.write_text(text)
    return manifest


def errors_of(manifest: Path) -> list:
    with pytest.raises(BuildErrors) as caught:
        load_course(manifest)
    return caught.value.errors


def test_real_manifest_orders_and_numbers_lessons():
    course = load_course(ROOT / "lessons.yaml")
    assert [ref.number for ref in course.lessons] == [
        "06.01",
        "06.02",
        "06.03",
        "06.04",
        "06.05",
        "06.06",
    ]
    assert course.lessons[1].url == "recovery/load-batch-and-checkpoint-order-with-grain/index.html"
    assert [(ref.index, ref.count) for ref in course.lessons] == [(i, 6) for i in range(1, 7)]
    assert course.settings.record_packages == ["jax", "grain", "numpy"]


def test_defaults_apply_when_settings_are_omitted(tmp_path):
    course = load_course(write(tmp_path, VALID))
    assert course.settings.timeout_seconds == 600
    assert course.lesson("second-lesson").source == tmp_path / "second.md"


def test_unknown_key_names_line_and_suggests_the_right_one(tmp_path):
    text = VALID.replace("    title: Recovery", "    titel: Recovery")
    [error] = [e for e in errors_of(write(tmp_path, text)) if "unknown key" in e.message]
    assert "'titel'" in error.message and "did you mean 'title'" in error.message
    assert error.line == line_of(text, "titel:")
    assert error.path.name == "lessons.yaml"


def test_missing_required_key_is_reported_at_its_parent(tmp_path):
    text = VALID.replace("  track: A track\n", "")
    [error] = errors_of(write(tmp_path, text))
    assert "missing required key 'track'" in error.message
    assert error.line == line_of(text, "course:")


def test_duplicate_lesson_slug_points_at_the_second(tmp_path):
    text = VALID.replace("slug: second-lesson", "slug: first-lesson")
    [error] = errors_of(write(tmp_path, text))
    assert "duplicate lesson slug 'first-lesson'" in error.message
    assert error.line == line_of(text, "source: second.md") - 1


@pytest.mark.parametrize("slug", ["../escape", "/abs/path", "Has Space", "a/b"])
def test_slug_that_could_leave_the_output_folder_is_rejected(tmp_path, slug):
    text = VALID.replace("slug: first-lesson", f"slug: '{slug}'")
    [error] = errors_of(write(tmp_path, text))
    assert error.line == line_of(text, slug)
    assert "slug" in error.message


def test_missing_lesson_file_names_the_entry(tmp_path):
    manifest = write(tmp_path, VALID)
    (tmp_path / "second.md").unlink()
    [error] = errors_of(manifest)
    assert "lesson file 'second.md' not found" in error.message
    assert error.line == line_of(VALID, "source: second.md")


@pytest.mark.parametrize(
    "broken, opened",
    [
        ("    title: [Recovery", "[Recovery"),  # YAML notices the unclosed '[' a line later
        ("    title: 'Recovery", "'Recovery"),  # ... and an unclosed quote at the end of the file
        ("    title: Recovery\n   x: 1", "   x: 1"),  # bad indentation: the line itself
    ],
)
def test_malformed_yaml_reports_the_line_of_the_mistake(tmp_path, broken, opened):
    text = VALID.replace("    title: Recovery", broken)
    [error] = errors_of(write(tmp_path, text))
    assert "invalid YAML" in error.message
    assert error.line == line_of(text, opened)


def test_missing_manifest_says_how_to_fix(tmp_path):
    [error] = errors_of(tmp_path / "lessons.yaml")
    assert "not found" in error.message and "--manifest" in error.hint


@pytest.mark.parametrize(
    "field, value",
    [
        (
            "slug: first-lesson",
            "slug: |\n          first-lesson\n",
        ),  # a block scalar: "first-lesson\n"
        ("slug: first-lesson", 'slug: "first-lesson\\n"'),
        ("slug: recovery", 'slug: "recovery\\n"'),
        ('id: "06"', 'id: "06\\n"'),
    ],
)
def test_a_trailing_newline_is_not_part_of_a_valid_slug_or_id(tmp_path, field, value):
    text = VALID.replace(field, value, 1)
    [error] = errors_of(write(tmp_path, text))
    assert error.line == line_of(text, value.split("\n")[0])
    assert "is not a slug" in error.message or "is not a phase id" in error.message


@pytest.mark.parametrize(
    "key, outside",
    [
        ("source", "/etc/hostname"),
        ("source", "../outside.md"),
        ("guide", "/proc/self/environ"),
    ],
)
def test_manifest_paths_outside_the_course_folder_are_refused(tmp_path, key, outside):
    course = tmp_path / "course"
    course.mkdir()
    (tmp_path / "outside.md").write_text("x")
    text = (
        VALID.replace("    title: Recovery", f"    title: Recovery\n    guide: {outside}")
        if key == "guide"
        else VALID.replace("source: second.md", f"source: {outside}")
    )
    [error] = errors_of(write(course, text))
    assert f"'{outside}' is outside the course folder" in error.message
    assert error.line == line_of(text, f"{key}: {outside}")
    assert "inside the folder of lessons.yaml" in error.hint


def test_a_symlink_out_of_the_course_folder_is_followed_and_refused(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (tmp_path / "secret.md").write_text("x")
    manifest = write(course, VALID)
    (course / "second.md").unlink()
    (course / "second.md").symlink_to(tmp_path / "secret.md")
    [error] = errors_of(manifest)
    assert "'second.md' is outside the course folder" in error.message
    assert error.line == line_of(VALID, "source: second.md")


def test_a_symlink_within_the_course_folder_is_fine(tmp_path):
    manifest = write(tmp_path, VALID)
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "real.md").write_text("x")
    (tmp_path / "second.md").unlink()
    (tmp_path / "second.md").symlink_to(tmp_path / "lessons" / "real.md")
    assert load_course(manifest).lesson("second-lesson").source == tmp_path / "second.md"
