"""Themes: the course's templates/ and static/ override the theme's files one by one, and an
override may extend the theme's own template to change a single block."""

from conftest import THEME, authoring_example

FOOTER_OVERRIDE = """\
{% extends "theme/base.html" %}
{% block footer %}
{{ super() }}
  <p class="course-licence">Text and code of this course: CC BY 4.0.</p>
{% endblock %}
"""
# What the override adds: the line after `{{ super() }}`'s newline, and that line.
LICENCE = '\n  <p class="course-licence">Text and code of this course: CC BY 4.0.</p>\n'


def pages(site):
    return {
        str(path.relative_to(site)): path.read_text()
        for path in sorted(site.rglob("*.html"))
        if "pagefind" not in path.parts
    }


def test_one_overridden_template_changes_only_its_block_on_every_page(course_folder):
    course_folder.write(authoring_example())
    assert course_folder.cli("-q").returncode == 0
    before = pages(course_folder.root / "site")
    (course_folder.root / "templates").mkdir()
    (course_folder.root / "templates" / "base.html").write_text(FOOTER_OVERRIDE)
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    after = pages(course_folder.root / "site")
    assert after.keys() == before.keys() and len(after) >= 5
    for name, html in after.items():
        assert html.count(LICENCE) == 1, name
        assert html.replace(LICENCE, "") == before[name], name


def test_a_static_file_of_the_course_replaces_the_themes_and_no_other(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "static").mkdir()
    icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1"/></svg>'
    (course_folder.root / "static" / "favicon.svg").write_text(icon)
    assert course_folder.cli("-q").returncode == 0
    published = course_folder.root / "site" / "static"
    assert (published / "favicon.svg").read_text() == icon
    theme = THEME / "static"
    others = sorted(p.name for p in theme.iterdir() if p.name != "favicon.svg")
    assert others and sorted(p.name for p in published.iterdir()) == sorted(
        [*others, "favicon.svg"]
    )
    for name in others:
        assert (published / name).read_bytes() == (theme / name).read_bytes()


def test_a_broken_override_is_an_error_at_its_own_line(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "templates").mkdir()
    broken = FOOTER_OVERRIDE.replace("{{ super() }}", "{{ super() }}\n{{ no_such_thing.x }}")
    (course_folder.root / "templates" / "base.html").write_text(broken)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert "templates/base.html:4: template error" in result.stderr, result.stderr
