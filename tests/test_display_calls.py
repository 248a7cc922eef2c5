"""display() called on any line of a step, as in a notebook: the real runner records where
its text went in the step's stdout, the page shows the value there at its richest (through
the same sanitisers as a last value), main.py defines display() so that `python main.py`
runs on its own and prints the same, and an imported notebook's mid-cell display() shows
what the notebook showed, not "<IPython.core.display.Markdown object>"."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import CourseFolder, RecordingProgress, authoring_example, build_errors, line_of

PNG_ALT = "A two by two grid of grey levels."

DISPLAY_STEPS = f"""
:::{{step}} 3. Display a table midway
```python
class Table:
    def _repr_html_(self):
        return (
            '<table><tr><th>batch</th></tr><tr><td onclick="steal()">0</td></tr></table>'
            "<script>alert(1)</script>"
        )

    def __repr__(self):
        return "Table(plain)"


x = 1
display(Table())
print("after")
```
:::

:::{{step}} 4. Display a raster midway
:alt: {PNG_ALT}

```python
import io

import matplotlib.image


class Grid:
    def _repr_png_(self):
        buffer = io.BytesIO()
        matplotlib.image.imsave(buffer, np.arange(4).reshape(2, 2), format="png", cmap="gray")
        return buffer.getvalue()

    def __repr__(self):
        return "Grid(plain)"


print("before the grid")
display(Grid(), raw=False, metadata={{}})
print("after the grid")
```
:::
:::{{step}} 5. Display between writes to fd 1
```python
import os
import subprocess
import sys

print("before", end=" ")
os.write(1, b"from fd\\n")
subprocess.run([sys.executable, "-c", "print('from a child')"], check=True)
display(Table())
os.write(1, b"after fd\\n")
display({{"text/html": "<i>raw</i>"}}, raw=True)
```
:::
"""


def display_lesson() -> str:
    text = authoring_example()
    marker = "# Experiment\n"
    assert text.count(marker) == 1
    return text.replace(marker, DISPLAY_STEPS.lstrip("\n") + "\n" + marker)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from coursesite.pipeline import build

    folder = CourseFolder(tmp_path_factory.mktemp("displays"))
    folder.write(display_lesson())
    build(folder.options(), RecordingProgress())
    page_path = next((folder.root / "site").rglob("count-batches/index.html"))
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    return folder, page_path, page


def shown_in_order(stdout) -> list[tuple[str, object]]:
    """The parts of a step's stdout block, in order: ('text', its text) or ('view', tag)."""
    parts = []
    for child in stdout.find_all(recursive=False):
        if "output-label" in child.get("class", []):
            continue
        if "output-display" in child.get("class", []):
            parts.append(("view", child))
        else:
            parts.append(("text", child.get_text()))
    return parts


def test_a_mid_step_display_shows_the_sanitized_table_where_it_was_called(built):
    _, _, page = built
    [stdout] = page.select("#step-3 .output-stdout")
    [(kind, table), (after_kind, after)] = shown_in_order(stdout)
    assert kind == "view" and "output-html" in table["class"]
    assert [th.get_text() for th in table.select("th")] == ["batch"]
    assert [td.get_text() for td in table.select("td")] == ["0"]
    markup = table.decode_contents()
    for unsafe in ("<script", "alert(1)", "onclick"):
        assert unsafe not in markup, unsafe
    assert after_kind == "text" and after.strip() == "after"
    assert "Table(plain)" not in stdout.get_text()  # the value, not the repr it printed


def test_a_mid_step_display_of_a_png_is_a_published_image_between_its_lines(built):
    _, page_path, page = built
    [stdout] = page.select("#step-4 .output-stdout")
    parts = shown_in_order(stdout)
    assert [kind for kind, _ in parts] == ["text", "view", "text"]
    assert parts[0][1].strip() == "before the grid" and parts[2][1].strip() == "after the grid"
    image = parts[1][1].select_one("img")
    assert image["alt"] == PNG_ALT
    assert re.fullmatch(r"images/value-[0-9a-f]{16}\.png", image["src"])
    assert (page_path.parent / image["src"]).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_record_says_where_each_display_wrote_in_stdout(built):
    folder, _, _ = built
    from coursesite.execution import records

    record = records.load(folder.root / "records", "count-batches").record
    output = record.blocks["step-4"]
    [shown] = output.displays
    assert output.stdout[shown["at"] : shown["at"] + shown["length"]] == "Grid(plain)\n"
    assert "image/png" in shown["bundle"]


