"""`build.py import NB --install`: the packages a notebook imports that the environment
lacks are installed by pip, with their dependencies, and pinned in the course's
requirements, so the lesson builds at once. The tests install real wheels with the real
pip into a scratch environment of their own (pip finds them in a folder, not on an index),
so the environment the tests run in is never changed."""

import base64
import hashlib
import io
import os
import re
import site
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from conftest import ROOT, CourseFolder, authoring_example, line_of, no_traceback
from coursesite.importers.installing import pinned

LESSON = ("content", "02-greetings", "01-greetings.md")


def wheel(
    folder: Path, name: str, version: str, code: str, requires: str = "", module: str = ""
) -> None:
    """A pure-Python wheel of one module (named as the distribution, unless `module` says
    otherwise), as a build backend would make it."""
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    module = module or name.replace("-", "_")
    files = {
        f"{module}/__init__.py": code,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + (f"Requires-Dist: {requires}\n" if requires else ""),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(
        folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w"
    ) as archive:
        for path, text in files.items():
            archive.writestr(path, text)


@pytest.fixture
def scratch_python(tmp_path_factory) -> Path:
    """A Python of its own environment that also sees this one's packages: what pip
    installs there stays there, and no other test sees it."""
    folder = tmp_path_factory.mktemp("env")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    packages = next(folder.glob("lib/python*/site-packages"))
    (packages / "parent.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return folder / "bin" / "python"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheels")
    wheel(folder, "greetdep-ci", "0.3", "WORD = 'hello'\n")
    wheel(folder, "greetdep-ci", "1.0", "WORD = 'hi'\n")
    wheel(folder, "newgreet-ci", "1.0", "from greetdep_ci import WORD\n", "greetdep-ci>=1.0")
    wheel(folder, "pinnedgreet-ci", "1.0", "WORD = 'hi'\n", "greetdep-ci>=1.0")
    wheel(folder, "pinnedgreet-ci", "0.9", "WORD = 'hey'\n")
    wheel(
        folder,
        "greetings-ci",
        "1.2.0",
        "from greetdep_ci import WORD\n\ndef greet(name):\n    return f'{WORD}, {name}'\n",
        "greetdep-ci<1.0",
    )
    # Imports a module its metadata does not ask for, as tensorflow-datasets does.
    wheel(folder, "leaky-ci", "2.0", "from hiddendep_ci import SHOUT\n")
    wheel(folder, "hiddendep-ci", "0.5", "SHOUT = 'HELLO'\n")
    wheel(folder, "brittle-ci", "1.0", "raise ImportError('brittle-ci needs libbrittle.so')\n")
    # Asks a web service as it is imported, as QuantEcon's qeds asks the Census API.
    wheel(
        folder,
        "census-ci",
        "1.0",
        "raise ConnectionError(\"HTTPSConnectionPool(host='api.example.org', port=443): Max "
        "retries exceeded (Failed to resolve 'api.example.org' ([Errno -2] Name or service "
        'not known))")\n',
    )
    # Imports a module it calls optional inside a function, then fails without it (as
    # Plotly's px.data does without pandas).
    wheel(
        folder,
        "optuser-ci",
        "1.0",
        "def shout():\n    try:\n        import optdep_ci\n    except ImportError as missing:\n"
        "        raise RuntimeError('shout() needs optdep-ci') from missing\n"
        "    return optdep_ci.WORD.upper()\n",
    )
    # Catches the failed import itself and then raises its own error, naming the module but
    # chaining nothing (as Plotly Express does without numpy).
    wheel(
        folder,
        "quietopt-ci",
        "1.0",
        "def _module(name):\n    try:\n        return __import__(name)\n    except ImportError:\n"
        "        return None\n\ndef shout():\n    found = _module('optdep_ci')\n"
        "    if found is None:\n        raise ImportError('quietopt-ci requires optdep_ci "
        "to be installed:\\n\\n$ pip install optdep-ci')\n    return found.WORD.upper()\n",
    )
    # Goes without it, then fails in words that name nothing (as SymPy's plot does with
    # its text backend when matplotlib is missing).
    wheel(
        folder,
        "fallback-ci",
        "1.0",
        "def _backend():\n    try:\n        import optdep_ci\n        return optdep_ci\n"
        "    except ImportError:\n        return None\n\ndef shout():\n"
        "    backend = _backend()\n    if backend is None:\n"
        "        raise ValueError('the text backend draws one graph only')\n"
        "    return backend.WORD.upper()\n",
    )
    wheel(folder, "optdep-ci", "0.1", "WORD = 'hello'\n")
    # pandas' optional package for DataFrame.to_markdown, as pandas checks it.
    wheel(
        folder,
        "tabulate",
        "0.9.0",
        "__version__ = '0.9.0'\n\ndef tabulate(data, headers=(), tablefmt='', **options):\n"
        "    return '| a table of ' + str(len(data)) + ' rows |'\n",
    )
    # Installed as one name, imported as another (nvidia-cutlass-dsl provides cutlass).
    wheel(folder, "kitdsl-ci", "3.1", "KIT = 'cut'\n", module="cutkit_ci")
    # Only as source, whose build needs what no index has (basemap 1.3's sdists ask for
    # numpy==1.21.4, which Python 3.11 cannot install).
    source_release(folder, "oldbuild-ci", "1.0", "nobuilddep-ci==9.9")
    return folder


def source_release(folder: Path, name: str, version: str, build_requires: str) -> None:
    """An sdist of `name` whose pyproject asks `build_requires` to build it."""
    base = f"{name.replace('-', '_')}-{version}"
    files = {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        "pyproject.toml": f'[build-system]\nrequires = ["{build_requires}"]\n'
        'build-backend = "setuptools.build_meta"\n',
    }
    with tarfile.open(folder / f"{base}.tar.gz", "w:gz") as archive:
        for path, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{base}/{path}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))


