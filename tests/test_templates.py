"""A course may bring its own templates: their mistakes are reported at their lines."""

import shutil

from conftest import THEME, authoring_example, line_of, no_traceback


def test_a_broken_template_is_reported_at_its_line(course_folder):
    course_folder.write(authoring_example())
    templates = course_folder.root / "templates"
    shutil.copytree(THEME / "templates", templates)
    page = templates / "lesson.html"
    text = page.read_text().replace(
        "{{ record.timestamp[:10] }}", "{{ record.timestamp[:10] }} {{ record.no_such_field.x }}", 1
    )
    page.write_text(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert no_traceback(result.stderr)
    assert f"lesson.html:{line_of(text, 'no_such_field')}: template error:" in result.stderr
    assert "no_such_field" in result.stderr and "hint: fix the template" in result.stderr


def test_a_step_numbered_with_a_leading_zero_is_that_step(course_folder):
    course_folder.write(authoring_example().replace(":::{step} 1. Make", ":::{step} 01. Make"))
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert 'id="step-1"' in page
