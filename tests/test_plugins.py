"""Plugins: a module of the course folder, named under `plugins:` in lessons.yaml, adds a
block kind and its templates without any change to the package (tests/plugin/ is such a
course-local plugin, copied into each test's course)."""

import shutil

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, authoring_example, line_of

PLUGIN = ROOT / "tests" / "plugin"
DEMO_BLOCK = """\
:::{demo} Count the answer
:note: See [the figure](#batch-sizes) first.

```python
print("demo says", 6 * 7)
```

The demo printed the `<answer>`.
:::

"""


def with_plugin(course_folder, plugins="plugins: [course_blocks]\n"):
    text = authoring_example().replace(
        "\n# Exercise & Check\n", "\n" + DEMO_BLOCK + "# Exercise & Check\n"
    )
    course_folder.write(text)
    for item in PLUGIN.iterdir():
        copy = shutil.copytree if item.is_dir() else shutil.copy
        copy(item, course_folder.root / item.name)
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(manifest.replace("phases:\n", plugins + "phases:\n", 1))
    return text


def page(course_folder):
    html = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    return BeautifulSoup(html, "html.parser")


def test_a_course_local_plugin_adds_a_block_kind_that_runs_and_renders(course_folder):
    with_plugin(course_folder)
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    section = page(course_folder).select_one("#experiment section.demo#count-the-answer")
    assert section.select_one(".output pre").get_text() == "demo says 42\n"
    assert section.select_one(".demo-note a")["href"] == "#batch-sizes"
    assert "The demo printed the <code>&lt;answer&gt;</code>." in str(section)
    download = (course_folder.root / "site" / "basics" / "count-batches" / "lesson.md").read_text()
    assert "### Demo: Count the answer" in download


def test_editing_a_plugin_template_changes_the_page_on_the_next_build(course_folder):
    with_plugin(course_folder)
    assert course_folder.cli("-q").returncode == 0
    template = course_folder.root / "plugin_templates" / "blocks" / "demo.html"
    template.write_text(template.read_text().replace('class="demo"', 'class="demo demo-v2"'))
    assert course_folder.cli("-q").returncode == 0
    assert page(course_folder).select_one("section.demo-v2#count-the-answer") is not None


def test_without_the_plugin_the_block_is_an_error_at_its_line(course_folder):
    text = with_plugin(course_folder, plugins="")
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert f"lesson.md:{line_of(text, ':::{demo}')}: " in result.stderr


@pytest.mark.parametrize(
    ("plugins", "source", "message"),
    [
        ("plugins: [course_blockz]\n", None, "plugin 'course_blockz' not found"),
        ("plugins: [../evil]\n", None, "'../evil' is not a module name"),
        ("plugins: [course_blocks]\n", "def register(api):\n    1 / 0\n", "ZeroDivisionError"),
        ("plugins: [course_blocks]\n", "x = 1\n", "has no register(api) function"),
    ],
)
def test_a_plugin_that_cannot_load_is_named_at_its_manifest_line(
    course_folder, plugins, source, message
):
    with_plugin(course_folder, plugins)
    if source is not None:
        (course_folder.root / "course_blocks.py").write_text(source)
    result = course_folder.cli("-q")
    assert result.returncode == 1, result.stderr
    assert message in result.stderr
    manifest = course_folder.manifest.read_text()
    assert f"lessons.yaml:{line_of(manifest, 'plugins:')}: " in result.stderr
    assert "Traceback" not in result.stderr and "coursesite/" not in result.stderr
    if source and "1 / 0" in source:
        assert 'course_blocks.py", line 2, in register' in result.stderr
