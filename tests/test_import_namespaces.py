"""Modules of namespace packages that several distributions fill: `mpl_toolkits.basemap`
comes from basemap, not from the matplotlib that installs `mpl_toolkits`; nx-guides' world
trade notebook imports it, and the import and the build said the installed matplotlib
lacked it (write it for the installed version), not that basemap is not installed."""

from __future__ import annotations

from conftest import line_of
from coursesite.execution.missingmodules import missing_modules
from test_import_preflight import imported

CELLS = [
    "import matplotlib.pyplot as plt\nfrom mpl_toolkits.mplot3d import Axes3D\n"
    "from mpl_toolkits.basemap import Basemap",
    "import google.cloud.storage_ci_absent as storage\nprint(Basemap, storage)",
]


def test_a_namespace_packages_missing_part_is_its_distribution_not_installed(course_folder):
    report, lesson = imported(course_folder, CELLS)
    at = line_of(lesson, "from mpl_toolkits.basemap")
    assert (
        f"cell 3, lesson line {at}: step 1 imports mpl_toolkits.basemap, which is not "
        "installed where you build: add the line basemap to your requirements"
    ) in report
    assert (
        "imports google.cloud.storage_ci_absent, which is not installed where you build: "
        "add the line google-cloud-storage-ci-absent to your requirements"
    ) in report
    assert "installed mpl_toolkits does not have" not in report
    assert "mpl_toolkits.mplot3d" not in report  # matplotlib's own: installed
    built = course_folder.cli("-q")
    assert built.stderr.startswith("build failed: 1 problem(s)"), built.stderr  # one cause
    assert (
        "hint: the lesson imports these modules, not installed where the site is built: "
        "mpl_toolkits.basemap (step 1), google.cloud.storage_ci_absent (step 2); install them "
        "there (pip install basemap google-cloud-storage-ci-absent) and build again"
    ) in built.stderr, built.stderr


def test_a_part_a_hosted_service_alone_has_is_not_a_missing_distribution():
    blocks = [{"id": "1", "code": "import google.colab\nfrom mpl_toolkits.mplot3d import axes3d"}]
    assert missing_modules(blocks, set()) == {}
