"""What would stop an imported lesson is known before the author edits anything: the
import names each cell that reads the network (at its line in the lesson) and each name
an installed package lacks, and the first build says which failure is the network's."""

import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from conftest import authoring_example, line_of

LESSON = ("content", "02-downloads", "01-downloads.md")


def notebook(path, cells) -> None:
    book = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    book.cells = [new_markdown_cell("# Downloads\n\nData from elsewhere.")]
    for code in cells:
        book.cells += [new_markdown_cell("## A step"), new_code_cell(code)]
    nbformat.write(book, path)


def installed_package(tmp_path, monkeypatch, name: str, files: dict[str, str]) -> Path:
    """A package `name` of `files` (paths inside it), importable as installed: on the
    PYTHONPATH of the import and of the builds."""
    package = tmp_path / "site" / name
    for path, text in files.items():
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text(text)
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    return package


def imported(course_folder, cells) -> tuple[str, str]:
    """The import's report and the lesson it wrote."""
    course_folder.write(authoring_example())
    notebook(course_folder.root / "downloads.ipynb", cells)
    done = course_folder.cli("import", "downloads.ipynb", "--phase", "02", "--slug", "downloads")
    assert done.returncode == 0, done.stderr
    return done.stdout, course_folder.root.joinpath(*LESSON).read_text()


def built_page(course_folder) -> str:
    """The imported lesson's page, once the course builds (it must)."""
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    return (course_folder.root / "site/downloads/downloads/index.html").read_text()


NETWORK_CELLS = [
    "import urllib.request\nimport numpy as np\nSOURCE = 'https://example.org/rows.csv'",
    "print('rows come from https://example.org/rows.csv')\nrows = 3",
    "with urllib.request.urlopen('http://127.0.0.1:9/rows.csv') as answer:\n"
    "    body = answer.read()",
    "!wget https://example.org/rows.csv\ntable = np.loadtxt(SOURCE, delimiter=',')",
    "import torchvision\nimages = torchvision.datasets.MNIST('data', download=True)",
    "counts = open('rows.csv').read()",
]


def test_the_import_names_each_cell_that_reads_the_network_at_its_lesson_line(course_folder):
    """Every read is named at its lesson line, in one line of the report: one cause, said
    once with what to do (QuantEcon's business_cycle had fourteen lines of the same advice)."""
    report, lesson = imported(course_folder, NETWORK_CELLS)
    reads = [line for line in report.splitlines() if "reads the network" in line]
    at = {
        "urlopen": line_of(lesson, "urllib.request.urlopen("),
        "wget": line_of(lesson, "!wget"),
        "loadtxt": line_of(lesson, "np.loadtxt("),
        "MNIST": line_of(lesson, "MNIST("),
    }
    assert len(reads) == 1, reads
    said = reads[0]
    # Not the cell that prints an address, nor open().
    assert "cell 7, cell 9, cell 11: the lesson reads the network in 4 places (" in said
    listed = said[said.index("(") + 1 : said.index("), and the machine")].split("; ")
    assert listed[0] == (
        f"step 3 at lesson line {at['urlopen']}: "
        "urllib.request.urlopen('http://127.0.0.1:9/rows.csv')"
    )
    assert listed[1].startswith(f"step 4 at lesson line {at['wget']}: `wget`")
    # An address assigned to a name in one cell and read in another.
    assert listed[2] == f"step 4 at lesson line {at['loadtxt']}: np.loadtxt(SOURCE, an address)"
    assert listed[3].startswith(f"step 5 at lesson line {at['MNIST']}: ")
    assert "download=True" in listed[3] and len(listed) == 4
    assert said.count("list it in the front matter's files:") == 1
    assert said.count("skip-execution") == 1


def test_one_read_of_the_network_is_said_at_its_step():
    from coursesite.importers.networkreads import network_notes

    text = ":::{step} 1. Fetch\n```python\nimport urllib.request\nurllib.request.urlopen('https://a.org')\n```\n:::\n"
    steps = [(1, "cell 2", "import urllib.request\nurllib.request.urlopen('https://a.org')")]
    (said,) = network_notes(text, steps)
    assert said.startswith("cell 2: step 1 at lesson line 4 reads the network (")
    assert network_notes(text, [(1, "cell 2", "x = 1")]) == []


def test_a_build_says_which_failure_read_the_network_and_what_to_do(course_folder):
    report, lesson = imported(
        course_folder, NETWORK_CELLS[:1] + NETWORK_CELLS[2:3] + ["counts = open('rows.csv').read()"]
    )
    assert "reads the network" in report
    built = course_folder.cli("-q")
    assert built.returncode == 1
    opened, missing = line_of(lesson, "urlopen("), line_of(lesson, "open('rows.csv')")
    assert f"01-downloads.md:{opened}: step 2 failed: URLError: " in built.stderr
    failed = built.stderr[built.stderr.index(f"01-downloads.md:{opened}:") :]
    assert failed.splitlines()[0].endswith("; it read the network")
    assert "may have no network" in failed.split("01-downloads.md:")[1]
    # A missing file is no network read: it keeps its own message and hint.
    local = built.stderr[built.stderr.index(f"01-downloads.md:{missing}:") :]
    assert local.splitlines()[0].endswith("No such file or directory: 'rows.csv'")
    assert "network" not in local.split("01-downloads.md:")[1]


DRIFT_CELLS = [
    "import grain\nimport jax\nimport jax.numpy as jnp\nimport collections",
    "options = grain.sources.ReadOptions(num_threads=2)",
    "total = jax.tree.map(lambda x: x + 1, {'a': jnp.zeros(2)})\n"
    "squares = jax.tree_map(lambda x: x * x, total)",
    # Names the notebook makes exist itself, or asks about, are not drift.
    "jax.course_extra = 1\nprint(jax.course_extra.real)\n"
    "try:\n    from jax import tree_multimap\nexcept ImportError:\n    tree_multimap = None\n"
    "if hasattr(jax, 'tree_leaves'):\n    print(jax.tree_leaves(total))",
    "import jax.experimental.pjit\nprint(jax.experimental.pjit.pjit.__name__)",
    "def norm(grain):\n    return grain.no_such_field\nprint(collections.abc.Mapping.__name__)",
]


