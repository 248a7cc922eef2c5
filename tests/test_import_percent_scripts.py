"""jupytext's percent format: a .py script whose `# %%` lines start cells (GPJax's examples,
VS Code's and Spyder's cells) is imported as a notebook, each cell named by its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import authoring_example, no_traceback
from coursesite.errors import BuildError
from coursesite.importers.notebooks import read_notebook

# Shaped as GPJax keeps its examples: a jupytext header, a module docstring is not used.
SCRIPT = """\
# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Regression with sums
#
# This example adds the squares of the first numbers and shows the total.

# %%
import math

squares = [n * n for n in range(4)]

# %% [markdown]
# The total of the squares:

# %% tags=["hide-input"]
print("total", sum(squares), math.isqrt(sum(squares)))
"""


def test_percent_cells_are_read_with_their_lines_and_tags(tmp_path: Path):
    path = tmp_path / "sums.py"
    path.write_text(SCRIPT)
    cells = read_notebook(path)
    assert [(c.kind, c.where) for c in cells] == [
        ("markdown", "line 9"),
        ("code", "line 14"),
        ("markdown", "line 19"),
        ("code", "line 22"),
    ]
    assert cells[0].source.startswith("# Regression with sums\n\nThis example adds")
    assert cells[1].source == "import math\n\nsquares = [n * n for n in range(4)]"
    assert cells[3].tags == ("hide-input",)
    # Lines before the first marker are a cell of their own, named by their first line.
    path.write_text('\n"""Sums."""\nimport math\n\n# %%\nprint(math.pi)\n')
    assert [(c.kind, c.where) for c in read_notebook(path)] == [
        ("code", "line 2"),
        ("code", "line 5"),
    ]


def test_a_script_without_cells_is_refused_with_what_to_add(tmp_path: Path, course_folder):
    path = tmp_path / "plain.py"
    path.write_text("import math\nprint(math.pi)\n")
    with pytest.raises(BuildError) as raised:
        read_notebook(path)
    assert "no `# %%` cell markers" in raised.value.message
    assert "jupytext's percent format" in (raised.value.hint or "")
    course_folder.write(authoring_example())
    (course_folder.root / "plain.py").write_text("import math\nprint(math.pi)\n")
    done = course_folder.cli("import", "plain.py", "--phase", "02")
    assert done.returncode != 0 and no_traceback(done.stderr)
    assert "plain.py" in done.stderr and "# %%" in done.stderr
    assert not (course_folder.root / "content" / "02-plain").exists()


def test_a_percent_script_imports_as_a_lesson_that_builds(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "sums.py").write_text(SCRIPT)
    done = course_folder.cli("import", "sums.py", "--phase", "02")
    assert done.returncode == 0, done.stderr
    lesson = next((course_folder.root / "content").glob("02-*/01-regression-with-sums.md"))
    text = lesson.read_text()
    assert "title: Regression with sums\n" in text
    assert "summary: This example adds the squares of the first numbers" in text
    assert "squares = [n * n for n in range(4)]" in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/regression-with-sums/index.html"))
    assert "<samp>total 14 3" in page.read_text()


def test_a_package_of_the_checkout_the_script_imports_is_brought_and_the_lesson_builds(
    course_folder,
):
    """GPJax's examples import `examples.utils` (their own folder, from the repository's
    root), whose `use_mpl_style` loads `gpjax.mplstyle` beside it: both are brought under
    examples/ beside the lesson and listed, never installed as pip's `examples`. A folder
    holding a project of its own (its pyproject.toml) is the library: not brought."""
    from coursesite.importers.ownpackages import own_package_files

    course_folder.write(authoring_example())
    examples = course_folder.root / "checkout" / "examples"
    (examples / "plots").mkdir(parents=True)
    (examples / "utils.py").write_text(
        "from pathlib import Path\n\n\ndef greeting():\n"
        '    return (Path(__file__).parent / "greeting.txt").read_text().strip()\n'
    )
    (examples / "greeting.txt").write_text("hello from the checkout\n")
    (examples / "unused.txt").write_text("not named by any module\n")
    (examples / "plots" / "__init__.py").write_text("")
    (examples / "plots" / "lines.py").write_text("WIDTH = 3\n")
    library = course_folder.root / "checkout" / "examples" / "mylib"
    library.mkdir()
    (library / "pyproject.toml").write_text("[project]\nname = 'mylib'\n")
    (library / "core.py").write_text("VALUE = 1\n")
    (examples / "hello.py").write_text(
        "# %% [markdown]\n# # Greetings\n#\n# This example greets from a module of its own.\n"
        "\n# %%\nfrom examples.utils import greeting\nfrom examples.plots.lines import WIDTH\n"
        "\nprint(greeting(), WIDTH)\n"
    )
    assert own_package_files(["import mylib.core", "import os"], examples) == {}
    done = course_folder.cli("import", "checkout/examples/hello.py", "--phase", "02")
    assert done.returncode == 0, done.stderr
    assert "the code imports examples, a package of the notebook's own checkout" in done.stdout
    assert "not installed where you build" not in done.stdout
    folder = course_folder.root / "content" / "02-greetings"
    text = (folder / "01-greetings.md").read_text()
    assert "files:\n  - examples/plots/__init__.py\n  - examples/plots/lines.py\n" in text
    assert "  - examples/utils.py\n  - examples/greeting.txt\n---" in text
    assert not (folder / "examples" / "unused.txt").exists()
    assert (folder / "examples" / "greeting.txt").read_text() == "hello from the checkout\n"
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/greetings/index.html"))
    assert "<samp>hello from the checkout 3" in page.read_text()
