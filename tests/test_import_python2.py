"""A notebook written for Python 2 (statsmodels' discrete_choice: nbformat 3, `print
res.summary()` in nineteen cells) is written as Python 3 as 2to3 writes it, every code cell
of it, and builds; a Python 3 notebook with a cell of prose marked as code is not touched,
and that cell is named once in the report, at its line in the lesson."""

from __future__ import annotations

import json

from conftest import authoring_example, line_of
from coursesite.importers.python2 import as_python3, is_python2


def _nbformat3(cells: list[tuple[str, str]]) -> str:
    """A notebook as IPython 2 stored it: its cells in a worksheet, code under `input`."""

    def cell(kind: str, text: str) -> dict:
        lines = text.splitlines(keepends=True)
        if kind == "markdown":
            return {"cell_type": "markdown", "metadata": {}, "source": lines}
        return {
            "cell_type": "code",
            "collapsed": False,
            "input": lines,
            "language": "python",
            "metadata": {},
            "outputs": [],
        }

    return json.dumps(
        {
            "metadata": {"name": ""},
            "nbformat": 3,
            "nbformat_minor": 0,
            "worksheets": [{"cells": [cell(*c) for c in cells], "metadata": {}}],
        }
    )


PYTHON2_CELLS = [
    ("markdown", "# Counting in Python 2\n\nThis notebook counts and prints as Python 2 did."),
    ("code", "%matplotlib inline\nimport sys"),
    ("markdown", "## Sums"),
    # Compiles as Python 3, but xrange is gone: only a notebook-wide rewrite reaches it.
    ("code", "total = sum(xrange(5))"),
    ("markdown", "## Printing"),
    ("code", 'print "total:", total\nfor k, v in {"a": 1}.iteritems():\n    print k, v'),
    ("code", "try:\n    int('x')\nexcept ValueError, error:\n    print >>sys.stdout, 'no'"),
]


def test_python2_is_told_from_python3_and_from_prose():
    assert is_python2(["%matplotlib inline\nprint 'x'"])
    assert not is_python2(["print('x')", "total = sum(xrange(5))"])  # compiles: no sign
    # A cell of prose is no Python of either kind: the notebook is not Python 2.
    assert not is_python2(["x = 1", "This cell holds prose, it's not code."])
    assert as_python3('print "a", b') == 'print("a", b)'
    assert as_python3("This is prose.") == "This is prose."


def _imported(course_folder, cells: list[tuple[str, str]], slug: str):
    """The import's run and the lesson it wrote, of an nbformat 3 notebook of `cells`."""
    course_folder.write(authoring_example())
    (course_folder.root / f"{slug}.ipynb").write_text(_nbformat3(cells))
    done = course_folder.cli("import", f"{slug}.ipynb", "--phase", "02", "--slug", slug)
    assert done.returncode == 0, done.stderr
    lesson = next((course_folder.root / "content").glob(f"02-*/01-{slug}.md")).read_text()
    return done, lesson


def test_a_python2_notebook_imports_as_python3_and_builds(course_folder):
    done, lesson = _imported(course_folder, PYTHON2_CELLS, "counting")
    assert "total = sum(range(5))" in lesson
    assert 'print("total:", total)\nfor k, v in {"a": 1}.items():\n    print(k, v)' in lesson
    assert "except ValueError as error:\n    print('no', file=sys.stdout)" in lesson
    notes = [line for line in done.stdout.splitlines() if "its code is Python 2" in line]
    assert len(notes) == 1, done.stdout  # the three cells it changed, in one line
    assert "cell 4, cell 6, cell 7: its code is Python 2" in notes[0]
    assert "`/` between two integers" in notes[0]
    assert "not valid Python" not in done.stdout
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/counting/index.html")).read_text()
    assert "total: 10" in page and "a 1" in page


def test_a_cell_of_prose_in_a_python3_notebook_is_left_and_named_once(course_folder):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    book = new_notebook()
    book.cells = [
        new_markdown_cell("# Prose\n\nA notebook whose second cell is prose marked as code."),
        new_code_cell("values = {'a': 1}\nkeys = values.keys()"),
        new_code_cell("This cell holds prose, it's not code."),
    ]
    course_folder.write(authoring_example())
    nbformat.write(book, course_folder.root / "prose.ipynb")
    done = course_folder.cli("import", "prose.ipynb", "--phase", "02", "--slug", "prose")
    assert done.returncode == 0, done.stderr
    lesson = next((course_folder.root / "content").glob("02-*/01-prose.md")).read_text()
    assert "keys = values.keys()" in lesson  # 2to3 would have written list(values.keys())
    at = line_of(lesson, "This cell holds prose, it's not code.")
    named = [line for line in done.stdout.splitlines() if "Python" in line]
    assert len(named) == 1, done.stdout
    assert f"cell 3, lesson line {at}: step 2 is not valid Python" in named[0]
    assert "make the cell Markdown if it is prose" in named[0]


def test_pandas_old_sort_in_a_python2_notebook_becomes_sort_values_and_builds(course_folder):
    """statsmodels' robust_models_1 calls `sidak.sort('unadj_p', inplace=True)`: fissix's
    fix_sorted (not one of 2to3's) wrote it `sidak.sort(, inplace=True,key=...)`, a syntax
    error in four steps. 2to3 leaves it; the pandas migration writes `sort_values` (pandas
    removed DataFrame.sort in 0.20); a list's sort, by key or none, stays as it is."""
    cells = [
        ("markdown", "# Sorting\n\nA Python 2 notebook that sorts a frame."),
        ("code", "import pandas as pd\nframe = pd.DataFrame({'p': [3, 1, 2], 'q': [1, 2, 3]})"),
        ("code", "frame.sort('p', inplace=True)\nprint list(frame.p)"),
        ("code", "print list(frame.sort(columns=['q'], ascending=False).q)"),
        ("code", "names = ['bb', 'a']\nnames.sort(key=len)\nnames.sort()\nprint names"),
        ("code", "import numpy as np\nrow = np.array([2, 1])\nrow.sort(kind='stable')\nprint row"),
    ]
    done, lesson = _imported(course_folder, cells, "sorting")
    assert "frame.sort_values('p', inplace=True)" in lesson
    assert "frame.sort_values(by=['q'], ascending=False).q" in lesson
    assert "names.sort(key=len)\nnames.sort()" in lesson
    assert "row.sort(kind='stable')" in lesson  # NumPy's sort takes kind=: not pandas'
    assert "not valid Python" not in done.stdout
    assert "step 2 calls frame.sort('p', inplace=True), which pandas 3 no longer takes " in (
        done.stdout
    )
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/sorting/index.html")).read_text()
    assert "[1, 2, 3]" in page and "[3, 2, 1]" in page and "[&#39;a&#39;, &#39;bb&#39;]" in page
