"""A notebook that asks JAX for more devices than a CPU machine has: the import makes them
(XLA_FLAGS in the first step, as JAX's own docs run such notebooks on CPUs), so the
lesson builds at once and main.py runs alone."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from conftest import authoring_example
from coursesite.importers.devicecount import FLAG, devices_needed, with_device_setup

LESSON = ("content", "02-meshes", "01-mesh.md")


def test_a_notebook_that_asks_for_eight_devices_builds_on_one_cpu(course_folder):
    course_folder.write(authoring_example())
    book = new_notebook()
    book.cells = [new_markdown_cell("# Meshes\n\nShard an array over a mesh of devices.")]
    for code in (
        "import jax\nif len(jax.devices()) < 8:\n    raise Exception('needs 8 devices')",
        "mesh = jax.make_mesh((4, 2), ('x', 'y'))\nprint(dict(mesh.shape))",
        "print(jax.device_count())",
    ):
        book.cells += [new_markdown_cell("## Devices"), new_code_cell(code)]
    nbformat.write(book, course_folder.root / "mesh.ipynb")
    done = course_folder.cli("import", "mesh.ipynb", "--phase", "02", "--slug", "mesh")
    assert done.returncode == 0, done.stderr
    assert (
        "the code asks for 8 devices (len(jax.devices()) < 8): the first step now sets "
        f"XLA_FLAGS (--{FLAG}=8) before anything imports jax"
    ) in done.stdout
    lesson = course_folder.root.joinpath(*LESSON).read_text()
    first_step = lesson[lesson.index(":::{step} 1.") :]
    assert first_step.index('os.environ["XLA_FLAGS"]') < first_step.index("import jax")
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = next((course_folder.root / "site").rglob("mesh/index.html")).read_text()
    assert "{&#39;x&#39;: 4, &#39;y&#39;: 2}" in page


def test_the_count_is_the_largest_literal_ask_and_none_when_the_notebook_sets_it():
    assert (
        devices_needed(["m = Mesh(np.array(jax.devices()).reshape(2, 2), ('a', 'b'))"]).count == 4
    )
    assert (
        devices_needed(["mesh_utils.create_device_mesh((8,))", "jax.make_mesh((2, 2), 'ab')"]).count
        == 8
    )
    assert devices_needed(["%timeit f()\nassert jax.local_device_count() == 4"]).count == 4
    assert (
        devices_needed(
            [f"os.environ['XLA_FLAGS'] = '--{FLAG}=8'", "jax.make_mesh((4, 2), 'ab')"]
        ).count
        == 0
    )
    # Shapes that are not devices, and counts read from variables, ask for nothing.
    assert (
        devices_needed(["x.reshape(4, 4)", "jax.make_mesh((n, 2), 'ab')", "len(xs) < 8"]).count == 0
    )


def test_the_setup_goes_after_future_imports_and_is_nothing_for_one_device():
    need = devices_needed(["jax.make_mesh((2, 4), ('a', 'b'))"])
    code = with_device_setup("from __future__ import annotations\nimport jax", need)
    lines = code.splitlines()
    assert lines[0] == "from __future__ import annotations" and lines[1] == "import os"
    assert lines[-1] == "import jax" and f"--{FLAG}=8" in code
    one = devices_needed(["jax.make_mesh((1,), ('a',))"])
    assert with_device_setup("import jax", one) == "import jax"


def test_the_call_asking_is_quoted_on_one_line_however_the_code_wraps_it():
    """Flax's optimization cookbook wraps jax.make_mesh over two lines: the report's note
    quoted it with the line break and the continuation's indent."""
    wrapped = 'mesh = jax.make_mesh((2, 4), ("x", "y"),\n                     axis_types=(1, 1))'
    assert devices_needed([wrapped]).asked_by == (
        'jax.make_mesh((2, 4), ("x", "y"), axis_types=(1, 1))'
    )
