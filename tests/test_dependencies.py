"""Installed package versions as the build sees them, in a process that lives on (serve)."""

import sys

from coursesite.execution.dependencies import distribution_version


def test_an_upgrade_is_seen_by_a_running_process(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    (tmp_path / "toypackage-1.0.dist-info").mkdir()
    assert distribution_version("toypackage") == "1.0"
    (tmp_path / "toypackage-1.0.dist-info").rename(tmp_path / "toypackage-2.0.dist-info")
    assert distribution_version("toypackage") == "2.0"
    (tmp_path / "toypackage-2.0.dist-info").rmdir()
    assert distribution_version("toypackage") is None