def run(python: Path, course: Path, wheels: Path, *arguments: str):
    environment = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    return subprocess.run(
        [str(python), str(ROOT / "build.py"), *arguments],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )


def import_installing(python: Path, course: Path, wheels: Path):
    """`build.py import greetings.ipynb --phase 02 --install`, pip finding the wheels."""
    return run(python, course, wheels, "import", "greetings.ipynb", "--phase", "02", "--install")


def greetings_notebook(path: Path, cells: list[str]) -> None:
    book = new_notebook()
    book.cells = [new_markdown_cell("# Greetings\n\nSay hello with a package.")]
    for code in cells:
        book.cells += [new_markdown_cell("## Greet someone"), new_code_cell(code)]
    nbformat.write(book, path)


def test_install_brings_the_missing_package_pins_it_and_the_lesson_builds(
    course_folder, scratch_python, wheels
):
    course_folder.write(authoring_example())
    root = course_folder.root
    (root / "requirements.txt").write_text("numpy==2.0.0\nGreetings_CI==0.1  # old pin\n")
    (root / "requirements.in").write_text("numpy\n")
    greetings_notebook(
        root / "greetings.ipynb",
        ["!pip install greetings-ci\nimport greetings_ci", "print(greetings_ci.greet('Ada'))"],
    )
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert "installing greetings-ci with pip" in done.stderr
    assert "pip installed greetdep-ci==0.3, greetings-ci==1.2.0, now pinned" in done.stdout
    assert "not installed where you build" not in done.stdout
    # The old pin is replaced where it was, in its own spelling; the dependency is added.
    assert (root / "requirements.txt").read_text().splitlines() == [
        "numpy==2.0.0",
        "Greetings_CI==1.2.0",
        "greetdep-ci==0.3  # for lesson greetings",
    ]
    direct = (root / "requirements.in").read_text().splitlines()
    assert direct == ["numpy", "greetings-ci  # lesson greetings (build.py import --install)"]
    built = run(scratch_python, root, wheels, "-q")
    assert built.returncode == 0, built.stderr
    page = (root / "site" / "greetings" / "greetings" / "index.html").read_text()
    assert "hello, Ada" in page


