"""The block registry: a new kind is one registration plus its templates."""

import ast
import json
import shutil
import subprocess
import sys

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, THEME, RecordingProgress, authoring_example, line_of
from coursesite.blocks.registry import BlockKind, register, unregister
from coursesite.errors import BuildErrors
from coursesite.lesson.model import Figure
from coursesite.lesson.parse import parse_lesson
from coursesite.pipeline import build

# The demo kind is the course-local plugin's (tests/plugin/), registered here in-process.
PLUGIN = ROOT / "tests" / "plugin"
sys.path.insert(0, str(PLUGIN))
import course_blocks  # noqa: E402
from course_blocks import Demo, build_demo  # noqa: E402

DEMO_HTML = (PLUGIN / "plugin_templates" / "blocks" / "demo.html").read_text()
DEMO_MD = (PLUGIN / "plugin_templates" / "blocks" / "demo.md").read_text()
DEMO_BLOCK = """\
:::{demo} Count the answer
:note: See [the figure](#batch-sizes) first.

```python
print("demo says", 6 * 7)
```

The demo printed the answer.
:::

"""


class InProcessAPI:
    """The part of plugins.PluginAPI the demo plugin uses, registering in this process."""

    def __init__(self):
        self.kinds = []

    def block_kind(self, kind):
        self.kinds.append(register(kind))

    def templates(self, folder):
        pass  # the tests' `templates` fixture copies the plugin's templates in


@pytest.fixture
def demo_kind():
    api = InProcessAPI()
    course_blocks.register(api)
    yield api.kinds[0]
    unregister("demo")


@pytest.fixture
def templates(tmp_path):
    """The real templates plus the demo's two."""
    folder = tmp_path / "templates"
    shutil.copytree(THEME / "templates", folder)
    (folder / "blocks" / "demo.html").write_text(DEMO_HTML)
    (folder / "blocks" / "demo.md").write_text(DEMO_MD)
    return folder


def with_demo(before: str = "\n# Exercise & Check\n") -> str:
    """The documented example with the demo block just before the line `before`."""
    text = authoring_example()
    assert text.count(before) == 1
    return text.replace(before, "\n" + DEMO_BLOCK + before.lstrip("\n"))


def test_a_registered_kind_parses_runs_and_renders_everywhere(demo_kind, templates, course_folder):
    course = course_folder.write(with_demo())
    lesson = parse_lesson(course.lessons[0])
    [demo] = [item for stage in lesson.stages for item in stage.items if isinstance(item, Demo)]
    assert demo.note.startswith("See [the figure]") and "printed" in demo.remark.markdown
    # It runs after the steps, in document order: after the experiment, before the solution.
    ids = [block.id for block in lesson.runnable_blocks()]
    assert ids == [
        "step-1",
        "step-2",
        "batch-sizes",
        "drop-the-remainder",
        "count-the-answer",
        "batch-by-three",
    ]
    assert "# --- demo 'Count the answer' ---\nprint(\"demo says\", 6 * 7)" in lesson.full_script()

    build(course_folder.options(templates=templates))  # runs it in a real child process
    site = course_folder.root / "site"
    folder = "basics/count-batches/"
    files = {
        str(path.relative_to(site)): path.read_text()
        for path in (site / folder).iterdir()
        if path.suffix in (".html", ".md", ".ipynb", ".py")
    }
    page = BeautifulSoup(files[folder + "index.html"], "html.parser")
    section = page.select_one("#experiment section.demo#count-the-answer")
    assert section.select_one(".demo-note a")["href"] == "#batch-sizes"
    assert section.select_one(".output pre").get_text() == "demo says 42\n"
    assert (
        '### Demo: Count the answer\n\n```python\nprint("demo says", 6 * 7)\n```\n'
        "Output:\n\n```text\ndemo says 42\n```" in files[folder + "lesson.md"]
    )
    # Without a notebook layout of its own, the kind is one Markdown cell from its template.
    cells = json.loads(files[folder + "lesson.ipynb"])["cells"]
    [cell] = [c for c in cells if c["source"].startswith("### Demo: Count the answer")]
    assert cell["cell_type"] == "markdown" and "demo says 42" in cell["source"]
    assert "# --- demo 'Count the answer' ---" in files[folder + "full.py"]


def test_a_registered_kind_gets_the_common_checks(demo_kind, course_folder):
    text = with_demo("\n# Experiment\n").replace(":note: See", ":nite: See")
    course = course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        parse_lesson(course.lessons[0])
    lines = {error.message: error.line for error in caught.value.errors}
    assert lines == {
        "unknown option ':nite:' for {demo} (did you mean 'note'?)": line_of(text, ":nite:"),
        "{demo} belongs in the 'Experiment or Evidence' stage, not 'Build & Run'": line_of(
            text, ":::{demo}"
        ),
    }
    [stage_error] = [e for e in caught.value.errors if "belongs in" in e.message]
    assert stage_error.hint == "move the block below the '# Experiment' or '# Evidence' heading"


def test_unregistered_kind_is_unknown_again(course_folder):
    course = course_folder.write(with_demo())
    with pytest.raises(BuildErrors) as caught:
        parse_lesson(course.lessons[0])
    [error] = caught.value.errors
    assert error.message.startswith("unknown block '{demo} Count the answer'")
    assert "{step}" in error.hint and "{hint}" in error.hint


def test_registering_a_taken_name_or_undeclared_option_fails(demo_kind):
    with pytest.raises(ValueError, match="'demo' is already registered"):
        register(BlockKind("demo", Demo, build_demo))
    with pytest.raises(ValueError, match="'read' is already registered"):
        register(BlockKind("other", Demo, build_demo, sub_blocks=("read",)))
    with pytest.raises(ValueError, match="must be options"):
        register(BlockKind("other", Demo, build_demo, required=("note",)))
    with pytest.raises(ValueError, match="shows Figure differently"):
        register(BlockKind("other", Figure, build_demo))


@pytest.mark.parametrize("module", ["coursesite.blocks.registry", "coursesite.blocks.builtin"])
def test_blocks_import_without_the_parser(module):
    """Builders get a BlockContext: no block module imports the parser, not even for types."""
    code = f"import sys, {module}; print('coursesite.lesson.parse' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
    tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "parse" not in imported and "coursesite.lesson.parse" not in imported


def test_editing_a_kind_markdown_template_renders_the_downloads_again(templates, course_folder):
    course_folder.write(authoring_example())
    options = course_folder.options(templates=templates)
    build(options, RecordingProgress())
    lesson_md = course_folder.root / "site" / "basics" / "count-batches" / "lesson.md"
    assert "Edited check." not in lesson_md.read_text()
    check_md = templates / "blocks" / "check.md"
    check_md.write_text(check_md.read_text() + "\nEdited check.\n")
    result = build(options, RecordingProgress())
    assert result.executed == []
    assert "Edited check." in lesson_md.read_text()
