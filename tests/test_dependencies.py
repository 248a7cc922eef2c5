"""Installed package versions as the build sees them, in a process that lives on (serve)."""

import os
import sys

from coursesite.execution.dependencies import distribution_version, installed_signature


def test_an_upgrade_is_seen_by_a_running_process(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    (tmp_path / "toypackage-1.0.dist-info").mkdir()
    assert distribution_version("toypackage") == "1.0"
    (tmp_path / "toypackage-1.0.dist-info").rename(tmp_path / "toypackage-2.0.dist-info")
    assert distribution_version("toypackage") == "2.0"
    (tmp_path / "toypackage-2.0.dist-info").rmdir()
    assert distribution_version("toypackage") is None


def test_the_installed_signature_ignores_folders_without_distributions(tmp_path, monkeypatch):
    """build.py's own folder is first on sys.path, and each build that writes replaces
    site/ in it: that must not count as an install (the hidden modules' cache missed on
    every code edit), while a distribution installed there still does."""
    course = tmp_path / "course"
    course.mkdir()
    monkeypatch.setattr(sys, "path", [str(course), *sys.path])
    before = installed_signature()
    (course / "site").mkdir()
    os.utime(course, ns=(1, 1))  # as a build's swap of site/ leaves it, on any clock
    assert installed_signature() == before
    (course / "example-1.0.dist-info").mkdir()
    assert installed_signature() != before