def test_without_install_nothing_is_installed_and_the_report_says_what_to_add(
    course_folder, scratch_python, wheels
):
    course_folder.write(authoring_example())
    root = course_folder.root
    greetings_notebook(root / "greetings.ipynb", ["import greetings_ci"])
    done = run(scratch_python, root, wheels, "import", "greetings.ipynb", "--phase", "02")
    assert done.returncode == 0, done.stderr
    lesson = root.joinpath(*LESSON).read_text()
    where = f"cell 3, lesson line {line_of(lesson, 'import greetings_ci')}: step 1 imports"
    assert f"{where} greetings_ci, which is not installed where you build" in done.stdout
    assert "pip installed" not in done.stdout
    assert not (root / "requirements.txt").exists()


def test_a_package_pip_cannot_find_is_reported_and_the_lesson_is_written(
    course_folder, scratch_python, wheels
):
    course_folder.write(authoring_example())
    root = course_folder.root
    greetings_notebook(root / "greetings.ipynb", ["import nowhere_to_be_found_ci"])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    lesson = root.joinpath(*LESSON).read_text()
    where = f"cell 3, lesson line {line_of(lesson, 'import nowhere_to_be_found_ci')}: step 1"
    assert (
        f"{where} imports nowhere_to_be_found_ci: the code needs nowhere-to-be-found-ci, which "
        "pip did not install (every step that imports it will fail): pip could not install "
        "nowhere-to-be-found-ci: no release of nowhere-to-be-found-ci fits here:" in done.stdout
    )
    assert "nowhere-to-be-found-ci is its module's name" in done.stdout
    assert "which is not installed where you build" not in done.stdout  # one line, not two
    assert no_traceback(done.stderr)
    assert root.joinpath(*LESSON).exists()
    assert not (root / "requirements.txt").exists()


def test_a_package_whose_old_source_release_cannot_be_built_says_no_release_fits(
    course_folder, scratch_python, wheels
):
    """nx-guides' world trade notebook: basemap 2 requires an older numpy and Matplotlib
    than installed, pip goes back to basemap 1.3's source, whose build needs numpy==1.21.4:
    'no release of numpy fits here', and a hint about module names, were beside the point."""
    course_folder.write(authoring_example())
    root = course_folder.root
    greetings_notebook(root / "greetings.ipynb", ["import oldbuild_ci"])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert (
        "pip could not install oldbuild-ci: no release of it installs beside the packages "
        "installed here, and the older one pip then tried to build from source needs "
        "nobuilddep-ci==9.9 to build"
    ) in done.stdout, done.stdout
    assert "module's name" not in done.stdout and no_traceback(done.stderr)


def test_pins_replace_in_place_and_leave_other_lines_alone():
    text = "# pinned\nGrain==0.2.3\n-r base.txt\ngrain-extra>=1\njax==0.4  # why\n"
    result = pinned(text, {"grain": "0.2.18", "jax": "0.10.2", "optax": "0.2.5"}, "s")
    assert result.splitlines() == [
        "# pinned",
        "Grain==0.2.18",
        "-r base.txt",
        "grain-extra>=1",
        "jax==0.10.2",
        "optax==0.2.5  # for lesson s",
    ]


