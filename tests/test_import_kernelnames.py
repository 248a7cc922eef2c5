"""Names a notebook's kernel gave every cell: IPython's pylab mode gave `np` and `plt`
without an import (statsmodels' regression_diagnostics calls plt.subplots and imports no
pyplot). Where no cell binds one, the import writes pylab's import at the top of the first
cell that runs and uses it; the lesson builds."""

from __future__ import annotations

from coursesite.importers.kernelnames import kernel_name_imports
from coursesite.importers.notebookcells import Cell
from test_import_preflight import imported


def test_a_name_pylab_gave_the_kernel_is_imported_where_first_used(course_folder):
    cells = [
        "%matplotlib inline\nvalues = [1, 2, 3]",
        "fig, ax = plt.subplots()\nax.plot(values)\nprint(np.mean(values), type(fig).__name__)",
        "print(np.sum(values))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()" in lesson
    assert "import numpy as np\nimport matplotlib.pyplot as plt\nfig, ax" in lesson
    assert lesson.count("import numpy as np") == 1  # in the first cell that uses it only
    assert (
        "cell 5: it uses plt, which no cell defines or imports: the notebook had it from its "
        "kernel (IPython's pylab mode gave every cell np and plt); `import matplotlib.pyplot "
        "as plt` was written at the top of the cell"
    ) in report
    assert "NameError" not in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def _code(source: str, tags: tuple[str, ...] = ()) -> Cell:
    return Cell("code", source, "cell", tags=tags)


def test_a_name_some_cell_binds_or_may_bring_is_left_alone():
    later = [_code("print(np.pi)"), _code("import numpy as np")]  # bound, if late: ruff's
    assert kernel_name_imports(later) == [] and later[0].source == "print(np.pi)"
    assert kernel_name_imports([_code("def f(np):\n    return np"), _code("np")]) == []
    starred = [_code("from pylab import *"), _code("plt.plot([1])")]
    assert kernel_name_imports(starred) == []
    magic = [_code("%pylab inline"), _code("plt.plot([1])")]  # magics.py writes its imports
    assert kernel_name_imports(magic) == [] and magic[1].source == "plt.plot([1])"
    skipped = [_code("plt.plot([0])", ("remove-cell",)), _code("print 'x'\nplt.plot([1])")]
    assert len(kernel_name_imports(skipped)) == 1  # Python 2 is read too
    assert skipped[0].source == "plt.plot([0])"
    assert skipped[1].source.startswith("import matplotlib.pyplot as plt\nprint 'x'")


def test_the_import_goes_under_a_cell_magic_which_stays_first():
    timed = [_code("%%time\nvalues = np.arange(3)")]
    assert len(kernel_name_imports(timed)) == 1
    assert timed[0].source == "%%time\nimport numpy as np\nvalues = np.arange(3)"