def test_a_display_is_placed_after_what_python_and_fd_1_wrote_before_it(built):
    folder, _, page = built
    from coursesite.execution import records

    output = records.load(folder.root / "records", "count-batches").record.blocks["step-5"]
    raw = "{'text/html': '<i>raw</i>'}\n"
    assert output.stdout == f"before from fd\nfrom a child\nTable(plain)\nafter fd\n{raw}"
    table, bundle = output.displays
    assert output.stdout[table["at"] : table["at"] + table["length"]] == "Table(plain)\n"
    assert bundle["bundle"] == {"text/html": "<i>raw</i>"}  # raw=True: the value is a bundle
    [stdout] = page.select("#step-5 .output-stdout")
    parts = shown_in_order(stdout)
    assert [kind for kind, _ in parts] == ["text", "view", "text", "view"]
    assert parts[0][1] == "before from fd\nfrom a child\n" and parts[2][1] == "after fd\n"
    assert parts[3][1].select_one("i").get_text() == "raw"


def test_the_notebook_download_carries_each_display_where_it_was_called(built):
    _, page_path, _ = built
    notebook = json.loads((page_path.parent / "lesson.ipynb").read_text(encoding="utf-8"))
    [cell] = [c for c in notebook["cells"] if "display(Table())\nprint" in "".join(c["source"])]
    kinds = [output["output_type"] for output in cell["outputs"]]
    assert kinds == ["display_data", "stream"]
    shown = cell["outputs"][0]["data"]
    assert shown["text/plain"] == "Table(plain)"
    assert "<th>batch</th>" in shown["text/html"] and "<script" not in shown["text/html"]
    assert "".join(cell["outputs"][1]["text"]) == "after\n"


def test_main_py_defines_display_and_prints_the_repr_with_plain_python(built, tmp_path):
    _, page_path, _ = built
    main_py = (page_path.parent / "main.py").read_text(encoding="utf-8")
    assert main_py.index("def display(") < main_py.index("display(Table())")
    (tmp_path / "main.py").write_text(main_py, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert "Table(plain)\nafter\n" in ran.stdout
    assert "before the grid\nGrid(plain)\nafter the grid\n" in ran.stdout


def test_a_step_that_binds_display_gets_no_definition():
    from coursesite.lesson.displaydefinition import needs_display

    assert needs_display(["x = 1", "display(x)"])
    assert not needs_display(["from IPython.display import display", "display(1)"])
    assert not needs_display(["def display(v):\n    print(v)", "display(1)"])
    assert not needs_display(["print(1)"])
    timed = "ipython_timer = timeit.Timer('display(x)', globals=globals())"  # %timeit display(x)
    assert needs_display([timed]) and not needs_display(["print('display(x) shows x')"])


LESSON = "content/02-shown-markdown/01-shown-markdown.md"
PAGE = "site/shown-markdown/shown-markdown/index.html"
MARKDOWN_REPR = "<IPython.core.display.Markdown object>"


def markdown_notebook(path) -> None:
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        new_markdown_cell("# Shown markdown\n\nWhat a notebook displays.\n\n## Say hi"),
        new_code_cell(
            "from IPython.display import Markdown, display\n"
            'print("before")\n'
            'display(Markdown("## hi"))\n'
            'print("after")',
            outputs=[
                new_output("stream", name="stdout", text="before\n"),
                new_output(
                    "display_data",
                    data={"text/markdown": "## hi", "text/plain": MARKDOWN_REPR},
                ),
                new_output("stream", name="stdout", text="after\n"),
            ],
        ),
    ]
    nbformat.write(notebook, path)