def test_install_never_moves_a_package_installed_already(course_folder, scratch_python, wheels):
    """newgreet-ci needs greetdep-ci>=1.0; 0.3 is installed: pip must not upgrade it, and
    the report says why it is not installed, while leaky-ci, which fits, is."""
    course_folder.write(authoring_example())
    root = course_folder.root
    environment = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    pip = [str(scratch_python), "-m", "pip", "install", "-q", "greetdep-ci==0.3"]
    subprocess.run(pip, check=True, env=environment)
    (root / "requirements.txt").write_text("greetdep-ci==0.3\n")
    greetings_notebook(root / "greetings.ipynb", ["import newgreet_ci", "import leaky_ci"])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    refused = done.stdout[done.stdout.index("the code needs newgreet-ci") :]
    assert "pip could not install newgreet-ci without changing a package installed" in refused
    assert "newgreet-ci 1.0 depends on greetdep-ci>=1.0" in refused  # pip's reason
    assert "which is not installed where you build" not in done.stdout  # one line, not two
    # What pip could install besides is installed and pinned all the same.
    assert "pip installed hiddendep-ci==0.5, leaky-ci==2.0, now pinned" in done.stdout
    assert "leaky-ci==2.0" in (root / "requirements.txt").read_text()
    version = subprocess.run(
        [
            str(scratch_python),
            "-c",
            "import importlib.metadata as m; print(m.version('greetdep-ci'))",
        ],
        capture_output=True,
        text=True,
    )
    assert version.stdout.strip() == "0.3"
    assert (root / "requirements.txt").read_text().startswith("greetdep-ci==0.3\n")
    assert root.joinpath(*LESSON).exists()


def test_a_module_the_refused_pip_line_does_not_provide_is_installed_by_its_name(
    course_folder, scratch_python, wheels
):
    """jax-ai-stack's LLM guide: its `!pip install jax-ai-stack ...` is refused (it pins
    another JAX), and `import flax`, which that line was to bring, is installed by its own
    name all the same."""
    course_folder.write(authoring_example())
    root = course_folder.root
    environment = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    pip = [str(scratch_python), "-m", "pip", "install", "-q", "greetdep-ci==0.3"]
    subprocess.run(pip, check=True, env=environment)
    greetings_notebook(
        root / "greetings.ipynb",
        ["!pip install newgreet-ci", "import greetings_ci"],  # the line provides no import
    )
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert "the code needs newgreet-ci, which pip did not install" in done.stdout
    assert "greetings-ci==1.2.0" in done.stdout, done.stdout  # installed, to pin
    assert "imports greetings_ci, which is not installed" not in done.stdout
    # A pin the notebook asks for and pip refuses is never installed unpinned instead.
    greetings_notebook(
        root / "pinned.ipynb", ["!pip install pinnedgreet-ci==1.0\nimport pinnedgreet_ci"]
    )
    done = run(scratch_python, root, wheels, "import", "pinned.ipynb", "--phase", "02", "--install")
    assert done.returncode == 0, done.stderr
    assert "the code needs pinnedgreet-ci==1.0, which pip did not install" in done.stdout
    assert "pinnedgreet-ci==0.9" not in done.stdout + done.stderr


def test_a_pip_line_of_the_notebook_is_installed_for_a_module_named_otherwise(
    course_folder, scratch_python, wheels
):
    """`%pip install "kitdsl-ci" --quiet` provides `cutkit_ci`: pip installs the line, not
    a distribution named as the module, which does not exist."""
    course_folder.write(authoring_example())
    root = course_folder.root
    (root / "requirements.txt").write_text("numpy==2.0.0\n")
    greetings_notebook(
        root / "greetings.ipynb",
        ['%pip install "kitdsl-ci" --quiet', "import cutkit_ci\nprint(cutkit_ci.KIT)"],
    )
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert "installing kitdsl-ci with pip" in done.stderr
    assert "cutkit_ci with pip" not in done.stderr
    assert "kitdsl-ci==3.1  # for lesson greetings" in (root / "requirements.txt").read_text()
    built = run(scratch_python, root, wheels, "-q")
    assert built.returncode == 0, built.stderr


