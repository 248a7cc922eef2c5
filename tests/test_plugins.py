"""Plugins: a module of the course folder, named under `plugins:` in lessons.yaml, adds a
block kind and its templates without any change to the package (tests/plugin/ is such a
course-local plugin, copied into each test's course)."""

import shutil

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, authoring_example, line_of, no_traceback

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
        (
            "plugins: [course_blocks]\n",
            "def register(api):\n    api.device_probe('jax', 'JAX', 'course_blocks.py')\n",
            "ValueError: the module 'jax' has a device probe already",
        ),
        (
            "plugins: [course_probes, course_blocks]\n",
            "def register(api):\n    api.device_probe('fakeaccel', 'F', 'fakeaccel_probe.py')\n",
            "plugin 'course_blocks' adds a device probe for 'fakeaccel', which plugin "
            "'course_probes' probes already",
        ),
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
    assert no_traceback(result.stderr) and "coursesite/" not in result.stderr
    if source and "1 / 0" in source:
        assert 'course_blocks.py", line 2, in register' in result.stderr


HOOKED = "plugins: [course_blocks, course_hooks]\n"
HOOKS = PLUGIN / "course_hooks.py"


def site_files(course_folder):
    site = course_folder.root / "site"
    return {path: path.read_bytes() for path in site.rglob("*") if path.is_file()}


def test_build_hooks_change_the_course_each_page_and_the_site(course_folder):
    with_plugin(course_folder, HOOKED)
    assert course_folder.cli("-q").returncode == 0
    lesson = page(course_folder)
    assert "(hooked)" in lesson.title.get_text()
    meta = lesson.select_one('meta[name="hooked"]')["content"]
    assert meta == "basics/count-batches/index.html count-batches"
    site = course_folder.root / "site"
    home = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    assert home.select_one('meta[name="hooked"]')["content"] == "index.html "
    listed = (site / "pages.txt").read_text().split()
    assert "index.html" in listed and "basics/count-batches/index.html" in listed
    # A build that renders one page again still runs on_site on the whole new site.
    course_folder.lesson_path.write_text(course_folder.lesson_path.read_text() + "\nMore.\n")
    assert course_folder.cli("-q").returncode == 0
    assert (site / "pages.txt").read_text().split() == listed


def test_editing_a_hook_renders_the_pages_again(course_folder):
    with_plugin(course_folder, HOOKED)
    assert course_folder.cli("-q").returncode == 0
    hooks = course_folder.root / "course_hooks.py"
    hooks.write_text(hooks.read_text().replace('name="hooked"', 'name="hooked-v2"'))
    assert course_folder.cli("-q").returncode == 0
    assert page(course_folder).select_one('meta[name="hooked-v2"]') is not None


def test_an_on_lesson_hook_reports_a_problem_at_the_lessons_line(course_folder):
    with_plugin(course_folder, HOOKED)
    assert course_folder.cli("-q").returncode == 0
    before = site_files(course_folder)
    text = course_folder.lesson_path.read_text().replace('"demo says"', '"TODO"')
    course_folder.lesson_path.write_text(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    line = line_of(text, 'print("TODO"')
    assert f"lesson.md:{line}: demo 'Count the answer' printed TODO" in result.stderr
    assert site_files(course_folder) == before


@pytest.mark.parametrize(
    ("event", "statement"),
    [
        ("on_config", "    info = msgspec"),
        ("on_lesson", "    for block in lesson"),
        ("on_page", "    slug = page"),
        ("on_site", "    site.write("),
    ],
)
def test_a_hook_that_raises_is_named_at_its_line_and_leaves_the_site(
    course_folder, event, statement
):
    with_plugin(course_folder, HOOKED)
    assert course_folder.cli("-q").returncode == 0
    before = site_files(course_folder)
    hooks = course_folder.root / "course_hooks.py"
    source = hooks.read_text().replace(statement, "    1 / 0\n" + statement, 1)
    hooks.write_text(source)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert f"plugin 'course_hooks': its {event} hook failed: ZeroDivisionError" in result.stderr
    assert f"course_hooks.py:{line_of(source, '1 / 0')}: " in result.stderr
    assert no_traceback(result.stderr) and "coursesite/" not in result.stderr
    assert site_files(course_folder) == before


def test_a_hook_for_no_event_is_refused_at_the_manifest_line(course_folder):
    with_plugin(course_folder, HOOKED)
    hooks = course_folder.root / "course_hooks.py"
    source = hooks.read_text().replace('"on_site"', '"on_sight"')
    hooks.write_text(source)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    manifest = course_folder.manifest.read_text()
    assert f"lessons.yaml:{line_of(manifest, 'plugins:')}: " in result.stderr
    assert "no build event 'on_sight'; the events are on_config, on_lesson" in result.stderr
    assert f'course_hooks.py", line {line_of(source, "on_sight")}, in register' in result.stderr


def test_the_documented_hook_example_is_the_tested_plugin():
    guide = (ROOT / "docs" / "extending.md").read_text()
    source = HOOKS.read_text()
    assert "```python\n" + source[source.index("import dataclasses") :] + "```" in guide


PROBED = "plugins: [course_blocks, course_probes]\n"


def receipt(course_folder):
    return page(course_folder).select_one(".recorded-run .environment").get_text()


def test_a_plugin_probe_gives_the_receipt_of_a_lesson_that_imported_its_module(course_folder):
    with_plugin(course_folder, PROBED)
    (course_folder.root / "content" / "fakeaccel.py").write_text(
        "def platforms():\n    return ['tpu', 'TPU']\n"
    )
    text = course_folder.lesson_path.read_text()
    course_folder.lesson_path.write_text(
        text.replace('print("demo says"', 'import fakeaccel\nprint("demo says"')
    )
    assert course_folder.cli("-q").returncode == 0, "built"
    shown = receipt(course_folder)
    assert shown.startswith("Verified on TPU · ")
    assert shown.endswith(" · FakeAccel: 2 TPU devices")
    record = (course_folder.root / "records" / "count-batches.yaml").read_text()
    assert "devices: 'FakeAccel: 2 TPU devices'" in record


def test_a_lesson_that_imports_no_probed_module_names_every_probe(course_folder):
    with_plugin(course_folder, PROBED)
    assert course_folder.cli("-q").returncode == 0
    assert " · JAX or FakeAccel not used · " in receipt(course_folder)


def test_editing_a_probe_runs_the_lessons_again(course_folder):
    with_plugin(course_folder, PROBED)
    (course_folder.root / "content" / "fakeaccel.py").write_text(
        "def platforms():\n    return []\n"
    )
    text = course_folder.lesson_path.read_text()
    course_folder.lesson_path.write_text(
        text.replace("```python\n", "```python\nimport fakeaccel\n", 1)
    )
    assert course_folder.cli("-q").returncode == 0
    probe = course_folder.root / "fakeaccel_probe.py"
    probe.write_text(probe.read_text().replace("return fakeaccel.platforms()", "return ['gpu']"))
    assert course_folder.cli("-q").returncode == 0
    assert receipt(course_folder).endswith(" · FakeAccel: 1 GPU device")


def test_a_broken_plugin_template_is_reported_at_its_line(course_folder):
    with_plugin(course_folder)
    template = course_folder.root / "plugin_templates" / "blocks" / "demo.html"
    text = template.read_text().replace("{{ item.note | inline }}", "{{ item.no_such.x }}")
    template.write_text(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert f"demo.html:{line_of(text, 'no_such')}: template error:" in result.stderr
