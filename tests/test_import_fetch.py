"""`import --fetch`: the data files a notebook reads by web address are downloaded once,
saved beside the lesson and read there, so that the build needs no network. Served by a
real HTTP server on this machine."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from conftest import authoring_example
from test_import_preflight import LESSON, notebook


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The address of a server of the folder `served/` (rows.csv and a page in it)."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "rows.csv").write_text("1,2\n3,4\n")
    (served / "index.html").write_text("<p>a page about the data</p>")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_saves_a_data_file_read_by_address_and_the_build_reads_it(course_folder, server):
    """QuantEcon's intro lectures read most of their data by address: eight of twenty failed
    to build on a machine without network, each reported with 'save the data beside the
    lesson'. --fetch does that: the address becomes data/rows.csv, listed in files:, and
    the build passes with no network. An address it cannot fetch, or a web page, stays."""
    course_folder.write(authoring_example())
    cells = [
        f"import urllib.request\nimport numpy as np\nSOURCE = '{server}/rows.csv'\n"
        f"MISSING = '{server}/gone.csv'\nOTHER = '{server}/rows.csv'\nSHOWN = '{server}/rows.csv'",
        f"PAGE = '{server}/index.html'\ntable = np.loadtxt(SOURCE, delimiter=',')\n"
        "print(table.sum())\nrequest = urllib.request.Request(OTHER)\n"
        "def later():\n    print(SHOWN)\n"
        "    return np.loadtxt(MISSING), np.loadtxt(PAGE), np.loadtxt(SHOWN)",
    ]
    notebook(course_folder.root / "downloads.ipynb", cells)
    done = course_folder.cli(
        "import", "downloads.ipynb", "--phase", "02", "--slug", "downloads", "--fetch"
    )
    assert done.returncode == 0, done.stderr
    lesson_path = course_folder.root.joinpath(*LESSON)
    lesson = lesson_path.read_text()
    assert "SOURCE = 'data/rows.csv'" in lesson and "files:\n  - data/rows.csv\n" in lesson
    assert (lesson_path.parent / "data" / "rows.csv").read_text() == "1,2\n3,4\n"
    assert f"MISSING = '{server}/gone.csv'" in lesson
    assert f"PAGE = '{server}/index.html'" in lesson
    # Given to what reads no file (a request), an address stays: no path can stand in.
    assert f"OTHER = '{server}/rows.csv'" in lesson
    assert f"SHOWN = '{server}/rows.csv'" in lesson  # read, and printed too
    report = done.stdout
    assert (
        f"cell 3: the code reads {server}/rows.csv: fetched (8 bytes) and saved as "
        "data/rows.csv beside the lesson, listed in files:"
    ) in report
    assert (
        f"cell 3: --fetch could not fetch {server}/gone.csv (File not found): it stays" in report
    ), report
    assert "index.html" not in report  # a page is no data file: not fetched
    (network,) = [line for line in report.splitlines() if "reads the network" in line]
    assert "np.loadtxt(MISSING, an address)" in network and "SOURCE" not in network
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_without_fetch_the_address_stays_and_the_report_names_the_read(course_folder, server):
    course_folder.write(authoring_example())
    cells = [f"import numpy as np\ntable = np.loadtxt('{server}/rows.csv', delimiter=',')"]
    notebook(course_folder.root / "downloads.ipynb", cells)
    done = course_folder.cli("import", "downloads.ipynb", "--phase", "02", "--slug", "downloads")
    assert done.returncode == 0, done.stderr
    lesson = course_folder.root.joinpath(*LESSON).read_text()
    assert f"np.loadtxt('{server}/rows.csv'" in lesson and "data/rows.csv" not in lesson
    assert "reads the network" in done.stdout