def test_what_an_installed_package_imports_undeclared_is_installed_too(
    course_folder, scratch_python, wheels
):
    course_folder.write(authoring_example())
    root = course_folder.root
    (root / "requirements.txt").write_text("numpy==2.0.0\n")
    greetings_notebook(root / "greetings.ipynb", ["import leaky_ci\nprint(leaky_ci.SHOUT)"])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert "installing hiddendep-ci with pip" in done.stderr
    assert "pip installed hiddendep-ci too: what was installed imports it" in done.stdout
    assert "fails here" not in done.stdout
    assert (root / "requirements.txt").read_text().splitlines() == [
        "numpy==2.0.0",
        "hiddendep-ci==0.5  # for lesson greetings",
        "leaky-ci==2.0  # for lesson greetings",
    ]
    built = run(scratch_python, root, wheels, "-q")
    assert built.returncode == 0, built.stderr


@pytest.mark.parametrize(
    "written",
    ["greetings-ci@git+file://{root}/no-such-repository", "git+file://{root}/greetings-ci.git"],
)
def test_a_requirement_by_an_address_pip_cannot_reach_is_installed_from_its_release(
    course_folder, scratch_python, wheels, written
):
    """NumPyro's notebooks install `numpyro@git+https://github.com/pyro-ppl/numpyro`, and
    dynamax's `git+https://github.com/probml/dynamax.git`, a repository alone, named as
    its project: where the machine cannot reach the repository, the release on the package
    index takes its place, and the report says the notebook asked for another build."""
    course_folder.write(authoring_example())
    root = course_folder.root
    (root / "requirements.txt").write_text("numpy==2.0.0\n")
    address = written.format(root=root)
    greetings_notebook(
        root / "greetings.ipynb",
        [f"!pip install {address}\nimport greetings_ci", "print(greetings_ci.greet('Ada'))"],
    )
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert (
        f"pip could not install {address}, the notebook's requirement by address (the machine "
        "may not reach it): it installed greetings-ci 1.2.0 from the package index instead"
    ) in done.stdout
    assert "which pip did not install" not in done.stdout
    assert "greetings-ci==1.2.0" in (root / "requirements.txt").read_text()


def test_a_package_that_installs_but_does_not_import_is_named_before_any_build(
    course_folder, scratch_python, wheels
):
    course_folder.write(authoring_example())
    root = course_folder.root
    greetings_notebook(root / "greetings.ipynb", ["import brittle_ci", "import census_ci"])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert (
        "pip installed brittle_ci's package, but importing brittle_ci fails here "
        "(ImportError: brittle-ci needs libbrittle.so)"
    ) in done.stdout
    assert (
        "pip installed census_ci's package, but importing census_ci reads the network, which "
        "fails here (ConnectionError: HTTPSConnectionPool(host='api.example.org'"
    ) in done.stdout


@pytest.mark.parametrize("library", ["optuser-ci", "quietopt-ci", "fallback-ci"])
def test_what_a_library_calls_optional_yet_needs_joins_the_install_line_and_main_py_runs(
    course_folder, scratch_python, wheels, library
):
    """main.py, run as a reader's with only the install line's packages, fails where the
    library needs optdep-ci (its error chained to the refused import, naming the module in
    its own words, or naming nothing: the last import refused is tried); the lesson's own
    run, which had it, shows the lesson needs it: the build adds it to the install line
    and main.py, run again, passes."""
    environment = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    pip = [str(scratch_python), "-m", "pip", "install", "-q", library, "optdep-ci"]
    subprocess.run(pip, check=True, env=environment)
    module = library.replace("-", "_")
    text = authoring_example().replace(
        'print("PASS: count-batches")',
        f'import {module}\nprint({module}.shout())\nprint("PASS: count-batches")',
    )
    course_folder.write(text)
    built = run(scratch_python, course_folder.root, wheels)
    assert built.returncode == 0, built.stderr
    assert "the setup help's install line adds optdep-ci" in built.stdout + built.stderr
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    line = re.search(r"python -m pip install ([^<\n]*)", page).group(1).split()
    assert {"optdep-ci==0.1", f"{library}==1.0"} <= {re.sub("_", "-", pin) for pin in line}
    assert "HELLO" in page