def test_a_name_that_moved_is_written_where_the_installed_package_has_it(course_folder):
    import importlib.metadata

    report, lesson = imported(course_folder, DRIFT_CELLS)
    drift = [line for line in report.splitlines() if "written for another version" in line]
    grain, jax = importlib.metadata.version("grain"), importlib.metadata.version("jax")
    assert len(drift) == 2, drift  # nothing the notebook defines, guards or imports itself
    read_options, tree_map = (
        line_of(lesson, "grain.ReadOptions"),
        line_of(lesson, "jax.tree_util.tree_map("),
    )
    assert drift[0].endswith(
        f"cell 5, lesson line {read_options}: step 2 uses grain.sources.ReadOptions, which "
        f"the installed grain does not have: written for another version of grain "
        f"(installed: {grain}); the step now uses grain.ReadOptions, where the installed one "
        "has it"
    )
    assert f"cell 7, lesson line {tree_map}: step 3 uses jax.tree_map" in drift[1]
    assert f"another version of jax (installed: {jax})" in drift[1]
    # Every use in the step, and only the name that moved.
    assert "jax.tree_map(" not in lesson and "grain.sources" not in lesson
    assert "squares = jax.tree_util.tree_map(lambda x: x * x, total)" in lesson
    assert "total = jax.tree.map(lambda x: x + 1" in lesson
    # The build runs what the import wrote.
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_moved_name_is_written_under_the_notebooks_own_alias_and_import_form(course_folder):
    cells = [
        "import jax as jx\nfrom jax import tree_map  # the old home",
        "print(jx.tree_util.tree_map(abs, [-1]), tree_map(abs, [-2]))",
        "from jax import tree_map as walk",
        "from jax import numpy as jnp, tree_map as tmap  # both\nprint(tmap(abs, jnp.ones(1)))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "from jax.tree_util import tree_map  # the old home\n" in lesson
    # Under another name, and among other names (QuantEcon's `from numba import jit,
    # jitclass`): the moved name gets a line of its own, under the name the code uses.
    assert "\nfrom jax.tree_util import tree_map as walk\n" in lesson
    assert (
        "from jax import numpy as jnp  # both\nfrom jax.tree_util import tree_map as tmap\n"
        "print(tmap(abs, jnp.ones(1)))"
    ) in lesson
    aliased = line_of(lesson, "tree_map as walk")
    assert (
        f"lesson line {aliased}: step 3 uses jax.tree_map, which the installed jax does not "
        "have: written for another version of jax"
    ) in report, report
    assert report.count("the step now uses jax.tree_util.tree_map") == 3
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_module_that_became_a_name_of_its_package_is_imported_from_the_package(
    course_folder, tmp_path, monkeypatch
):
    """tinygp's tutorials (and JAX notebooks before 0.4.25): `from jax.config import
    config`, which fails now that jax.config is an object of jax, no module; `from jax
    import config` gives the same object. dynamax's `from
    dynamax.linear_gaussian_ssm.linear_gaussian_ssm import LinearGaussianSSM`: the module
    is gone, the package above it has the name; jax.experimental.maps is gone too, and
    its Mesh is jax.sharding's."""
    installed_package(
        tmp_path,
        monkeypatch,
        "zz_models",
        {
            "__init__.py": "from zz_models.core import Model\n",
            "core.py": "class Model:\n    pass\n",
        },
    )
    cells = [
        "from jax.config import config\nconfig.update('jax_enable_x64', True)",
        "import jax.numpy as jnp\nprint(jnp.ones(1).dtype)",
        "from jax.experimental.maps import Mesh",
        "from zz_models.models.linear import Model",
    ]
    report, lesson = imported(course_folder, cells)
    assert "\nfrom zz_models import Model\n" in lesson, report
    assert (
        "step 4 uses zz_models.models, which the installed zz_models does not have: written "
        "for another version of zz_models (installed: unknown); the step now uses "
        "zz_models.Model, where the installed one has it"
    ) in report
    assert "from jax import config\nconfig.update('jax_enable_x64', True)" in lesson
    at = line_of(lesson, "from jax import config")
    assert (
        f"cell 3, lesson line {at}: step 1 uses jax.config, which the installed jax has as a "
        "name, not a module a `from` import reads: written for another version of jax"
    ) in report, report
    assert "the step now uses from jax import config, where the installed one has it" in report
    # jax.experimental.maps is gone; its Mesh is jax.sharding's now.
    maps = line_of(lesson, "from jax.sharding import Mesh")
    assert f"lesson line {maps}: step 3 uses jax.experimental.maps, which the installed" in report
    assert "the step now uses jax.sharding.Mesh, where the installed one has it" in report


def test_a_name_in_another_module_of_its_package_is_found_deep_and_lazily_loaded(
    course_folder, tmp_path, monkeypatch
):
    """scikit-learn 0.20 removed sklearn.cross_validation: `from sklearn.cross_validation
    import train_test_split` is `from sklearn.model_selection import ...` now (a module a
    lazy package lists but loads only when asked). statsmodels' old `sm.ols` is
    statsmodels.formula.api.ols, two modules down: said, with where it is now (the code
    reaches it through `sm`, which has it no more, so it is not written anew)."""
    lazy = (
        "import importlib\nfrom zz_learn import api\n"
        "def __getattr__(name):\n    if name == 'selection':\n"
        "        return importlib.import_module('zz_learn.selection')\n"
        "    if name == 'broken':  # a lazy module that needs a package not installed\n"
        "        raise ImportError('zz_learn.broken needs zz_missing')\n"
        "    raise AttributeError(name)\n"
        "def __dir__():\n    return ['api', 'broken', 'selection']\n"
    )
    files = {
        "__init__.py": lazy,
        "api.py": "import zz_learn.formula.api\n",
        "selection/__init__.py": "def split(x):\n    return x[:1]\n",
        "formula/__init__.py": "",
        "formula/api.py": "from datetime import date\ndef ols(text):\n    return text.upper()\n",
    }
    installed_package(tmp_path, monkeypatch, "zz_learn", files)
    cells = [
        "from zz_learn.validation import split\nprint(split([3, 4]))",
        "import zz_learn.api as zl\nprint(zl.ols('y ~ x'))",
        "print(zl.date)",  # what a module imported from elsewhere is not the package's
    ]
    report, lesson = imported(course_folder, cells)
    assert "from zz_learn.selection import split\nprint(split([3, 4]))" in lesson, report
    assert "the step now uses zz_learn.selection.split, where the installed one has it" in (report)
    assert "print(zl.ols('y ~ x'))" in lesson
    assert (
        "step 2 uses zz_learn.api.ols, which the installed zz_learn does not have: written for "
        "another version of zz_learn (installed: unknown); the installed version has "
        "zz_learn.formula.api.ols: use it"
    ) in report
    assert "step 3 uses zz_learn.api.date, which the installed zz_learn does not have" in report
    assert "formula.api.date" not in report


def test_names_one_installed_package_lacks_are_one_line_of_the_report(
    course_folder, tmp_path, monkeypatch
):
    """BlackJAX's ODE chapter uses four modules of an older probdiffeq in six steps: nine
    lines of the report said the same thing. Names one package lacks, with nothing to
    write in their place, are one line naming each with its steps and lines."""
    installed_package(
        tmp_path, monkeypatch, "zz_old", {"__init__.py": "def kept():\n    return 1\n"}
    )
    cells = [
        "import zz_old\nprint(zz_old.kept())\nprint(zz_old.solvers)",
        "print(zz_old.strategies)",
        "print(zz_old.solvers, zz_old.kept())",
    ]
    report, lesson = imported(course_folder, cells)
    lines = [line for line in report.splitlines() if "zz_old does not have" in line]
    assert len(lines) == 1, report
    at = [line_of(lesson, text) for text in cells[0].splitlines()[2:] + cells[1:]]
    assert lines[0].endswith(
        "the code uses names the installed zz_old does not have: zz_old.solvers (step 1 at "
        f"line {at[0]}, step 3 at line {at[2]}); zz_old.strategies (step 2 at line {at[1]}): "
        "written for another version of zz_old (installed: unknown); write it for the "
        "installed version, or add the version it was written for to your requirements "
        "(zz_old==...)"
    ), lines[0]


def test_a_namespace_the_package_no_longer_loads_is_read_where_the_package_has_the_name(
    course_folder, tmp_path, monkeypatch
):
    """QuantEcon's robustness: `qe.lqcontrol.LQ(...)` after `import quantecon as qe`.
    quantecon 0.11 keeps lqcontrol only as a deprecated module its package no longer
    imports, so the attribute read fails (AttributeError), though the module is there; the
    package has the same LQ at its top. The import writes `qe.LQ` and says so. Where the
    notebook imports the module itself, or a module of the package loads it, or the
    package has no such name, nothing is said."""
    files = {
        "__init__.py": "from zz_econ._control import LQ, Kalman\nfrom zz_econ import loaded\n",
        "_control.py": "class LQ:\n    size = 2\n\nclass Kalman:\n    pass\n",
        "other.py": "class Kalman:\n    pass\n",  # not the same object
    }
    for shim in ("control", "filters", "loaded"):
        files[f"{shim}.py"] = "from zz_econ._control import LQ, Kalman\n"
    installed_package(tmp_path, monkeypatch, "zz_econ", files)
    cells = [
        "import zz_econ as ze\nprint(ze.control.LQ.size, ze.control.Kalman)",
        "import zz_econ.filters\nprint(zz_econ.filters.Kalman)",
        "print(ze.loaded.LQ)",
    ]
    report, lesson = imported(course_folder, cells)
    assert "print(ze.LQ.size, ze.Kalman)" in lesson, report
    assert "the step now uses zz_econ.LQ.size, where the installed one has it" in report
    assert "the step now uses zz_econ.Kalman, where the installed one has it" in report
    assert "print(zz_econ.filters.Kalman)" in lesson  # imported by the notebook itself
    assert "print(ze.loaded.LQ)" in lesson  # the package loads it
    assert "zz_econ.filters" not in report and "zz_econ.loaded" not in report


def test_a_name_found_elsewhere_replaces_a_gone_one_only_if_it_has_what_the_code_reads(
    tmp_path, monkeypatch
):
    """statsmodels' draft KDE notebooks: `from statsmodels.kernel_methods import
    fast_linbin`, then `fast_linbin.fast_linbin_nd(...)`: the draft's module, not the function
    of that name statsmodels.nonparametric.kde has. A name is written where the package has
    it now only where that has every attribute the code reads off it."""
    from coursesite.importers.apidrift import api_drift

    functions = (
        "def linbin(x):\n    return x\n\ndef bandwidth(x):\n    return x\nbandwidth.scott = 1.06\n"
    )
    files = {
        "__init__.py": "from zz_kde import nonparametric\n",
        "nonparametric/__init__.py": functions,
    }
    installed_package(tmp_path, monkeypatch, "zz_kde", files)
    steps = [
        (1, "cell 2", "from zz_kde.draft_methods import linbin"),
        (2, "cell 3", "from zz_kde.draft_methods import bandwidth"),
        (3, "cell 4", "print(linbin.linbin_nd([1]), bandwidth.scott, bandwidth([2]))"),
    ]
    drifts = api_drift(steps, set()).drifts
    instead = {drift.path: drift.instead for drift in drifts if drift.number < 3}
    assert instead == {
        # A function, where the code reads a module's linbin_nd off it: nothing written.
        "zz_kde.draft_methods.linbin": "",
        "zz_kde.draft_methods.bandwidth": "zz_kde.nonparametric.bandwidth",  # has .scott
    }


def test_a_keyword_the_installed_function_does_not_take_is_named_before_any_build(
    course_folder,
):
    """tinygp's tutorials call `tinygp.kernels.ExpSineSquared(period=2.5)`, a keyword
    tinygp 0.3 renamed: the build failed there with a TypeError; the import now names it
    at its line, by the installed signature. A function that takes **kwargs takes any
    keyword; a keyword a migration writes anew (read_csv's delim_whitespace) is settled."""
    import numpy

    cells = [
        "import numpy as np\nimport matplotlib.pyplot as plt\nimport pandas as pd\nimport io",
        "grid = np.linspace(0, 1, num=3, points=2)\nplt.plot(grid, grid, colour='red')",
        "table = pd.read_csv(io.StringIO('a  b\\n1  2\\n'), delim_whitespace=True)",
        "more = np.linspace(0, 1, points=4)",
        # statsmodels' `datasets.spector.load(as_pandas=False)`: a function of no parameters.
        "import random\nrandom.getstate(version=2)",
    ]
    report, lesson = imported(course_folder, cells)
    said = [line for line in report.splitlines() if "does not take" in line]
    assert len(said) == 3, report  # once a step and keyword
    assert "step 5 calls random.getstate(version=), which the installed random" in said[2]
    at = line_of(lesson, "grid = np.linspace")
    assert said[0].endswith(
        f"cell 5, lesson line {at}: step 2 calls numpy.linspace(points=), which the "
        f"installed numpy does not take: written for another version of numpy (installed: "
        f"{numpy.__version__}); write the call as the installed version takes it (see the "
        "signature of numpy.linspace), or add the version it was written for to your "
        "requirements (numpy==...)"
    )
    assert "step 4 calls numpy.linspace(points=)" in said[1]
    assert "colour" not in report and "delim_whitespace=), which" not in report


def test_a_name_gone_with_nothing_like_it_left_is_reported_not_guessed(course_folder):
    cells = ["import jax", "print(jax.no_such_function_ci(1))"]
    report, lesson = imported(course_folder, cells)
    line = line_of(lesson, "jax.no_such_function_ci")
    assert (
        f"lesson line {line}: step 2 uses jax.no_such_function_ci, which the installed jax "
        "does not have"
    ) in report, report
    assert "write it for the installed version, or add the version it was written for" in report
    assert "spelled almost alike" not in report
    built = course_folder.cli("-q")
    assert f"01-downloads.md:{line}: step 2 failed: AttributeError" in built.stderr


def test_a_step_that_asks_jax_for_a_gpu_it_lacks_is_named_before_any_build(course_folder):
    """NumPyro's benchmark notebook starts with numpyro.set_platform("gpu"); JAX's own
    spellings are jax.config.update("jax_platforms", "cuda") and jax.devices("gpu"). JAX
    here has CPUs only: each is named at its line. Asking for the CPU is not."""
    import jax

    assert jax.default_backend() == "cpu"  # what this test is about: a machine without one
    cells = [
        "import jax\nfrom jax import config\njax.config.update('jax_platforms', 'cuda')",
        "jax.config.update('jax_enable_x64', True)\nprint(jax.devices('cpu'))",
        "gpus = jax.devices('gpu')",
        # tinygp's benchmarks compile for each backend.
        "from functools import partial\non_cpu = jax.jit(abs, backend='cpu')\n"
        "on_gpu = jax.jit(abs, backend='gpu')\n@partial(jax.jit, backend='gpu')\n"
        "def f(x):\n    return x",
    ]
    report, lesson = imported(course_folder, cells)
    said = [line for line in report.splitlines() if "asks JAX for" in line]
    assert len(said) == 4, said
    assert f"lesson line {line_of(lesson, 'on_gpu =')}: step 4 asks JAX for gpu" in said[2]
    assert "step 4 asks JAX for gpu devices (partial(jax.jit, backend='gpu'))" in said[3]
    at = line_of(lesson, "jax.config.update('jax_platforms', 'cuda')")
    assert said[0].endswith(
        f"cell 3, lesson line {at}: step 1 asks JAX for cuda devices "
        "(jax.config.update('jax_platforms', 'cuda')), which JAX here does not have: where "
        "the site is built without them the step fails, and the steps that need it with it; "
        "declare the hardware (`hardware: gpu` in the front matter) and build where it is, "
        "or write the step for the CPU"
    )
    assert "step 3 asks JAX for gpu devices (jax.devices('gpu'))" in said[1]


def test_why_the_packages_could_not_be_checked_is_said():
    """jax-ai-stack's data-loader guide imports torch, tensorflow and grain: the check's
    interpreter ended without an answer, and the report said only that. It now says what
    ended it: the signal, or its last words."""
    import subprocess

    from coursesite.importers.apidrift import why_unchecked

    killed = subprocess.CompletedProcess([], -11, "", "Fatal Python error: Segmentation fault")
    assert why_unchecked(killed) == " (the interpreter that imported them was killed by SIGSEGV)"
    raised = subprocess.CompletedProcess([], 1, "", "Traceback ...\n  x\nRuntimeError: boom\n\n")
    assert why_unchecked(raised) == " (RuntimeError: boom)"
    assert why_unchecked(subprocess.CompletedProcess([], 1, "", "")) == ""


def test_a_name_spelled_almost_as_one_the_package_has_is_said_as_a_misspelling(course_folder):
    """QuantEcon's calvo_addon calls np.linespace: no NumPy ever had it, so "written for
    another version" alone misleads; the report names linspace. A name with nothing spelled
    like it (above) is not given one."""
    cells = ["import numpy as np", "xs = np.linespace(0, 100, 1)"]
    report, lesson = imported(course_folder, cells)
    line = line_of(lesson, "np.linespace")
    assert (
        f"lesson line {line}: step 2 uses numpy.linespace, which the installed numpy does not "
        "have, and has numpy.linspace, a name spelled almost alike: if the notebook misspells "
        "it, write numpy.linspace; else write it for the installed version"
    ) in report, report
    assert "np.linespace(0, 100, 1)" in lesson  # a guess is not written


def test_a_package_the_build_lacks_is_named_with_the_requirement_line_to_add(course_folder):
    report, _ = imported(
        course_folder,
        [
            '!pip install -q scikit-image==0.19.0 "tabulated-frames[fast]>=2"\n'
            "import skimage\nimport tabulated_frames\nimport cv2\nimport haiku as hk",
        ],
    )
    lacking = {
        line.split("imports ")[1].split(",")[0]: line
        for line in report.splitlines()
        if "which is not installed where you build" in line
    }
    assert sorted(lacking) == ["cv2", "haiku", "skimage", "tabulated_frames"]
    # The notebook's own pin, else the distribution's name, which is not always the module's.
    assert "add the line scikit-image==0.19.0 to your requirements" in lacking["skimage"]
    assert "add the line tabulated-frames[fast]>=2 to" in lacking["tabulated_frames"]
    assert "add the line opencv-python to your requirements" in lacking["cv2"]
    assert "add the line dm-haiku to your requirements" in lacking["haiku"]
    assert "not installed where you build: scikit-image==0.19.0 " in report


def test_an_address_built_from_another_is_read_and_one_only_compared_is_not():
    from coursesite.importers.networkreads import NetworkReads

    reads = NetworkReads()
    assert reads.scan("import pandas as pd\nBASE = 'https://data.example/'") == []
    code = (
        "a = pd.read_csv(BASE + 'rows.csv')\n"
        "b = pd.read_csv(f'{BASE}/rows.csv')\n"
        "c = pd.read_csv('https://data.example/{}.csv'.format(3))\n"
        "if BASE.startswith('https://'):\n"
        "    print(BASE + 'rows.csv')\n"
        "d = pd.read_csv('rows.csv')\n"
        "import tensorflow_datasets as tfds\n"
        "e = tfds.data_source('mnist', split='train')\n"
        "f = tfds.load('mnist', data_dir='tfds', download=False)\n"
    )
    found = reads.scan(code)
    assert [line for line, _ in found] == [0, 1, 2, 7]
    assert found[0][1] == "pd.read_csv(BASE, an address)"
    assert found[3][1] == "tfds.data_source()"


def test_a_network_error_is_told_by_its_class_its_cause_and_where_it_was_raised():
    import errno
    import socket
    import urllib.error

    from coursesite.execution.networkerrors import read_the_network

    def raised(error, cause=None):
        try:
            raise error from cause
        except BaseException as caught:
            return caught

    requests_error = type("ConnectionError", (OSError,), {"__module__": "requests.exceptions"})
    assert read_the_network(raised(socket.gaierror(-2, "Name or service not known")))
    assert read_the_network(raised(OSError(errno.ENETUNREACH, "Network is unreachable")))
    assert read_the_network(raised(requests_error("Max retries exceeded")))
    wrapped = raised(RuntimeError("could not load mnist"), urllib.error.URLError("refused"))
    assert read_the_network(wrapped)
    # A library that caught the network's error and raised its own, quoting it, chain cut.
    quoted = "Error downloading x.gz:\nTried http://a/, got:\n<urlopen error [Errno -2] "
    assert read_the_network(raised(RuntimeError(quoted + "Name or service not known>")))
    # NumPy's loadtxt of an address it could not fetch: its DataSource swallows the URLError.
    import numpy

    with pytest.raises(FileNotFoundError) as not_fetched:
        numpy.loadtxt("http://127.0.0.1:9/FordA.tsv")
    assert read_the_network(not_fetched.value)
    # A file that is not there, or a timeout the code raised itself, is no network error.
    assert not read_the_network(raised(FileNotFoundError(errno.ENOENT, "rows.csv")))
    assert not read_the_network(raised(FileNotFoundError("data/https.tsv not found.")))
    assert not read_the_network(raised(TimeoutError("the solver took too long")))
    assert not read_the_network(raised(ValueError("bad"), KeyError("k")))


def test_a_data_file_beside_the_notebook_is_brought_and_a_missing_one_named(course_folder):
    (course_folder.root / "rows.csv").write_text("a\nb\nc\n")  # beside the notebook
    (course_folder.root / "data").mkdir()
    (course_folder.root / "data" / "sizes.txt").write_text("4 4 3\n")
    for number in range(3):  # read by a computed name, f"data/scan_{i}.txt"
        (course_folder.root / "data" / f"scan_{number}.txt").write_text(f"{number}\n")
    secret = course_folder.root.parent / "secret.txt"
    secret.write_text("not the course's\n")
    (course_folder.root / "linked.txt").symlink_to(secret)  # a link: never published
    report, lesson = imported(
        course_folder,
        [
            "import numpy as np\nrows = open('rows.csv').read().splitlines()\nprint(len(rows))",
            "np.save('made.npy', np.arange(3))\nprint(np.load('made.npy').sum())",
            "import os\nDATA = 'data'\nprint(open(os.path.join(DATA, 'sizes.txt')).read())\n"
            "print([open(f'{DATA}/scan_{i}.txt').read() for i in range(3)])",
            "from pathlib import Path\nlabels = Path('labels.txt').read_text().split()\n"
            "linked = Path('linked.txt').read_text()",
        ],
    )
    # Copied to the same place beside the lesson, and listed for the build to copy.
    assert "cell 3: rows.csv, which the code reads, copied from beside the notebook" in report
    assert "data/sizes.txt, which the code reads, copied from beside the notebook" in report
    assert "data/scan_*.txt (3 files), which the code reads, copied from beside" in report
    assert (
        "\nfiles:\n  - rows.csv\n  - data/sizes.txt\n  - data/scan_0.txt\n  - data/scan_1.txt\n"
        "  - data/scan_2.txt\n"
    ) in lesson
    folder = course_folder.root.joinpath(*LESSON).parent
    assert (folder / "data" / "sizes.txt").read_text() == "4 4 3\n"
    # One found nowhere is named at its line (the front matter's lines counted).
    missing, linked = [line for line in report.splitlines() if "reads the file" in line]
    assert "reads the file linked.txt; copy it from beside the notebook" in linked
    assert not (course_folder.root.joinpath(*LESSON).parent / "linked.txt").exists()
    assert f"lesson line {line_of(lesson, 'labels.txt')}: step 4 reads the file labels.txt; " in (
        missing
    )
    assert "it is not beside the notebook: save it as content/02-downloads/labels.txt" in missing
    # Done as the report says, the lesson builds.
    path = course_folder.root.joinpath(*LESSON)
    (path.parent / "labels.txt").write_text("cat dog\n")
    path.write_text(
        lesson.replace("  - rows.csv\n", "  - rows.csv\n  - labels.txt\n").replace(
            "linked = Path('linked.txt').read_text()", ""
        )
    )
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_file_opened_to_write_or_unpacked_earlier_is_no_data_file():
    from coursesite.importers.datafiles import data_reads

    code = (
        "import h5py, zipfile\n"
        "with h5py.File('weights.h5', 'w') as f:\n    pass\n"
        "weights = h5py.File('weights.h5')\n"
        "archive = zipfile.ZipFile('images.zip')\n"
        "archive.extractall('images')\n"
        "first = open('images/0.png', 'rb')\n"
        "later = open('later.txt')\n"
        "open('later.txt', 'w').write('x')\n"
        "Image(filename='images/grid.png', width='40%')\n"
        "Image(filename='figures/grid.png')\n"
        "Image(url='https://example.com/grid.png')\n"
        "frames = [open(f'{i}.png') for i in range(3)]\n"  # any image at all: no data file
    )
    assert data_reads([(4, "cell 6", code)]) == [
        (4, "cell 6", 4, "images.zip"),
        (4, "cell 6", 7, "later.txt"),  # written only after it is read
        (4, "cell 6", 10, "figures/grid.png"),  # IPython's Image, given a file
    ]


def test_a_file_named_by_joining_strings_is_brought_and_the_lesson_builds(course_folder):
    """QuantEcon's match_transport and subjective_beliefs: `data_path =
    '_static/lecture_specific/x/'`, then `pd.read_csv(data_path + 'summary.csv')`. The file
    was not seen as one the code reads, so the first build failed with FileNotFoundError;
    `+` of strings (and of names assigned one) names it as Python joins it. A name part
    (`stem + '_2.csv'`) joins without a folder between; `+=` joins as `+` does."""
    folder = course_folder.root / "_static" / "x"
    folder.mkdir(parents=True)
    (folder / "summary.csv").write_text("1\n2\n")
    (course_folder.root / "rows_2.txt").write_text("3\n")
    report, _ = imported(
        course_folder,
        [
            "data_path = '_static/'\ndata_path += 'x/'\nstem = 'rows'\n"
            "print(open(data_path + 'summary.csv').read().split())\n"
            "print(open(stem + '_2.txt').read().split())",
        ],
    )
    assert "_static/x/summary.csv, which the code reads, copied from beside the notebook" in (
        report
    )
    assert "rows_2.txt, which the code reads, copied from beside the notebook" in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_file_named_from_the_working_folder_is_a_data_file_the_lesson_needs():
    """numpy-tutorials' masked arrays: `os.path.join(os.getcwd(), "who.csv")` is who.csv in
    the folder the code runs in, which the import must report (the build got it first)."""
    from coursesite.importers.datafiles import data_reads

    code = (
        "import os\nimport numpy as np\nfilepath = os.getcwd()\n"
        "filename = os.path.join(filepath, 'who.csv')\n"
        "dates = np.genfromtxt(filename, delimiter=',')\n"
        "rows = open(Path.cwd() / 'data' / 'rows.txt').read()"
    )
    assert data_reads([(2, "cell 3", code)]) == [
        (2, "cell 3", 4, "who.csv"),
        (2, "cell 3", 5, "data/rows.txt"),
    ]


def test_a_spreadsheet_or_store_opened_to_read_is_a_data_file():
    """QuantEcon's inflation_history opens `pd.ExcelFile('datasets/chapter_3.xlsx')` to read
    its sheets: the import named its other spreadsheet, the build found this one."""
    from coursesite.importers.datafiles import data_reads

    code = (
        "import pandas as pd, openpyxl, xarray as xr\n"
        "from scipy.io import wavfile\n"
        "xls = pd.ExcelFile('datasets/chapter_3.xlsx')\n"
        "book = openpyxl.load_workbook('prices.xlsx')\n"
        "store = pd.HDFStore('frames.h5')\n"
        "sea = xr.open_dataset('sst.nc')\n"
        "rate, sound = wavfile.read('tone.wav')\n"
        "text = xls.book.read()\n"
    )
    assert data_reads([(6, "cell 9", code)]) == [
        (6, "cell 9", 2, "datasets/chapter_3.xlsx"),
        (6, "cell 9", 3, "prices.xlsx"),
        (6, "cell 9", 4, "frames.h5"),
        (6, "cell 9", 5, "sst.nc"),
        (6, "cell 9", 6, "tone.wav"),
    ]


def test_a_compressed_file_opened_to_read_is_a_data_file_and_one_opened_to_write_is_not():
    """networkx's chess-masters example reads `bz2.BZ2File(pgn_file)`, a parameter that
    defaults to `chess_masters_WCC.pgn.bz2`: the import did not see the read and the build
    stopped at its FileNotFoundError. A compressed file opened to write is made, not read."""
    from coursesite.importers.datafiles import data_reads

    code = (
        "import bz2, gzip, lzma\n"
        "def games(pgn_file='chess_masters_WCC.pgn.bz2'):\n"
        "    with bz2.BZ2File(pgn_file) as datafile:\n"
        "        return datafile.read()\n"
        "rows = gzip.GzipFile('rows.csv.gz').read()\n"
        "lzma.LZMAFile('made.xz', 'wb').write(b'x')\n"
        "again = lzma.LZMAFile('made.xz').read()\n"
    )
    assert data_reads([(4, "cell 2", code)]) == [
        (4, "cell 2", 2, "chess_masters_WCC.pgn.bz2"),
        (4, "cell 2", 4, "rows.csv.gz"),
    ]


def test_a_file_without_an_extension_is_read_by_its_path_or_by_open():
    """nx-guides' assortativity guide unpickles `open("data/pos", "rb")`: a file without an
    extension that the build then missed. A mode or other words are no files."""
    from coursesite.importers.datafiles import data_reads

    code = (
        "import pickle\nimport numpy as np\n"
        "with open('data/pos', 'rb') as fp:\n    pos = pickle.load(fp)\n"
        "notes = open('README').read()\n"
        "license = open(mode='r', file='LICENSE').read()\n"
        "table = np.loadtxt('tables/first', delimiter=',')\n"
        "same = np.loadtxt('plain', delimiter=',')\n"
        "open('out', 'w').write('x')\n"
    )
    assert data_reads([(2, "cell 3", code)]) == [
        (2, "cell 3", 2, "data/pos"),
        (2, "cell 3", 4, "README"),
        (2, "cell 3", 5, "LICENSE"),
        (2, "cell 3", 6, "tables/first"),
    ]


def test_a_path_a_functions_parameter_defaults_to_is_a_file_its_body_reads():
    """QuantEcon's Hansen-Singleton lecture loads `csv_path="stock_prices...csv"` in a
    function of its own: the build stopped at its FileNotFoundError, the import had not
    seen the read. A default that is no path, or a parameter read only by a write, is no
    data file."""
    from coursesite.importers.datafiles import data_reads

    code = (
        "import pandas as pd\n"
        "def load(csv_path='returns.csv', *, sheet='ab', out='made.csv', limit=3):\n"
        "    frame = pd.read_csv(csv_path)\n"
        "    frame.to_csv(out)\n"
        "    return frame\n"
        "def later(first, name='notes.txt'):\n"
        "    return open(name).read()\n"
    )
    assert data_reads([(3, "cell 4", code)]) == [
        (3, "cell 4", 2, "returns.csv"),
        (3, "cell 4", 6, "notes.txt"),
    ]


def test_a_path_given_to_a_function_of_the_notebooks_own_that_reads_it_is_a_data_file():
    """QuantEcon's Hansen-Jagannathan lecture reads its JSON through `_load_bundle(url)`,
    whose body opens `Path(url)`: the import did not see the read, and the build stopped on
    a FileNotFoundError. A path given to a parameter the body only writes, or to another
    function, is no read; a call in a later step counts, by keyword too."""
    from coursesite.importers.datafiles import data_reads

    defining = (
        "import json\nfrom pathlib import Path\n"
        "def load_bundle(kind, url, out='x.csv'):\n"
        "    path = Path(url)\n    if not path.exists():\n        path = Path('lectures') / url\n"
        "    with open(path) as f:\n        raw = json.load(f)\n"
        "    Path(out).write_text(kind)\n    return raw\n"
        "def label(text):\n    return text.upper()\n"
        "DATA = ('_static/data/'\n        'bundle.json')\n"
        "bundle = load_bundle('a', DATA, 'made.csv')\n"
    )
    later = "other = load_bundle('b', url='more.json')\nprint(label('title.png'))"
    assert data_reads([(3, "cell 4", defining), (4, "cell 5", later)]) == [
        (3, "cell 4", 14, "_static/data/bundle.json"),
        (4, "cell 5", 0, "more.json"),
    ]
    # A path that reaches the read through names assigned in a loop, each from one assigned
    # below it: every pass of the loop is followed, however many it takes.
    looping = (
        "from pathlib import Path\ndef notes_of(url):\n    for _ in range(3):\n"
        "        c = b\n        b = a\n        a = Path(url)\n    return open(c).read()\n"
        "text = notes_of('notes.txt')\n"
    )
    assert data_reads([(1, "cell 2", looping)]) == [(1, "cell 2", 7, "notes.txt")]


def test_a_write_into_a_folder_no_step_makes_is_named_with_the_line_that_makes_it(
    course_folder,
):
    # As numpy-tutorials' save-load-arrays.md: `_generated/` is a folder of the notebook's
    # repository, not of the folder the build runs the lesson's code in.
    report, lesson = imported(
        course_folder,
        [
            "import numpy as np\nx = np.arange(3)\ny = x**2",
            'np.savez("_generated/x_y-squared.npz", x_axis=x, y_axis=y)',
            'load_xy = np.load("_generated/x_y-squared.npz")\nprint(load_xy["y_axis"])',
        ],
    )
    writes = [line for line in report.splitlines() if "into the folder" in line]
    assert len(writes) == 1, report  # the load reads what the step before it wrote
    assert writes[0].endswith(
        f"cell 5, lesson line {line_of(lesson, 'np.savez(')}: step 2 writes the file "
        "_generated/x_y-squared.npz into the folder _generated/, which no step makes before "
        "it: the build runs the code in a folder of its own, without the notebook's "
        "_generated/, so the write fails (FileNotFoundError); make the folder in the step "
        "first: os.makedirs('_generated', exist_ok=True) (after import os)"
    )
    assert "makedirs" not in lesson  # reported, never written into the reader's code
    # Done as the report says, the lesson builds.
    path = course_folder.root.joinpath(*LESSON)
    path.write_text(
        lesson.replace(
            "np.savez(", "import os\nos.makedirs('_generated', exist_ok=True)\nnp.savez(", 1
        )
    )
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_folder_beside_the_notebook_that_the_code_writes_into_is_brought(course_folder):
    """numpy-tutorials keeps `_generated/` in the repository (a README holds it there): the
    notebook writes into it without making it, so the import brings the folder's files and
    the lesson builds as the notebook ran, with no line of code added."""
    generated = course_folder.root / "_generated"
    generated.mkdir()
    (generated / "README.md").write_text("Files the tutorials write.\n")
    (generated / ".gitkeep").write_text("")
    report, lesson = imported(
        course_folder,
        [
            "import numpy as np\nx = np.arange(3)\ny = x**2",
            'np.savez("_generated/x_y-squared.npz", x_axis=x, y_axis=y)',
            'load_xy = np.load("_generated/x_y-squared.npz")\nprint(load_xy["y_axis"])',
        ],
    )
    assert "into the folder" not in report and "makedirs" not in lesson
    assert "the code writes into _generated/, a folder beside the notebook: its 2 file(s)" in (
        report
    )
    assert "\nfiles:\n  - _generated/.gitkeep\n  - _generated/README.md\n" in lesson
    folder = course_folder.root.joinpath(*LESSON).parent
    assert (folder / "_generated" / "README.md").read_text() == "Files the tutorials write.\n"
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_folder_made_before_the_write_by_any_maker_is_not_reported():
    from coursesite.importers.datafiles import writes_without_folder

    made = (
        "import os, shutil, zipfile\nfrom pathlib import Path\n"
        "os.makedirs('out/deep', exist_ok=True)\nnp.save('out/deep/a.npy', a)\n"
        "np.save('out/b.npy', b)\n"  # makedirs made out/ too
        "FIGURES = Path('figures')\nFIGURES.mkdir()\nplt.savefig(FIGURES / 'plot.png')\n"
        "target = Path('saved/c.csv')\ntarget.parent.mkdir(parents=True)\n"
        "df.to_csv(target)\n"
        "zipfile.ZipFile('images.zip').extractall('images')\n"
        "shutil.copy('images/0.png', 'kept.png')\n"  # a source, not a write
        "MNIST('data', download=True)\nopen('data/notes.txt', 'w').write('x')\n"
        "np.savetxt('plain.csv', a, header='x, y/z.csv')\n"  # beside the code: no folder
    )
    assert writes_without_folder([(1, "cell 2", made)]) == []
    missing = (
        "with open('logs/run.txt', 'w') as log:\n    log.write('x')\n"
        "Path('notes/a.md').write_text('x')\n"
        "shutil.copy('kept.png', 'backup/kept.png')\n"
        "np.save('logs/again.npy', a)\n"  # one line for each folder
        "os.makedirs(where)\nnp.save('later/x.npy', a)\n"  # made by a name not told: silent
    )
    assert writes_without_folder([(3, "cell 7", missing)]) == [
        (3, "cell 7", 0, "logs/run.txt", "logs"),
        (3, "cell 7", 2, "notes/a.md", "notes"),
        (3, "cell 7", 3, "backup/kept.png", "backup"),
    ]


def test_a_name_missing_only_because_another_package_is_missing_is_no_drift(tmp_path, monkeypatch):
    from coursesite.importers.apidrift import api_drift

    package = tmp_path / "grainlike"
    package.mkdir()
    (package / "__init__.py").write_text("from grainlike import checkpoint\nREAL = 1\n")
    # As grain.checkpoint: its save class is imported only if orbax is there.
    (package / "checkpoint.py").write_text(
        "Handler = object\ntry:\n    from orbaxlike_absent import CheckpointSave\n"
        "except ImportError:\n    pass\n"
    )
    # A submodule that cannot be imported at all without another package.
    (package / "needs.py").write_text("import orbaxlike_absent\nThing = 1\n")
    # A package that cannot be imported at all without another.
    (tmp_path / "brokenlike").mkdir()
    (tmp_path / "brokenlike" / "__init__.py").write_text("import absentdep_ci.sub\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    code = (
        "import grainlike\nimport grainlike.needs\nimport brokenlike\n"
        "grainlike.checkpoint.CheckpointSave()\nprint(grainlike.needs.Thing)\n"
        "print(grainlike.checkpoint.Gone, grainlike.Moved)\nprint(brokenlike.VALUE)"
    )
    check = api_drift([(1, "cell 2", code)], set())
    assert check.stopped == ""
    assert sorted(drift.missing for drift in check.drifts) == [
        "grainlike.Moved",
        "grainlike.checkpoint.Gone",
    ]
    # The submodule that cannot be imported: no drift, but what it lacks is named.
    lacking = [(module.module, module.lacks, module.offset) for module in check.lacking]
    assert lacking == [
        ("grainlike.needs", "orbaxlike_absent", 1),  # `import grainlike.needs`, its first use
        ("brokenlike", "absentdep_ci", 2),
    ]


def test_a_module_that_imports_one_not_installed_is_named_by_the_import(
    course_folder, tmp_path, monkeypatch
):
    """Orbax's training helpers import tensorflow_datasets, which nothing installed: the
    notebook imports the helpers, the build would fail there, and the import says so."""
    package = tmp_path / "libs" / "orbaxlike"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("import datasets_absent_ci\nModel = object\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "libs"))
    report, lesson = imported(
        course_folder, ["import numpy as np", "from orbaxlike.helpers import Model\nModel()"]
    )
    line = line_of(lesson, "from orbaxlike.helpers import Model")
    assert (
        f"cell 5, lesson line {line}: step 2 imports orbaxlike.helpers, which imports "
        "datasets_absent_ci, not installed where you build: add the line datasets-absent-ci "
        "to your requirements"
    ) in report, report


def test_a_version_the_code_asserts_that_is_not_installed_becomes_a_comment(course_folder):
    """NumPyro's notebooks assert the version they were written for: with another one
    installed the build would stop at that line, though the rest may run on it. The assert
    becomes a comment, said in the report with the version to pin; one inside a block,
    which a comment would leave empty, is reported as stopping the build."""
    import numpy

    installed = numpy.__version__
    report, lesson = imported(
        course_folder,
        [
            'import numpy as np\nassert np.__version__.startswith("0.14.0")\nprint(np.e)',
            f'import numpy\nassert numpy.__version__ == "{installed}"',
            'assert np.__version__.startswith("' + installed.rsplit(".", 1)[0] + '")',
            'if True:\n    assert np.__version__ == "1.0"',
        ],
    )
    assert (
        f"# written for numpy 0.14.0, and {installed} is installed: assert "
        'np.__version__.startswith("0.14.0")\nprint(np.e)'
    ) in lesson
    line = line_of(lesson, 'assert np.__version__.startswith("0.14.0")')
    assert (
        f"cell 3, lesson line {line}: step 1 asserts that numpy's version starts with 0.14.0, "
        f"and {installed} is installed where you build: the assert became a comment, so the "
        f"build runs the step on {installed} (the check of the stored outputs shows what "
        "changed); pin numpy==0.14.0 in your requirements to keep the notebook's version"
    ) in report, report
    assert '    assert np.__version__ == "1.0"' in lesson
    assert (
        f"step 4 asserts that numpy's version is 1.0, and {installed} is installed where you "
        f"build: the build stops there; write the step for {installed} (its assert too)"
    ) in report, report
    assert report.count("asserts that") == 2  # not the asserts the installed version meets


def test_a_name_gone_under_a_module_reached_by_its_alias_is_drift(tmp_path, monkeypatch):
    """Orbax's `from orbax.checkpoint import v1 as ocp`: `v1` is an attribute standing for
    orbax.checkpoint.experimental.v1, so `ocp.partial.save_pytree` is looked up in that
    module by its own name, not as a module path that does not exist."""
    from coursesite.importers.apidrift import api_drift

    package = tmp_path / "orbaxlike"
    (package / "experimental" / "v1").mkdir(parents=True)
    (package / "__init__.py").write_text("from orbaxlike.experimental import v1\n")
    (package / "experimental" / "__init__.py").write_text("")
    (package / "experimental" / "v1" / "__init__.py").write_text(
        "from orbaxlike.experimental.v1 import partial\n"
    )
    (package / "experimental" / "v1" / "partial.py").write_text("def save(path): pass\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    code = (
        "from orbaxlike import v1 as ocp\n"
        "ocp.partial.save('p')\nocp.partial.save_pytree('p')\nocp.partial.Gone.thing"
    )
    check = api_drift([(1, "cell 2", code)], set())
    assert check.stopped == "" and check.lacking == []
    assert [(drift.missing, drift.offset) for drift in check.drifts] == [
        ("orbaxlike.v1.partial.save_pytree", 2),
        ("orbaxlike.v1.partial.Gone", 3),
    ]


def test_a_colab_only_import_is_named_at_its_line_not_taken_for_another_version(course_folder):
    report, lesson = imported(
        course_folder,
        ["import numpy as np", "from google.colab import files\nfiles.upload()\nrows = 3"],
    )
    hosted = [line for line in report.splitlines() if "google.colab" in line]
    at = line_of(lesson, "from google.colab import files")
    assert len(hosted) == 1, hosted  # no "written for another version" line besides
    assert (
        f"cell 5, lesson line {at}: step 2 imports it; google.colab exists only inside "
        in (hosted[0])
    )
    assert "Google Colab, and no pip install brings it" in hosted[0]
    assert "skip-execution" in hosted[0]
    built = course_folder.cli("-q")
    assert built.returncode == 1
    assert f"01-downloads.md:{at}: step 2 failed: ModuleNotFoundError" in built.stderr
    assert "hint: google.colab exists only inside Google Colab" in built.stderr


def test_a_name_the_installed_package_says_to_use_instead_is_written_in_its_place():
    """NumPy 2 removed `np.unicode_` and says "Use `np.str_` instead." (numpy-tutorials'
    masked-arrays tutorial stopped on it): the import writes what the package says."""
    from coursesite.importers.apidrift import api_drift
    from coursesite.importers.renames import Rename, rename_of

    code = (
        "import numpy as np\nfrom numpy import float_\n"
        "names = np.array(['a'], dtype=np.unicode_)\ngap = np.NaN"
    )
    drifts = api_drift([(2, "cell 3", code)], set()).drifts
    assert {drift.missing: rename_of(drift) for drift in drifts} == {
        "numpy.float_": Rename("from numpy import float_", "from numpy import float64 as float_"),
        "numpy.unicode_": Rename("np.unicode_", "np.str_"),
        "numpy.NaN": Rename("np.NaN", "np.nan"),
    }
    # A name gone whose package says nothing to use instead stays reported, not guessed.
    (gone,) = api_drift([(1, "cell 1", "import numpy as np\nx = np.no_such_name_ci")], set()).drifts
    assert gone.instead == "" and rename_of(gone) is None


def test_numpy_1_names_numpy_2_removed_silently_are_written_as_its_migration_says(course_folder):
    """NumPy 2.4 says only "module 'numpy' has no attribute 'NAN'" (QuantEcon's
    money_inflation stopped on it): ruff's NPY201 table writes `np.nan`, through the alias
    an earlier step imported; where the new name behaves otherwise, its advice is reported."""
    report, lesson = imported(
        course_folder,
        [
            "import numpy as np\nx = np.array([1.0, 2.0])",
            "gap = np.NAN\narea = np.trapz(x)\nprint(np.isnan(gap), area)",
            # NumPy 1.24 removed its aliases of Python's types (statsmodels' GEE example).
            "rows = np.ones(2).astype(np.int)\nprint(rows, np.float(area))",
            "hits = np.in1d(x, [1.0])",
        ],
    )
    assert "gap = np.nan\narea = np.trapezoid(x)\n" in lesson
    assert "rows = np.ones(2).astype(int)\nprint(rows, float(area))" in lesson
    assert "step 3 uses numpy.int, which the installed numpy does not have" in report
    assert "; the step now uses int, which it stood for" in report
    assert "step 2 uses numpy.NAN, which the installed numpy does not have" in report
    assert "; the step now uses np.nan, where the installed one has it" in report
    assert "; the step now uses np.trapezoid, where the installed one has it" in report
    advice = next(line for line in report.splitlines() if "numpy.in1d" in line)
    assert "NumPy 2's migration (ruff's NPY201): `np.in1d` will be removed" in advice
    assert "np.isin(ar1, ar2).ravel()" in advice
    assert "hits = np.in1d(x, [1.0])" in lesson  # its meaning changes: the author decides
    built = course_folder.cli("-q")
    (failed,) = [line for line in built.stderr.splitlines() if line.startswith("error:")]
    assert f":{line_of(lesson, 'hits = np.in1d')}: step 4 failed: AttributeError" in failed


def test_only_a_name_that_moved_whole_is_renamed_never_what_is_under_a_module_gone():
    from coursesite.importers.apidrift import Drift
    from coursesite.importers.renames import Rename, rename_of

    def drift(missing: str, instead: str, written: str, path: str) -> Drift:
        return Drift(1, "cell 1", 0, missing, "jax", "0.10.2", instead, written, path)

    moved = drift("jax.tree_map", "jax.tree_util.tree_map", "jx.tree_map", "jax.tree_map")
    assert rename_of(moved) == Rename("jx.tree_map", "jx.tree_util.tree_map")
    imported = drift(
        "jax.tree_map", "jax.tree_util.tree_map", "from jax import tree_map", "jax.tree_map"
    )
    assert rename_of(imported) == Rename(
        "from jax import tree_map", "from jax.tree_util import tree_map"
    )
    # jax.experimental.maps is gone: that a module of that name is elsewhere says nothing
    # of whether xmap is in it.
    under = drift(
        "jax.experimental.maps",
        "jax.sharding.maps",
        "jax.experimental.maps.xmap",
        "jax.experimental.maps.xmap",
    )
    assert rename_of(under) is None
    assert rename_of(drift("jax.gone", "", "jax.gone", "jax.gone")) is None
    submodule = drift("jax.old", "jax.new.old", "import jax.old", "jax.old")
    assert rename_of(submodule) is None


def test_data_services_clients_are_network_reads_by_what_they_call():
    """QuantEcon's lectures read the World Bank, FRED and Yahoo through their clients,
    given no address: each call is named at its line, before any build."""
    from coursesite.importers.networkreads import NetworkReads

    code = (
        "import wbgapi as wb\nimport yfinance as yf\nimport seaborn as sns\n"
        "import pandas_datareader.data as web\n"
        "wb.series.info(q='GDP growth')\n"
        "gdp = wb.data.DataFrame('NY.GDP.MKTP.KD.ZG', ['USA'])\n"
        "prices = yf.download('AMZN', '2000-1-1', '2024-1-1')\n"
        "nber = web.DataReader('USREC', 'fred', start, end)\n"
        "tips = sns.load_dataset('tips')\n"
        "sns.lineplot(data=tips)\n"
    )
    found = NetworkReads().scan(code)
    assert [line for line, _ in found] == [4, 5, 6, 7, 8]
    assert found[2][1] == "yf.download()"


def test_a_tiktoken_encoding_is_a_network_read():
    """jax-ai-stack's LoRA tutorial stopped at tiktoken.get_encoding('gpt2'): tiktoken
    downloads the vocabulary the first time; encoding text with it is no read."""
    from coursesite.importers.networkreads import NetworkReads

    code = (
        "import tiktoken\ntokenizer = tiktoken.get_encoding('gpt2')\n"
        "ids = tokenizer.encode('Once upon a time')\n"
    )
    assert [line for line, _ in NetworkReads().scan(code)] == [1]


def test_numpyro_example_data_sets_are_network_reads():
    """BlackJAX's MCLMC page reads the S&P 500 with NumPyro's load_dataset, which downloads
    it from GitHub; HF's load_dataset of the same name is one too, a local loader is not."""
    from coursesite.importers.networkreads import NetworkReads

    code = (
        "from numpyro.examples.datasets import SP500, load_dataset\n"
        "import numpyro.examples.datasets as examples\nfrom mylib import load_dataset as mine\n"
        "_, fetch = load_dataset(SP500, shuffle=False)\n"
        "more = examples.load_dataset(examples.COVTYPE)\nown = mine('rows.csv')\n"
    )
    found = NetworkReads().scan(code)
    assert [line for line, _ in found] == [3, 4]


def test_a_model_built_with_pretrained_weights_reads_the_network():
    """jax-ai-stack's PyTorch porting guide builds torchvision's MaxViT with its ImageNet
    weights, which torchvision downloads; a model built without weights reads nothing."""
    from coursesite.importers.networkreads import NetworkReads

    code = (
        "from torchvision.models import maxvit_t, MaxVit_T_Weights\nimport timm\n"
        "from tensorflow import keras\n"
        "m = maxvit_t(weights=MaxVit_T_Weights.IMAGENET1K_V1)\n"
        "bare = maxvit_t(weights=None)\nplain = maxvit_t()\n"
        "t = timm.create_model('resnet18', pretrained=True)\n"
        "u = timm.create_model('resnet18')\n"
        "k = keras.applications.ResNet50()\n"
        "q = keras.applications.ResNet50(weights=None)\n"
        "pre = keras.applications.resnet50.preprocess_input(x)\n"
    )
    found = NetworkReads().scan(code)
    assert found == [
        (3, "maxvit_t(..., weights=MaxVit_T_Weights.IMAGENET1K_V1)"),
        (6, "timm.create_model(..., pretrained=True)"),
        (8, "keras.applications.ResNet50(..., its pretrained weights)"),
    ]


def test_modules_from_a_folder_the_code_puts_on_sys_path_are_no_packages_to_install(
    course_folder,
):
    """Flax's Gemma guide appends a cloned examples folder to sys.path and imports
    `params` and `sampler` from it: the report says so, and --install asks pip for neither
    (PyPI's namesakes are other projects). A later step's missing package is still one."""
    cells = [
        "import sys\nsys.path.append('/nowhere/examples/gemma')\n"
        "import zz_gemma_params as params\nfrom zz_gemma_sampler import Sampler\nimport numpy",
    ]
    course_folder.write(authoring_example())
    notebook(course_folder.root / "gemma.ipynb", cells)
    done = course_folder.cli("import", "gemma.ipynb", "--phase", "02", "--install")
    assert done.returncode == 0, done.stderr
    assert "cell 3: step 1 puts a folder on sys.path and imports zz_gemma_params, " in done.stdout
    assert "zz_gemma_sampler from it, which no package here provides" in done.stdout
    assert "installing " not in done.stderr and "pip install zz_gemma" not in done.stdout
    notebook(course_folder.root / "later.ipynb", [*cells, "import zz_not_installed_package"])
    done = course_folder.cli("import", "later.ipynb", "--phase", "02", "--install")
    (asked,) = [line for line in done.stderr.splitlines() if line.startswith("installing ")]
    assert asked.startswith("installing zz-not-installed-package with pip"), asked


def test_a_step_that_is_not_valid_python_is_reported_at_its_line(course_folder):
    """QuantEcon's lake_model opens a cell with four backticks and closes it with three:
    the prose after it runs on as code. The build refuses that; the report says so first."""
    cells = ["x = 1", "y = 2\nThis line is prose that ran on.\nz = 3"]
    report, lesson = imported(course_folder, cells)
    at = line_of(lesson, "This line is prose that ran on.")
    assert f"cell 5, lesson line {at}: step 2 is not valid Python (invalid syntax)" in report
    assert "step 1 is not valid Python" not in report


def test_a_stored_xla_runtime_error_is_declared_as_the_runtime_error_all_its_heirs_are(
    course_folder,
):
    """Lineax and Optimistix notebooks stored XlaRuntimeError where the installed Equinox
    raises EquinoxRuntimeError for the same failure: both are RuntimeErrors, and the step
    declares that, so the imported lesson builds."""
    from nbformat.v4 import new_output

    course_folder.write(authoring_example())
    kernel = {"name": "python3", "language": "python", "display_name": "Py"}
    book = new_notebook(metadata={"kernelspec": kernel})
    failing = new_code_cell(
        "class EquinoxRuntimeError(RuntimeError):\n    pass\n\n"
        "raise EquinoxRuntimeError('The maximum number of steps was reached')",
        outputs=[new_output("error", ename="XlaRuntimeError", evalue="steps", traceback=[])],
    )
    book.cells = [new_markdown_cell("# Roots\n\nNo root."), failing, new_code_cell("print(1)")]
    nbformat.write(book, course_folder.root / "roots.ipynb")
    done = course_folder.cli("import", "roots.ipynb", "--phase", "02", "--slug", "roots")
    assert done.returncode == 0, done.stderr
    assert "cell 2: its stored run raised XlaRuntimeError (jaxlib's name" in done.stdout
    lesson = next(course_folder.root.joinpath("content").rglob("*roots.md")).read_text()
    assert ":raises: RuntimeError\n" in lesson
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_moved_name_is_found_in_a_submodule_a_later_step_imports(course_folder):
    """QuantEcon's laffer_adaptive: `from matplotlib.cm import get_cmap` (gone from
    matplotlib 3.9) before the code's `matplotlib.pyplot` names, which hold it: where
    else the name is was asked before pyplot was imported, and nothing was found."""
    cells = ["from matplotlib.cm import get_cmap", "import matplotlib.pyplot as plt\nplt.close()"]
    report, lesson = imported(course_folder, cells)
    assert "from matplotlib.pyplot import get_cmap" in lesson, report


OWN_ADDRESS = "https://github.com/Org/tutorials/raw/main/lectures/_static/data/rows.csv"


def checkout_notebook(course_folder, remote: str | None = None):
    """A lecture in a checkout of Org/tutorials that reads its data by the address of the
    file in its own repository, and another repository's file; the import's result."""
    import subprocess

    course_folder.write(authoring_example())
    checkout = course_folder.root / "tutorials"
    (checkout / "lectures" / "_static" / "data").mkdir(parents=True)
    (checkout / "lectures" / "_static" / "data" / "rows.csv").write_text("1,2\n3,4\n")
    if remote:
        subprocess.run(["git", "init", "-q", str(checkout)], check=True)
        subprocess.run(["git", "-C", str(checkout), "remote", "add", "origin", remote], check=True)
    notebook(
        checkout / "lectures" / "rows.ipynb",
        [
            f"import numpy as np\nURL = '{OWN_ADDRESS}'\nrows = np.loadtxt(URL, delimiter=',')\n"
            "print(rows.sum())",
            "more = np.loadtxt('https://raw.githubusercontent.com/Org/data/main/more.csv')",
        ],
    )
    done = course_folder.cli(
        "import", "tutorials/lectures/rows.ipynb", "--phase", "02", "--slug", "downloads"
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, course_folder.root.joinpath(*LESSON).read_text()


def test_a_file_of_the_notebooks_own_repository_read_by_address_is_read_from_its_checkout(
    course_folder,
):
    report, lesson = checkout_notebook(course_folder)
    assert "URL = '_static/data/rows.csv'" in lesson
    assert "files:\n  - _static/data/rows.csv\n" in lesson
    copied = course_folder.root.joinpath(*LESSON).parent / "_static" / "data" / "rows.csv"
    assert copied.read_text() == "1,2\n3,4\n"
    assert (
        f"cell 3: the code reads {OWN_ADDRESS}, a file of the notebook's own repository "
        "(Org/tutorials), which its checkout holds: it reads _static/data/rows.csv instead"
    ) in report, report
    reads = [line for line in report.splitlines() if "reads the network" in line]
    assert len(reads) == 1 and "Org/data" in reads[0], reads  # another repository's file
    # The lesson's own step reads the copy: no network at build time.
    (course_folder.root.joinpath(*LESSON)).write_text(
        lesson.replace("more = np.loadtxt(", "more = (")
    )
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_git_checkout_of_another_repository_keeps_the_address(course_folder):
    report, lesson = checkout_notebook(course_folder, "https://github.com/Someone/fork.git")
    assert f"URL = '{OWN_ADDRESS}'" in lesson
    assert "own repository" not in report
    reads = [line for line in report.splitlines() if "reads the network" in line]
    assert len(reads) == 1 and "the lesson reads the network in 2 places (" in reads[0], reads


def test_a_seaborn_style_matplotlib_renamed_is_written_as_the_installed_one_names_it(
    course_folder,
):
    """Python Data Science Handbook's notebooks call plt.style.use('seaborn-whitegrid'),
    which Matplotlib 3.8 names 'seaborn-v0_8-whitegrid': the same style, written so."""
    import matplotlib

    cells = [
        "import matplotlib.pyplot as plt\nplt.style.use('seaborn-whitegrid')",
        'with plt.style.context(["seaborn", "ggplot"]):\n    print(plt.rcParams["axes.grid"])',
    ]
    report, lesson = imported(course_folder, cells)
    assert "plt.style.use('seaborn-v0_8-whitegrid')" in lesson
    assert 'plt.style.context(["seaborn-v0_8", "ggplot"])' in lesson
    assert (
        "cell 3: step 1 uses Matplotlib's style 'seaborn-whitegrid', which the installed "
        f"Matplotlib ({matplotlib.__version__}) names 'seaborn-v0_8-whitegrid' (renamed in "
        "3.6): the step now uses 'seaborn-v0_8-whitegrid'"
    ) in report
    assert "step 2 uses Matplotlib's style 'seaborn', which" in report
    assert "'ggplot'" not in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


USETEX_CELLS = [
    "import matplotlib.pyplot as plt\nplt.rc('text', usetex=True)\n"
    "plt.rcParams.update({'font.size': 9, 'text.usetex': True})",
    "fig, ax = plt.subplots()\nax.plot([0, 1], [1, 0], label=r'$\\alpha_t$')\nax.legend()",
]


def test_latex_text_where_no_latex_is_installed_is_written_off(course_folder, monkeypatch):
    """QuantEcon's five_preferences sets plt.rc('text', usetex=True); without a `latex`
    program every figure fails to save. The import turns it off, and the figure builds
    with mathtext's alpha."""
    folders = os.environ["PATH"].split(os.pathsep)
    monkeypatch.setenv(
        "PATH", os.pathsep.join(f for f in folders if not (Path(f) / "latex").exists())
    )
    report, lesson = imported(course_folder, USETEX_CELLS)
    assert "plt.rc('text', usetex=False)" in lesson
    assert "plt.rcParams.update({'font.size': 9, 'text.usetex': False})" in lesson
    assert (
        "cell 3: step 1 sets Matplotlib's text to LaTeX (usetex=True), and no `latex` program "
        "is installed here, where every figure would fail to save: the step now writes "
        "usetex=False"
    ) in report
    assert "step 1 sets Matplotlib's text to LaTeX ('text.usetex': True)" in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_latex_text_where_latex_is_installed_is_left_on(course_folder, monkeypatch, tmp_path):
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "latex").write_text("#!/bin/sh\n")
    (programs / "latex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{programs}{os.pathsep}{os.environ['PATH']}")
    report, lesson = imported(course_folder, USETEX_CELLS)
    assert "plt.rc('text', usetex=True)" in lesson and "usetex=False" not in lesson
    assert "LaTeX" not in report


def test_math_text_matplotlib_cannot_parse_is_named_at_its_lesson_line(course_folder):
    """QuantEcon's cagan_adaptive labels an axis r'$m - p}$': the build failed at
    plt.tight_layout(), far from the label. The import names the label at its line; a
    label of good TeX, a price with one dollar and an f-string are left alone."""
    cells = [
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(1, 2)\n"
        "ax[0].plot([0, 1], label=r'$\\alpha_t$')\nax[0].set_title('costs $5')\n"
        "ax[1].set(xlabel=r'$\\frac{a}{b}$', ylabel=f'${1}$')\n"
        "ax[1].set_ylabel(r'$m - p}$')\nplt.tight_layout()",
        "print(r'$m - p}$')",
    ]
    report, lesson = imported(course_folder, cells)
    said = [line for line in report.splitlines() if "whose math matplotlib" in line]
    assert len(said) == 1, said
    assert (
        f"cell 3, lesson line {line_of(lesson, 'set_ylabel(')}: step 1 draws the text "
        "'$m - p}$', whose math matplotlib cannot parse (ParseException: "
    ) in said[0]
    assert said[0].endswith("the figure fails to draw; fix its TeX, or write it without $...$")
    built = course_folder.cli("-q")
    assert built.returncode == 1 and "cannot parse the math text $m - p}$" in built.stderr


def test_math_text_is_left_to_latex_where_the_lesson_sets_text_with_latex(
    course_folder, monkeypatch, tmp_path
):
    """With usetex on and a `latex` program installed, TeX draws the labels, not mathtext:
    a label mathtext refuses is no fault there."""
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "latex").write_text("#!/bin/sh\n")
    (programs / "latex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{programs}{os.pathsep}{os.environ['PATH']}")
    cells = [USETEX_CELLS[0], "fig, ax = plt.subplots()\nax.set_ylabel(r'$m - p}$')"]
    report, _ = imported(course_folder, cells)
    assert "whose math matplotlib" not in report


def test_calls_pandas_3_removed_are_written_as_it_takes_them(course_folder):
    """The Python Data Science Handbook calls data.fillna(method='ffill'), which pandas 3
    no longer takes (requirements.txt pins pandas 3): ffill() does the same, and the step
    is written so; likewise iteritems(), applymap() and read_csv's delim_whitespace. A
    list's append, which a DataFrame's would look like, is left as it is."""
    cells = [
        "import pandas as pd\nimport numpy as np\ndata = pd.Series([1, np.nan, 2, None, 3])",
        "print(data.fillna(method='ffill'))\nprint(data.fillna(method='backfill', limit=1))",
        "print(data.fillna(0))",
        "import io\ntable = pd.read_csv(io.StringIO('a  b\\n1  2\\n'), delim_whitespace=True)\n"
        "for name, column in table.iteritems():\n    print(name, list(column))\n"
        "print(table.applymap(lambda x: x * 10))\nseen = []\nseen.append(table)",
        # statsmodels' discrete_choice: `dta.ix[1000]`, gone since pandas 1.0.
        "print(table.ix[0, 'b'], list(table.ix[0]))\nprint(np.ix_([0], [1])[1].shape)",
        # BlackJAX's sparse regression: the keyword on a line of its own in a long call.
        "wide = pd.read_table(\n    io.StringIO('a  b\\n3  4\\n'),\n    header=0,\n"
        "    delim_whitespace=True\n)\nprint(wide.b.tolist())",
    ]
    report, lesson = imported(course_folder, cells)
    assert '    header=0,\n    sep=r"\\s+"\n)\nprint(wide.b.tolist())' in lesson
    assert (
        "step 6 passes delim_whitespace=True in its call of pd.read_table(...), which pandas 3 "
        'no longer takes (deprecated in 2.2): the step now passes sep=r"\\s+", which does '
        "the same"
    ) in report, report
    assert "print(table.loc[0, 'b'], list(table.loc[0]))\nprint(np.ix_([0], [1])" in lesson
    assert (
        "step 5 calls table.ix[0, 'b'], which pandas 3 no longer takes (removed in 1.0): the "
        "step now calls table.loc[0, 'b'], which does the same where the index holds the "
        "labels .ix was given (where it took them as positions, write .iloc)"
    ) in report
    assert "print(data.ffill())\nprint(data.bfill(limit=1))" in lesson
    assert "for name, column in table.items():" in lesson
    assert "print(table.map(lambda x: x * 10))" in lesson
    assert "pd.read_csv(io.StringIO('a  b\\n1  2\\n'), sep=r\"\\s+\")" in lesson
    assert "seen.append(table)" in lesson
    assert (
        "step 4 calls table.iteritems(), which pandas 3 no longer takes (removed in 2.0): "
        "the step now calls table.items(), which does the same"
    ) in report
    assert "step 4 calls table.applymap(lambda x: x * 10), which pandas 3" in report
    assert "print(data.fillna(0))" in lesson
    assert (
        "cell 5: step 2 calls data.fillna(method='ffill'), which pandas 3 no longer takes "
        "(deprecated in 2.1): the step now calls data.ffill(), which does the same"
    ) in report
    assert "step 2 calls data.fillna(method='backfill', limit=1)" in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_arguments_pandas_takes_by_keyword_only_are_named(course_folder):
    """QuantEcon's storage_formats wrote df1.to_excel("df1.xlsx", "df1"): pandas 3 takes
    the sheet by keyword only, and the build failed. Older notebooks give drop's axis,
    concat's axis and pivot's index, columns and values by position: each is named as the
    pandas they were written for ordered them (pivot's order is no longer its signature's)."""
    cells = [
        "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})\n"
        "wide = pd.DataFrame({'d': [1, 1, 2], 'n': ['x', 'y', 'x'], 'v': [5, 6, 7]})",
        "print(frame.drop('b', 1).columns.tolist(), pd.concat([frame, frame], 1).shape)",
        "print(wide.pivot('d', 'n', 'v').loc[1, 'y'])\nframe.to_csv('rows.csv', ';')\n"
        "print(open('rows.csv').read().splitlines()[0])",
        "print(frame.drop('b', axis=1).shape, frame.sort_values('a').shape)",
    ]
    report, lesson = imported(course_folder, cells)
    assert (
        "print(frame.drop('b', axis=1).columns.tolist(), pd.concat([frame, frame], axis=1).shape)"
    ) in lesson
    assert "print(wide.pivot(index='d', columns='n', values='v').loc[1, 'y'])" in lesson
    assert "frame.to_csv('rows.csv', sep=';')" in lesson
    assert (
        "step 2 calls frame.drop('b', 1), which pandas 3 no longer takes (it takes all but "
        "its first arguments by keyword only): the step now calls frame.drop('b', axis=1)"
    ) in report
    assert "step 4 calls" not in report
    page = built_page(course_folder)
    assert "<samp>[&#39;a&#39;] (2, 4)\n</samp>" in page and "<samp>6.0\n;a;b\n</samp>" in page


def test_pandas_alias_of_datetime_is_its_timestamp(course_folder):
    """QuantEcon's groupby lecture dates a frame with pd.datetime.today(), an alias of
    datetime.datetime that pandas 2.0 removed: pandas' Timestamp is a datetime, with the
    same constructor and today(). The standard library's datetime.datetime stays."""
    cells = [
        "import datetime\nimport pandas as pd",
        "print(pd.datetime(2020, 1, 2).strftime('%m/%d/%Y'))\n"
        "print(pd.datetime.today() > pd.datetime(2020, 1, 1))\n"
        "print(datetime.datetime(2021, 1, 2).year)",
    ]
    report, lesson = imported(course_folder, cells)
    assert (
        "print(pd.Timestamp(2020, 1, 2).strftime('%m/%d/%Y'))\n"
        "print(pd.Timestamp.today() > pd.Timestamp(2020, 1, 1))\n"
        "print(datetime.datetime(2021, 1, 2).year)"
    ) in lesson
    assert (
        "step 2 calls pd.datetime.today(), which pandas 3 no longer takes (removed in 2.0): "
        "the step now calls pd.Timestamp.today(), a Timestamp, pandas' datetime"
    ) in report
    assert "<samp>01/02/2020\nTrue\n2021\n</samp>" in built_page(course_folder)


def test_index_classes_asked_for_a_range_become_the_range_functions(course_folder):
    """statsmodels' concentrated_scale builds its dates with pd.PeriodIndex(start=, end=,
    freq=), which pandas 3 no longer takes (DatetimeIndex's start= went in 1.0): the
    range functions take the same keywords. An index of given values is left as it is."""
    cells = [
        "import pandas as pd\nmonths = pd.PeriodIndex(start='2000-01', end='2000-03', freq='M')"
        "\ndays = pd.DatetimeIndex(start='2000-01-01', periods=2, freq='D')",
        "print(list(months.astype(str)), list(days.astype(str)))\n"
        "print(len(pd.PeriodIndex(['2000-01'], freq='M')))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "months = pd.period_range(start='2000-01', end='2000-03', freq='M')" in lesson
    assert "days = pd.date_range(start='2000-01-01', periods=2, freq='D')" in lesson
    assert "pd.PeriodIndex(['2000-01'], freq='M')" in lesson
    assert (
        "step 1 calls pd.PeriodIndex(start='2000-01', end='2000-03', freq='M'), which pandas 3 "
        "no longer takes (removed in 3.0 and 1.0): the step now calls pd.period_range("
    ) in report
    assert "does not take" not in report  # the drift check sees the new call
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").glob("*/downloads/index.html")).read_text()
    assert "[&#39;2000-01&#39;, &#39;2000-02&#39;, &#39;2000-03&#39;]" in page


def _distribution(site, module: str, requires: str) -> None:
    """An installed distribution of one module, which requires `requires`."""
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text(
        "import pandas\n\n\ndef frame():\n    return pandas.DataFrame({'a': [1, 2]})\n"
    )
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    name = module.replace("_", "-")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nRequires-Dist: {requires}\n"
    )
    (info / "top_level.txt").write_text(f"{module}\n")


def test_pandas_rewrites_reach_frames_a_library_built_on_pandas_hands_out(
    course_folder, tmp_path, monkeypatch
):
    """statsmodels' discrete_choice never imports pandas: `dta =
    sm.datasets.fair.load_pandas().data`, then `dta.ix[1000]`. A library installed with a
    dependency on pandas brings its objects; one without such a dependency does not."""
    site = tmp_path / "site"
    _distribution(site, "zz_frames", "pandas>=2")
    _distribution(site, "zz_plain", "pandas; extra == 'frames'")  # only if asked
    monkeypatch.setenv("PYTHONPATH", str(site))
    report, lesson = imported(
        course_folder, ["import zz_frames\ndta = zz_frames.frame()\nprint(dta.ix[1])"]
    )
    assert "print(dta.loc[1])" in lesson, report
    (course_folder.root / "content" / "02-downloads").rename(tmp_path / "first")
    report, lesson = imported(
        course_folder, ["import zz_plain\ndta = zz_plain.frame()\nprint(dta.ix[1])"]
    )
    assert "print(dta.ix[1])" in lesson and "loc" not in lesson


def test_an_artist_deleted_from_its_axes_list_is_removed_as_matplotlib_now_takes_it(
    course_folder,
):
    """statsmodels' robust_models_1 takes a line off its plot with `del ax.lines[0]`:
    Matplotlib 3.7 refuses ('ArtistList' object doesn't support item deletion). The artist's
    remove() does it; a slice, a dict's del and another object's lines are left alone."""
    cells = [
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\n"
        "ax.plot([2, 1])\nax.plot([0, 0])\ndel ax.lines[0]\nprint(len(ax.lines))",
        "table = {'lines': [1, 2]}\ndel table['lines'][0]\nprint(table)\n"
        "class Page:\n    lines = [1, 2]\npage = Page()\ndel page.lines[0]\nprint(page.lines)",
    ]
    report, lesson = imported(course_folder, cells)
    assert "ax.plot([0, 0])\nax.lines[0].remove()\nprint(len(ax.lines))" in lesson
    assert "del table['lines'][0]" in lesson and "del page.lines[0]" in lesson
    assert (
        "step 1 calls del ax.lines[0], which Matplotlib no longer takes (its artist lists are "
        "read-only since 3.7): the step now calls ax.lines[0].remove(), which removes that "
        "artist from its axes"
    ) in report, report
    page = built_page(course_folder)
    assert "<pre" in page and "2\n" in page.replace("</span>", "")


def test_an_arrays_ptp_method_numpy_2_removed_is_written_as_its_function(course_folder):
    """QuantEcon's match_transport calls `self.support_z.ptp()`, a method NumPy 2 removed
    (AttributeError: 'numpy.ndarray' object has no attribute 'ptp'); `np.ptp(a)` does the
    same, with the same arguments. numpy's own ptp is left as it is; so is every ptp of a
    lesson whose own class has one."""
    cells = [
        "import numpy as np\nclass Grid:\n    z = np.arange(6.0)\ngrid = Grid()\n"
        "print(grid.z.ptp(), np.ptp(grid.z), grid.z.reshape(2, 3).ptp(axis=0))",
    ]
    report, lesson = imported(course_folder, cells)
    assert (
        "print(np.ptp(grid.z), np.ptp(grid.z), np.ptp(grid.z.reshape(2, 3), axis=0))" in lesson
    ), report
    assert (
        "step 1 calls grid.z.ptp(), which NumPy no longer takes (the array method went in "
        "2.0): the step now calls np.ptp(grid.z), which does the same"
    ) in report
    page = built_page(course_folder)
    assert "5.0 5.0 [3. 3. 3.]" in page.replace("</span>", "")
    own = [
        "import numpy as np\nclass Span:\n    def ptp(self):\n        return 1\nprint(Span().ptp())"
    ]
    course_folder.root.joinpath(*LESSON).unlink()
    _, kept = imported(course_folder, own)
    assert "print(Span().ptp())" in kept


def test_twin_axes_sharing_a_colour_cycle_share_it_as_matplotlib_now_lets_them(course_folder):
    """QuantEcon's smoothing_tax draws on twin axes from one colour cycle with
    `ax_._get_lines.prop_cycler = ax._get_lines.prop_cycler`, a private attribute
    Matplotlib 3.8 removed (AttributeError: '_process_plot_var_args' object has no attribute
    'prop_cycler'). Sharing `_get_lines` shares the cycle: the second line takes the next
    colour, as it did. Another object's prop_cycler is left alone."""
    cells = [
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
        "line1 = ax.plot([1, 2])[0]\nax_ = ax.twinx()\n"
        "ax_._get_lines.prop_cycler = ax._get_lines.prop_cycler\n"
        "line2 = ax_.plot([2, 1])[0]\nprint(line1.get_color() != line2.get_color())",
        "class Lines:\n    prop_cycler = 1\nclass Holder:\n    _get_lines = Lines()\n"
        "a, b = Holder(), Holder()\na._get_lines.prop_cycler = b.prop = 2\nprint(b.prop)",
    ]
    report, lesson = imported(course_folder, cells)
    assert "ax_ = ax.twinx()\nax_._get_lines = ax._get_lines\nline2" in lesson, report
    assert "a._get_lines.prop_cycler = b.prop = 2" in lesson
    assert (
        "step 1 calls ax_._get_lines.prop_cycler = ax._get_lines.prop_cycler, which Matplotlib "
        "no longer takes (the colour cycle's private prop_cycler went in 3.8): the step now "
        "calls ax_._get_lines = ax._get_lines, which shares the colour cycle between the axes"
    ) in report, report
    page = built_page(course_folder)
    assert "True\n" in page.replace("</span>", "")


def test_matplotlib_calls_of_before_3_6_are_written_as_the_installed_one_takes_them(
    course_folder,
):
    """QuantEcon's geometric series lecture draws with fig.gca(projection='3d'), whose
    arguments Matplotlib 3.6 removed; hist(normed=) went in 3.1. The lesson then builds,
    with the axes the notebook asked for."""
    cells = [
        "import matplotlib.pyplot as plt\nfig = plt.figure()\nax = fig.gca(projection='3d')\n"
        "ax.plot([0, 1], [0, 1], [0, 1])\nprint(ax.name, fig.gca() is ax)",
        "plt.figure()\nround_axes = plt.gca(projection='polar')\nprint(round_axes.name)\n"
        "counts, edges, bars = plt.hist([1, 2, 2, 3], bins=2, normed=True)\n"
        "print(float(counts.sum() * (edges[1] - edges[0])))",
        # PDSH's fancy indexing: a line of steps was a line style before Matplotlib 3.3.
        "[line] = plt.plot([0, 1], [1, 2], linestyle='steps');\n"
        "[mid] = plt.plot([0, 1], [1, 2], 'k', ls='steps-mid')\n"
        "print(line.get_drawstyle(), line.get_linestyle(), mid.get_drawstyle())\n"
        "plt.plot([0, 1], ls='--')",
        # nx-guides' karate club: matplotlib.cm.get_cmap went in 3.9; pyplot's takes the same.
        "from matplotlib import cm\nimport matplotlib as mpl\n"
        "print(cm.get_cmap('viridis', 5).N, plt.cm.get_cmap('magma').name)\n"
        "print(mpl.cm.get_cmap(name='Blues').name)\n"
        "class Colors:\n    def get_cmap(self, name):\n        return name\n"
        "print(Colors().get_cmap('own'))",
        # Matplotlib's box-plot colour example: boxplot(labels=) is tick_labels= since 3.9.
        "fig, ax = plt.subplots()\nboxes = ax.boxplot([[1, 2, 3], [2, 3, 4]],\n"
        "                   labels=['a', 'b'])  # the x ticks\n"
        "print([tick.get_text() for tick in ax.get_xticklabels()])",
    ]
    report, lesson = imported(course_folder, cells)
    assert "                   tick_labels=['a', 'b'])  # the x ticks" in lesson
    assert (
        "step 5 passes labels=['a', 'b'] in its call of ax.boxplot(...), which Matplotlib no "
        "longer takes (labels= is tick_labels= since 3.9): the step now passes "
        "tick_labels=['a', 'b'], which names the boxes as before"
    ) in report, report
    assert "print(plt.get_cmap('viridis', 5).N, plt.get_cmap('magma').name)" in lesson
    assert "print(plt.get_cmap(name='Blues').name)" in lesson
    assert "print(Colors().get_cmap('own'))" in lesson  # not Matplotlib's: left as it is
    assert (
        "step 4 calls cm.get_cmap('viridis', 5), which Matplotlib no longer takes (it went in "
        "3.9): the step now calls plt.get_cmap('viridis', 5), which gives the same"
    ) in report, report
    assert "[line] = plt.plot([0, 1], [1, 2], drawstyle='steps');" in lesson
    assert "[mid] = plt.plot([0, 1], [1, 2], 'k', drawstyle='steps-mid')" in lesson
    assert "plt.plot([0, 1], ls='--')" in lesson
    assert (
        "step 3 calls plt.plot([0, 1], [1, 2], linestyle='steps'), which Matplotlib no longer "
        "takes (a draw style only, since 3.3): the step now calls plt.plot([0, 1], [1, 2], "
        "drawstyle='steps'), which draws the same steps"
    ) in report, report
    assert "ax = fig.add_subplot(projection='3d')" in lesson
    assert "round_axes = plt.subplot(projection='polar')" in lesson
    assert "plt.hist([1, 2, 2, 3], bins=2, density=True)" in lesson
    assert (
        "cell 3: step 1 calls fig.gca(projection='3d'), which Matplotlib no longer takes (its "
        "arguments went in 3.6): the step now calls fig.add_subplot(projection='3d')"
    ) in report
    assert "step 2 calls plt.hist([1, 2, 2, 3], bins=2, normed=True), which Matplotlib" in report
    page = built_page(course_folder)
    assert "<samp>3d True" in page and "<samp>polar" in page and "1.0" in page
    assert "steps - steps-mid" in page
    assert "<samp>5 magma\nBlues\nown" in page
    assert "[&#39;a&#39;, &#39;b&#39;]" in page  # the boxes named as the notebook named them


def test_keywords_scikit_learn_renamed_are_written_as_it_takes_them(course_folder):
    """QuantEcon's recidivism lecture calls preprocessing.OneHotEncoder(sparse=False),
    renamed sparse_output in 1.2 and gone since 1.4: the build failed. The import writes
    each renamed keyword of scikit-learn's own calls, and the lesson builds."""
    cells = [
        "from sklearn import metrics, preprocessing\nfrom sklearn.manifold import TSNE\n"
        "from sklearn.metrics import mean_squared_error\nimport numpy as np",
        "ohe = preprocessing.OneHotEncoder(sparse=False)\n"
        "print(ohe.fit_transform([['a'], ['b'], ['a']]).tolist())",
        "print(round(metrics.mean_squared_error([1.0, 2.0], [1.0, 4.0], squared=False), 3))\n"
        "print(mean_squared_error([1.0, 2.0], [1.0, 4.0], squared=True))",
        "tsne = TSNE(n_components=1, n_iter=250, perplexity=2.0, init='random', random_state=0)\n"
        "print(tsne.fit_transform(np.eye(5)).shape)",
        # Another library's TSNE keeps its own keyword.
        "class Other:\n    @staticmethod\n    def TSNE(n_iter):\n        return n_iter\n"
        "print(Other.TSNE(n_iter=3))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "ohe = preprocessing.OneHotEncoder(sparse_output=False)" in lesson
    assert "print(round(metrics.root_mean_squared_error([1.0, 2.0], [1.0, 4.0]), 3))" in lesson
    assert "print(mean_squared_error([1.0, 2.0], [1.0, 4.0]))" in lesson
    assert "TSNE(n_components=1, max_iter=250, perplexity=2.0" in lesson
    assert "print(Other.TSNE(n_iter=3))" in lesson
    assert (
        "step 2 calls preprocessing.OneHotEncoder(sparse=False), which scikit-learn no longer "
        "takes (renamed sparse_output in 1.2): the step now calls "
        "preprocessing.OneHotEncoder(sparse_output=False), which does the same"
    ) in report, report
    page = built_page(course_folder)
    assert "[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]" in page and "1.414" in page


def test_jax_index_updates_are_written_as_at_updates(course_folder):
    """NumPyro's Titanic and Stein examples call `ops.index_update(x, idx, y)` and
    `jax.ops.index_update(x, jax.ops.index[:], y)`, which JAX 0.3.2 removed: the build
    failed. The import writes the `.at` update the installed JAX has, and the lesson
    builds; a method of another object of that name stays."""
    cells = [
        "import jax.numpy as jnp\nimport jax.ops\nfrom jax import ops\nx = jnp.zeros(4)",
        "y = ops.index_update(x, jnp.array([1, 2]), 7.0)\nprint(y.tolist())",
        "z = jax.ops.index_add(x + 1, jax.ops.index[::2], 5.0)\nprint(z.tolist())",
        "class Other:\n    @staticmethod\n    def index_update(a, b, c):\n        return a\n"
        "print(Other.index_update(1, 2, 3))",
        # BlackJAX's regime-switching chapter: NumPy's keywords, which JAX renamed.
        "print(jnp.clip(jnp.arange(4), a_min=1, a_max=2).tolist())\n"
        "w = jnp.clip(\n    jnp.arange(4),\n    a_min=1,\n)\nprint(w.tolist())",
    ]
    report, lesson = imported(course_folder, cells)
    assert "print(jnp.clip(jnp.arange(4), min=1, max=2).tolist())" in lesson
    assert "w = jnp.clip(\n    jnp.arange(4),\n    min=1,\n)" in lesson
    assert (
        "step 5 passes a_min=1 in its call of jnp.clip(...), which JAX no longer takes "
        "(renamed min= and max= in 0.4.27): the step now passes min=1"
    ) in report, report
    assert "y = x.at[jnp.array([1, 2])].set(7.0)" in lesson
    assert "z = (x + 1).at[::2].add(5.0)" in lesson
    assert "print(Other.index_update(1, 2, 3))" in lesson
    assert (
        "step 3 calls jax.ops.index_add(x + 1, jax.ops.index[::2], 5.0), which JAX no longer "
        "takes (removed in 0.3.2): the step now calls (x + 1).at[::2].add(5.0), which does "
        "the same"
    ) in report, report
    assert "jax.ops.index_update, which the installed jax does not have" not in report
    page = built_page(course_folder)
    assert "[0.0, 7.0, 7.0, 0.0]" in page and "[6.0, 1.0, 6.0, 1.0]" in page
    assert "[1, 1, 2, 2]" in page and "[1, 1, 2, 3]" in page


def test_networkx_2_calls_are_written_as_networkx_3_has_them(course_folder):
    """nx-guides' communities guide prints nx.info(G), which NetworkX 3.0 removed: a
    graph's text is what it said. The matrix converters are the array ones."""
    cells = [
        "import networkx as nx\ngraph = nx.path_graph(4)\nprint(nx.info(graph))",
        "matrix = nx.to_numpy_matrix(graph)\nprint(matrix.shape)\nframe = object()\n"
        "print(hasattr(frame, 'info'))",
        # nx-guides' distance measures: NetworkX 2.8 deprecated it for `usebounds=True`.
        "print(nx.extrema_bounding(graph, compute='radius'), nx.extrema_bounding(graph))\n"
        "print(nx.extrema_bounding(G=graph, compute='center'))\n"
        "print(nx.extrema_bounding(graph, 'eccentricities'))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "print(str(graph))" in lesson and "nx.to_numpy_array(graph)" in lesson
    assert (
        "print(nx.radius(graph, usebounds=True), nx.diameter(graph, usebounds=True))\n"
        "print(nx.center(graph, usebounds=True))\nprint(nx.eccentricity(graph))"
    ) in lesson, lesson
    assert (
        "cell 3: step 1 calls nx.info(graph), which NetworkX 3 no longer takes (removed in "
        "3.0; a graph's text is what it said): the step now calls str(graph)"
    ) in report
    page = built_page(course_folder)
    assert "<samp>Graph with 4 nodes and 3 edges" in page and "(4, 4)" in page
    assert "2 3\n[1, 2]\n{0: 3, 1: 2, 2: 2, 3: 3}" in page


def test_a_flax_optimizer_written_before_0_11_is_written_as_the_installed_flax_names_it(
    course_folder,
):
    """jax-ai-stack's NNX notebooks write nnx.Optimizer(model, tx) and update(grads), which
    Flax 0.11 refuses ("Missing required argument `wrt`"); Flax names the optimiser that
    keeps its model ModelAndOptimizer, and the import writes that, in each step that names
    it, base classes and `from` imports too. The lesson then builds."""
    cells = [
        "import jax.numpy as jnp\nimport optax\nfrom flax import nnx\n"
        "model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))\n"
        "optimizer = nnx.Optimizer(model, optax.sgd(0.1))",
        "def loss(m):\n    return ((m(jnp.ones((4, 2))) - 1.0) ** 2).mean()\n"
        "before = loss(model)\noptimizer.update(nnx.grad(loss)(model))\n"
        "print(bool(loss(model) < before))",
        "from flax.nnx import Optimizer\nclass Counted(nnx.Optimizer):\n    pass\n"
        "print(isinstance(Counted(model, optax.sgd(0.1)), Optimizer))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "optimizer = nnx.ModelAndOptimizer(model, optax.sgd(0.1))" in lesson
    assert "class Counted(nnx.ModelAndOptimizer):" in lesson
    assert "from flax.nnx import ModelAndOptimizer as Optimizer" in lesson
    assert "nnx.Optimizer" not in lesson
    assert (
        "cell 3: step 1 writes nnx.Optimizer, which Flax 0.11 changed (it takes `wrt=` and "
        "the model on each update): the step now writes nnx.ModelAndOptimizer, Flax's name "
        "for the optimiser as the notebook used it"
    ) in report
    assert "step 3 writes from flax.nnx import Optimizer, which Flax 0.11" in report
    assert "step 2 writes" not in report
    page = built_page(course_folder)
    assert page.count("<samp>True") >= 2  # the loss fell; a ModelAndOptimizer is an Optimizer


def test_a_flax_lesson_that_passes_wrt_is_left_as_written(course_folder):
    cells = [
        "import optax\nfrom flax import nnx\nmodel = nnx.Linear(2, 1, rngs=nnx.Rngs(0))\n"
        "optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)",
        "other = nnx.Optimizer(model, optax.adam(0.1))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)" in lesson
    assert "ModelAndOptimizer" not in lesson + report


def test_colabs_old_tpu_setup_is_written_as_the_installed_jax_runs_it(course_folder):
    """jaxopt's notebooks open with `try: import jax.tools.colab_tpu; setup_tpu()` under an
    `except (KeyError, RuntimeError)`, which JAX 0.4 broke by dropping the module: the
    first step failed and took every later one with it. The import binds `jax` as that
    line did and leaves the setup out (`pass` where it was all its block held)."""
    cells = [
        "import datetime\n# activate TPUs if available\ntry:\n    import jax.tools.colab_tpu\n"
        "    jax.tools.colab_tpu.setup_tpu()\nexcept (KeyError, RuntimeError):\n"
        "    print('TPU not found')\nprint('sum', jax.numpy.ones(3).sum())",
        "from jax.tools import colab_tpu\ncolab_tpu.setup_tpu()",
        "if True:\n    jax.tools.colab_tpu.setup_tpu()  # the driver\nprint('devices', "
        "len(jax.devices()))",
    ]
    report, lesson = imported(course_folder, cells)
    assert "try:\n    import jax\nexcept (KeyError, RuntimeError):" in lesson
    assert "```python\npass\n```" in lesson
    assert "if True:\n    pass\nprint('devices'" in lesson
    assert "colab_tpu" not in lesson
    for cell, step in (3, 1), (5, 2), (7, 3):
        assert (
            f"cell {cell}: step {step} sets up Colab's TPU driver (jax.tools.colab_tpu), which "
            "JAX dropped in 0.4"
        ) in report
    assert "which the installed jax does not have" not in report
    page = built_page(course_folder)
    assert "<samp>sum 3.0" in page and "<samp>TPU not found" not in page


def test_a_show_given_its_figure_is_written_as_every_backend_takes_it(course_folder):
    """statsmodels' ARIMA notebook writes `plt.show(plot_acf(ts_diff, lags=30))`: the inline
    backend takes the figure as its `close`; Agg (the build's main.py) and a reader's
    backend refuse it with TypeError."""
    cells = [
        "import matplotlib.pyplot as plt\ndef draw(n):\n    fig, ax = plt.subplots()\n"
        "    ax.plot(range(n))\n    return fig",
        "plt.show(draw(3))  # the line\nfigure = draw(2)\nplt.show(figure)\nprint('drawn')",
    ]
    report, lesson = imported(course_folder, cells)
    assert "draw(3)\nplt.show()  # the line\nfigure = draw(2)\nplt.show()\n" in lesson
    assert (
        "cell 5: plt.show(x) is given what to show, which only a notebook's inline backend takes"
    ) in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_a_rewritten_call_keeps_its_backslashes_as_written():
    from coursesite.importers.renames import Rename, renamed_steps

    text = ":::{step} 1. Read\n```python\nrows = f('a')\n```\n:::\n"
    rename = Rename("f('a')", "g('a', sep='\\t')")
    renamed = renamed_steps(text, [(1, "cell 1", "rows = f('a')")], {1: [rename]})
    assert renamed.steps[0][2] == "rows = g('a', sep='\\t')"
    assert "rows = g('a', sep='\\t')\n" in renamed.text


def test_a_name_no_step_before_it_defines_is_named_by_the_import(course_folder):
    """QuantEcon's egm lecture :load:s a model file that uses numba's float64, which the
    lecture no longer imports: the build would stop there with a NameError, after running
    every step before it; the import says so first, once a name. `display`, the lesson's
    builtin, and a name a function reads once a later step defines it are not reported;
    one in a function's body (QuantEcon's methods that forgot `self`) is said as such."""
    report, lesson = imported(
        course_folder,
        [
            "import numpy as np\ndef total():\n    return scale * 2",
            "data = [('a', float64)]\ndisplay(np.pi)\nmore = float64",
            "scale = 3\nprint(total())",
            "class Model:\n    def inverse(c):\n        return c ** (-1 / self.gamma)",
        ],
    )
    line = line_of(lesson, "data = [('a', float64)]")
    assert (
        f"cell 5, lesson line {line}: step 2 uses float64, which no step before it defines "
        "or imports: the build stops there with a NameError; import or define float64 in an "
        "earlier step"
    ) in report, report
    assert report.count("which no step before it defines") == 1
    # In a function's body: only a call of it fails, which the notebook may never make.
    assert (
        "step 4 uses self in inverse(), and nothing defines it there or in the steps: "
        "calling it stops with a NameError; fix the name"
    ) in report, report


def test_an_address_that_spells_out_its_branch_is_read_from_the_checkout(tmp_path):
    """QuantEcon's mle reads `github.com/QuantEcon/lecture-python.myst/raw/refs/heads/main/
    lectures/_static/.../fp.dta`: the branch spelt out as GitHub allows. It was taken for
    branch `refs` and path `heads/main/...`, no file of the checkout, and read the network."""
    from coursesite.importers.notebookcells import Cell
    from coursesite.importers.ownrepository import own_repository_reads

    lectures = tmp_path / "lectures"
    (lectures / "_static" / "mle").mkdir(parents=True)
    (lectures / "_static" / "mle" / "fp.dta").write_bytes(b"stata")
    base = "https://{}/Org/book/{}/lectures/_static/mle/fp.dta"
    addresses = [
        base.format("github.com", "raw/refs/heads/main"),
        base.format("raw.githubusercontent.com", "refs/tags/v1.0"),
        base.format("github.com", "blob/main") + "?raw=true",
    ]
    cells = [
        Cell("code", f"frame = read('{address}')", f"cell {n}")
        for n, address in enumerate(addresses)
    ]
    notes = own_repository_reads(cells, lectures / "mle.md")
    assert [cell.source for cell in cells] == ["frame = read('_static/mle/fp.dta')"] * 3
    assert len(notes) == 3 and "(Org/book)" in notes[0]
    # QuantEcon's risk_aversion_or_mistaken_beliefs splits the address over two literals
    # (the branch update-asset): Python reads one string, and so does the import.
    split = Cell(
        "code",
        'data = read(\n    "https://raw.githubusercontent.com/Org/book/update-asset/"  # x\n'
        '    "lectures/_static/mle/fp.dta",\n    index_col="DATE",\n)\n'
        'f"https://github.com/Org/book/raw/main/{x}"\nb"https://github.com/Org/book/raw/main/x"',
        "cell 4",
    )
    (note,) = own_repository_reads([split], lectures / "mle.md")
    assert split.source.startswith('data = read(\n    "_static/mle/fp.dta",\n    index_col=')
    assert "https://raw.githubusercontent.com/Org/book/update-asset/lectures/_static/mle/" in note


def test_a_downloader_given_a_parameter_reads_what_the_callers_pass():
    """QuantEcon's Hansen-Jagannathan lecture loads its JSON with a function of its own whose
    `urlopen` branch serves addresses only, and passes it a path: no read. The same function
    given an address in a later step is a read, named at the caller's line."""
    from coursesite.importers.networkreads import NetworkReads

    define = (
        "import json, urllib.request\nDATA = 'data/bundle.json'\n"
        "def load(url, mode='r'):\n"
        "    if url.startswith('https://'):\n"
        "        return json.load(urllib.request.urlopen(url))\n"
        "    return json.load(open(url, mode))\n"
        "bundle = load(DATA)\n"
    )
    assert NetworkReads([define]).scan(define) == []
    assert NetworkReads([define, "other = load(url='local.json')"]).scan(define) == []
    remote = "more = load('https://data.example/b.json')"
    reads = NetworkReads([define, remote])
    assert [line for line, _ in reads.scan(define)] == [4]
    assert [line for line, _ in reads.scan(remote)] == [0]
    # A name whose value the scan cannot tell, or a function nobody calls, stays a read.
    assert [line for line, _ in NetworkReads([define, "load(chosen)"]).scan(define)] == [4]
    uncalled = define.replace("bundle = load(DATA)\n", "")
    assert [line for line, _ in NetworkReads([uncalled]).scan(uncalled)] == [4]
    method = "class Loader:\n    def load(self, url):\n        return urllib.request.urlopen(url)\n"
    assert [line for line, _ in NetworkReads([method, "load(loader, 'x.json')"]).scan(method)] == [
        2
    ]