def test_an_imported_mid_cell_display_shows_the_rendered_markdown(tmp_path):
    folder = CourseFolder(tmp_path)
    folder.write(authoring_example())
    markdown_notebook(folder.root / "shown.ipynb")
    imported = folder.cli("import", "shown.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    text = (folder.root / LESSON).read_text(encoding="utf-8")
    assert "from IPython.display import Markdown\n" in text
    assert 'display(Markdown("## hi"))' in text
    built = folder.cli("-q")
    assert built.returncode == 0, built.stderr
    # The notebook stored the display apart from what it printed; so does the comparison.
    assert "differs from the output stored" not in built.stdout + built.stderr
    page = BeautifulSoup((folder.root / PAGE).read_text(encoding="utf-8"), "html.parser")
    [stdout] = page.select("#step-1 .output-stdout")
    parts = shown_in_order(stdout)
    assert [kind for kind, _ in parts] == ["text", "view", "text"]
    # Rendered Markdown, through the page's HTML allowlist (which keeps no headings).
    assert "output-html" in parts[1][1]["class"] and parts[1][1].get_text().strip() == "hi"
    assert MARKDOWN_REPR not in page.select_one("#step-1").get_text()
    assert page.select_one("#step-1 .output-stored") is None  # the fresh run shows it
    notebook = json.loads((folder.root / PAGE).with_name("lesson.ipynb").read_text())
    sources = ["".join(cell["source"]) for cell in notebook["cells"]]
    assert not any("def display(" in source for source in sources)  # Jupyter has it


def companion(name: str):
    """A runner companion, loaded from its file as the runner loads it."""
    import importlib.util

    from conftest import ROOT

    path = ROOT / "coursesite" / "execution" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_test_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class KeptStream:
    """A block's stdout as BlockStream keeps it, without taking over fd 1."""

    def __init__(self, limit: int):
        self.kept = companion("fdcapture").CappedOutput(limit)

    def write(self, text: str) -> int:
        return self.kept.write(text)

    def write_located(self, text: str) -> int | None:
        start = self.kept.kept
        self.kept.write(text)
        return start if self.kept.kept == start + len(text) else None


class Rich:
    def __init__(self, html: str):
        self.html = html

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return "Rich()"


def recorder(monkeypatch, limit: int = 1_000):
    outputs = companion("lessonoutputs")
    stream = KeptStream(limit)
    monkeypatch.setattr(sys, "stdout", stream)
    displays = companion("lessondisplays").DisplayRecorder(
        stream, outputs.rich_representations, outputs.kept_bundle, outputs.RICH_LIMIT_FACTOR
    )
    displays.begin(limit)
    return displays, stream


def test_a_blocks_displays_together_keep_at_most_what_its_value_may(monkeypatch):
    displays, _ = recorder(monkeypatch, limit=100)
    displays.display(Rich("<b>" + "x" * 150 + "</b>"))
    displays.display(Rich("<b>" + "y" * 300 + "</b>"))
    shown, problem = displays.finish("", lambda text: text)
    assert len(shown) == 1
    assert problem.startswith("its display() calls offer 307 more characters of rich output")


def test_a_display_the_cap_cut_or_a_redirected_stdout_records_nothing(monkeypatch):
    import contextlib
    import io

    displays, stream = recorder(monkeypatch, limit=10)
    displays.display(Rich("<b>a</b>"), Rich("<b>b</b>"))  # "Rich()\n" twice: 14 > 10
    redirected = io.StringIO()
    with contextlib.redirect_stdout(redirected):
        displays.display(Rich("<b>c</b>"), [1], raw=True)  # printed as main.py prints it
    shown, problem = displays.finish(stream.kept.getvalue(), lambda text: text)
    assert [entry["at"] for entry in shown] == [0] and problem is None
    assert redirected.getvalue() == "Rich()\n[1]\n"


def test_a_raw_display_is_a_bundle_only_when_it_is_a_dict_of_text(monkeypatch):
    displays, _ = recorder(monkeypatch)
    displays.display({"text/html": "<i>x</i>", "text/plain": "x"}, ["no"], raw=True)
    displays.display(exclude=["text/html"], display_id=True, clear=True)  # nothing to show
    shown, _ = displays.finish("", lambda text: text)
    assert [entry["bundle"] for entry in shown] == [{"text/html": "<i>x</i>"}, {}]


def test_lesson_md_and_the_zip_show_a_mid_step_image_and_other_displays_as_text(built):
    import zipfile

    _, page_path, page = built
    src = page.select_one("#step-4 .output-stdout img")["src"]
    markdown = (page_path.parent / "lesson.md").read_text(encoding="utf-8")
    grid = (
        "```text\nbefore the grid\n```\n\n" + f"![{PNG_ALT}]({src})\n\n```text\nafter the grid\n```"
    )
    assert grid in markdown
    assert "```text\nTable(plain)\n```\n\n```text\nafter\n```" in markdown
    with zipfile.ZipFile(page_path.parent / "count-batches.zip") as archive:
        assert archive.read(src) == (page_path.parent / src).read_bytes()


def test_a_mid_step_image_without_alt_text_stops_the_build_at_its_block(course_folder):
    text = display_lesson().replace(f":alt: {PNG_ALT}\n\n", "")
    errors = build_errors(course_folder, text)
    [error] = [e for e in errors if "displays an image" in e.message]
    assert "image/png" in error.message and error.line == line_of(text, "import io")
