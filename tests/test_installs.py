"""The setup help installs exactly what the lesson imports, pinned, and the build proves
that this is enough by running main.py with every other distribution hidden."""

import re
from importlib import metadata
from pathlib import Path

from conftest import authoring_example
from coursesite.execution.installs import also_installed


def install_line(page: str) -> str:
    return re.search(r"python -m pip install ([^<\n]*)", page).group(1)


def test_the_install_line_lists_what_the_lesson_imports_pinned_to_its_run(course_folder):
    course_folder.write(authoring_example())
    manifest = course_folder.manifest.read_text()
    # The course records jax's version in every record; the lesson imports only numpy.
    course_folder.manifest.write_text(
        manifest.replace("record_packages: [numpy]", "record_packages: [jax, numpy]")
    )
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    import numpy

    assert install_line(page) == f"numpy=={numpy.__version__}"
    record = (course_folder.root / "records" / "count-batches.yaml").read_text()
    assert "jax:" in record  # still recorded, as the course asks, just not installed


def test_a_module_of_the_lessons_own_adds_what_it_imports(course_folder):
    text = authoring_example().replace("import numpy as np\n", "import numpy as np\nimport tools\n")
    course_folder.write(text)
    (course_folder.root / "content" / "tools.py").write_text("import yaml\n")
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    import yaml

    assert install_line(page).split() == [
        f"numpy=={__import__('numpy').__version__}",
        f"PyYAML=={yaml.__version__}",
    ]


def test_what_an_installed_library_imports_at_run_time_is_added_to_the_install_line(
    course_folder,
):
    # jax.debug.visualize_array_sharding imports rich, which jax does not declare: no line
    # of the lesson imports it, yet a reader's main.py needs it.
    shows = (
        "import jax\nimport jax.numpy as jnp\n"
        "jax.debug.visualize_array_sharding(jnp.arange(4.0))\n"
        'print("Batch sizes:", sizes)'
    )
    text = authoring_example().replace('print("Batch sizes:", sizes)', shows)
    course_folder.write(text)
    built = course_folder.cli()
    assert built.returncode == 0, built.stderr
    import jax
    import numpy
    import rich

    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    # rich's own dependencies (Pygments, markdown-it-py) come with it; what jax imports in
    # a try that expects ImportError (cloudpickle, etils) it does without, as a reader's
    # jax would
    assert install_line(page).split() == [
        f"jax=={jax.__version__}",
        f"numpy=={numpy.__version__}",
        f"rich=={metadata.version('rich')}",
    ]
    assert (
        rich.__name__ and "the setup help's install line adds rich" in built.stdout + built.stderr
    )
    record = (course_folder.root / "records" / "count-batches.yaml").read_text()
    assert "run_time_installs:" in record and "- rich" in record


def test_an_optional_import_a_library_then_fails_without_names_the_step_and_the_library():
    from types import SimpleNamespace

    from coursesite.execution.hiddenimports import hidden_import_error

    job = SimpleNamespace(
        payload={"blocks": [{"id": "step-3", "code": "x = 1\nshow(x)\n", "line": 40}]},
        labels={"step-3": "step 3"},
        inputs={},
        path=Path("lesson.md"),
    )
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/l/reader/main.py", line 12, in <module>\n    show(x)\n'
        '  File "/v/lib/python3.11/site-packages/plots/show.py", line 8, in show\n'
        "    import rich\n"
        '  File "<frozen importlib._bootstrap>", line 1078, in _find_spec\n'
        '  File "/tmp/l/guard/sitecustomize.py", line 41, in find_spec\n'
        "    raise ModuleNotFoundError(\n"
        "ModuleNotFoundError: No module named 'rich': distribution 'rich' is not installed "
        "by the lesson's setup help\n"
    )
    error = hidden_import_error(job, stderr)
    assert error.message == (
        "main.py imports 'rich' through plots/show.py, from distribution 'rich', which the "
        "setup help's install line does not list"
    )
    assert error.line == 41  # step 3's `show(x)`, in the lesson
    assert error.hint.startswith("plots/show.py imports it as an optional dependency")
    assert error.hint.endswith(
        "write `import rich` at the top of step 3, so that the line lists it"
    )


def test_a_distribution_main_py_runs_again_with_brings_what_it_requires():
    """SymPy imports matplotlib as optional; once main.py runs again with matplotlib, the
    modules of what matplotlib requires (packaging, pillow) are there too, as pip would
    install them, and only the rest stays hidden."""
    hidden = {"matplotlib": "matplotlib", "packaging": "packaging", "PIL": "pillow"}
    hidden["yaml"] = "PyYAML"
    assert also_installed(hidden, "matplotlib") == {"yaml": "PyYAML"}
    assert also_installed(hidden, "PyYAML") == {
        "matplotlib": "matplotlib",
        "packaging": "packaging",
        "PIL": "pillow",
    }