def test_tensorflow_s_summary_writer_needs_tensorboard():
    """jax-ai-stack's TensorBoard tutorial writes summaries with TensorFlow 2.21, which no
    longer installs TensorBoard: the build stopped at tf.summary.image (TBNotInstalledError).
    A `summary` of another library is no TensorFlow call."""
    from coursesite.importers.optionalneeds import needed_calls

    steps = [
        (1, "cell 2", "import numpy as np\nlog = np.summary.create_file_writer('a')"),
        (2, "cell 3", "import tensorflow as tf\nwriter = tf.summary.create_file_writer('runs')"),
    ]
    [called] = needed_calls(steps)
    assert (called.need.module, called.need.requirement) == ("tensorboard", "tensorboard")
    assert (called.call, called.number, called.offset) == ("create_file_writer", 2, 1)
    # NumPyro's model_rendering: render_model draws with graphviz, which numpyro lacks.
    drawing = [(1, "cell 6", "import numpyro\nnumpyro.render_model(model, model_args=(x,))")]
    assert [called.need.module for called in needed_calls(drawing)] == ["graphviz"]
    # jax-ai-stack's data loaders: tfds.load reaches etils, which imports importlib_resources.
    loading = [(1, "cell 2", "import tensorflow_datasets as tfds\nds = tfds.load('mnist')")]
    assert [called.need.module for called in needed_calls(loading)] == ["importlib_resources"]
    # nx-guides' LCA lays trees out with Graphviz through pygraphviz; pydot's layout of the
    # same name needs another package (and a `dot` program pip does not install).
    for code in (
        "import networkx as nx\nfrom networkx.drawing.nx_agraph import graphviz_layout\n"
        "pos = graphviz_layout(T, prog='dot')",
        "import networkx as nx\npos = nx.nx_agraph.graphviz_layout(T)",
    ):
        [called] = needed_calls([(1, "cell 4", code)])
        assert (called.need.module, called.call) == ("pygraphviz", "graphviz_layout")
    pydot = [(1, "cell 4", "import networkx as nx\npos = nx.nx_pydot.graphviz_layout(T)")]
    assert needed_calls(pydot) == []


def test_a_package_a_library_needs_for_a_call_but_does_not_ask_for_is_installed_too(
    course_folder, scratch_python, wheels, tmp_path
):
    """pandas' to_markdown needs tabulate, which pandas does not ask for (Plotly's image
    export and kaleido are the same case): a notebook's kernel had it, the build would
    fail at the call. Without --install the import names it at that step."""
    course_folder.write(authoring_example())
    root = course_folder.root
    code = "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})\nprint(frame.to_markdown())"
    greetings_notebook(root / "greetings.ipynb", [code])
    named = run(scratch_python, root, wheels, "import", "greetings.ipynb", "--phase", "02")
    assert named.returncode == 0, named.stderr
    assert (
        "step 1 calls pandas's to_markdown, which needs tabulate, an optional package of "
        "pandas's: not installed where you build: add the line tabulate to your requirements"
    ) in named.stdout

    second = CourseFolder(tmp_path / "installing")
    second.write(authoring_example())
    root = second.root
    (root / "requirements.txt").write_text("numpy==2.0.0\n")
    greetings_notebook(root / "greetings.ipynb", [code])
    done = import_installing(scratch_python, root, wheels)
    assert done.returncode == 0, done.stderr
    assert "installing tabulate with pip" in done.stderr
    assert "calls pandas's to_markdown" not in done.stdout
    assert "tabulate==0.9.0  # for lesson greetings" in (root / "requirements.txt").read_text()
    built = run(scratch_python, root, wheels, "-q")
    assert built.returncode == 0, built.stderr
