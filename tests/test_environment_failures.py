"""The machine fails the build: a disk that fills up, Pagefind missing. Each is one clear
error naming the file or the program and what to do, never a traceback, and the previous
site stays as it was."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pagefind_bin
import pytest

from conftest import ROOT, authoring_example
from coursesite import cli
from coursesite.publish import sitefolder


def previous_site(folder: Path) -> Path:
    """A site a build wrote, in `folder`/site; return its page."""
    page = folder / "site" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("the previous site")
    (folder / "site" / ".coursesite").write_text("a site a build wrote")
    return page


def assert_clean_failure(stderr: str) -> None:
    assert not re.search(r"^Traceback|internal error:", stderr, re.M), stderr
    assert "hint:" in stderr and "coursesite/" not in stderr


@pytest.fixture
def small_disk(tmp_path):
    """A file system of 4 MB mounted at tmp_path/disk, for a test to fill (root only)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def fill_up(disk: Path, leave: int) -> None:
    """Fill `disk` but for `leave` bytes."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as stream, contextlib.suppress(OSError):
        while True:
            stream.write(b"\0" * 65536)
    os.truncate(filler, filler.stat().st_size - leave)


@pytest.mark.parametrize("free_kib", [40, 200, 500])
def test_a_full_disk_names_the_file_being_written_and_keeps_the_site(
    course_folder, small_disk, free_kib
):
    """The site goes onto a real file system with `free_kib` left: too little for the
    static files, for the pages, or for the search index: Pagefind leaves some of its
    files empty there and exits with 0, and the build went on to publish the site with a
    broken search index."""
    course_folder.write(authoring_example())
    page = previous_site(small_disk)
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (4096 - 16 - free_kib) * 1024)
    result = course_folder.cli("-q", "--out", str(small_disk / "site"))
    assert result.returncode == 1, result.stderr
    written = re.search(
        r"error: (\S+): cannot write this file: no space left on device", result.stderr
    )
    assert written and Path(written.group(1)).is_relative_to(small_disk), result.stderr
    assert "free some disk space (df -h shows how full each disk is)" in result.stderr
    assert_clean_failure(result.stderr)
    assert page.read_text() == "the previous site"


def test_a_full_temporary_folder_names_the_file_being_written(course_folder, small_disk):
    """Lessons run in folders under TMPDIR: on a full disk there, the error names the
    lesson's file it could not write (it named none)."""
    course_folder.write(authoring_example())
    page = previous_site(course_folder.root)
    fill_up(small_disk, leave=8192)  # a full disk is no temporary folder to Python
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        env={**os.environ, "TMPDIR": str(small_disk)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    written = re.search(r"error: (\S+): cannot write this file: no space left", result.stderr)
    assert written and Path(written.group(1)).is_relative_to(small_disk), result.stderr
    assert_clean_failure(result.stderr)
    assert page.read_text() == "the previous site"


class FullDisk(io.BytesIO):
    """A file on a disk with no space left: the system's error names no file."""

    def write(self, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_write_that_fails_for_space_names_its_file_in_process(course_folder, monkeypatch, capsys):
    """The same without a mount (which needs root): the site's files are written through
    a file that fails as a full disk does."""
    course_folder.write(authoring_example())
    page = previous_site(course_folder.root)
    monkeypatch.chdir(course_folder.root)
    monkeypatch.setattr(sitefolder, "open", lambda path, mode: FullDisk(), raising=False)
    assert cli.main(["-q", "--jobs", "1"]) == 1
    stderr = capsys.readouterr().err
    staging = re.escape(str(course_folder.root.resolve() / ".site.new-"))
    assert re.search(
        staging + r"\w+/\.coursesite: cannot write this file: no space left on device", stderr
    ), stderr
    assert_clean_failure(stderr)
    assert page.read_text() == "the previous site"


@pytest.fixture(params=["program", "package"])
def pagefind_gone(request, tmp_path) -> dict[str, str]:
    """An environment in which pagefind_bin finds no program (its module without the
    binary beside it), or cannot be imported at all."""
    shadow = tmp_path / "shadow" / "pagefind_bin"
    shadow.mkdir(parents=True)
    if request.param == "program":
        shutil.copy(Path(pagefind_bin.__file__), shadow / "__init__.py")
    else:
        (shadow / "__init__.py").write_text("raise ImportError('a broken install')\n")
    return {**os.environ, "PYTHONPATH": str(shadow.parent)}


def test_a_missing_pagefind_is_named_with_how_to_install_it(course_folder, pagefind_gone):
    course_folder.write(authoring_example())
    page = previous_site(course_folder.root)
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        env=pagefind_gone,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert "cannot build the search index: the program pagefind is missing" in result.stderr
    assert "install the version the course pins with pip install -r requirements.txt" in (
        result.stderr
    )
    assert "pip install pagefind-bin" in result.stderr
    assert_clean_failure(result.stderr)
    assert page.read_text() == "the previous site"


def test_a_cache_or_record_file_that_fills_the_disk_is_named(tmp_path, monkeypatch):
    """Records, the cache and the site's state are written through a temporary file: the
    error names the file meant, not the temporary one, nor none."""
    from coursesite import files

    def full_disk_file(handle: int, mode: str) -> FullDisk:
        os.close(handle)
        return FullDisk()

    monkeypatch.setattr(files.os, "fdopen", full_disk_file)
    target = tmp_path / "records" / "count-batches.json"
    with pytest.raises(OSError) as caught:
        files.write_atomically(target, "{}")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)
    assert list(target.parent.iterdir()) == []  # nor is the temporary file left


def test_an_index_pagefind_left_empty_is_an_error_not_a_site(tmp_path, monkeypatch):
    """Pagefind exits with 0 when it could not write its files; an empty one is caught."""
    from coursesite.errors import BuildErrors
    from coursesite.publish import searchindex

    fake = tmp_path / "pagefind"
    fake.write_text(
        "#!/bin/sh\n"
        "while [ $# -gt 0 ]; do\n"
        '  if [ "$1" = --output-path ]; then mkdir -p "$2"; : > "$2/pagefind-entry.json"; fi\n'
        "  shift\n"
        "done\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(searchindex, "pagefind_executable", lambda: str(fake))
    site = tmp_path / "site"
    page = site / "lesson" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html><body><main data-pagefind-body>Batches</main></body></html>")
    with pytest.raises(BuildErrors) as caught:
        searchindex.index_search(site)
    assert "pagefind/pagefind-entry.json: the search index could not be built: pagefind did " in (
        str(caught.value)
    )
