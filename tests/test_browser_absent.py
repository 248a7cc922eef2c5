"""Without Chromium, `make test` says loudly that the browser tests did not run; CI fails."""

import os
import subprocess
import sys

from conftest import ROOT

BROWSER_TESTS = ROOT / "tests" / "browser" / "test_injection.py"  # the quickest to collect


def run_browser_tests(**environment: str) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    env.update(environment, CHROMIUM="/nonexistent/chromium")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(BROWSER_TESTS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_workstation_without_chromium_is_told_how_many_tests_did_not_run():
    result = run_browser_tests()
    assert result.returncode == 0, result.stdout
    [summary] = [line for line in result.stdout.splitlines() if "did not run" in line]
    skipped = int(result.stdout.rsplit(" skipped", 1)[0].split()[-1])
    assert skipped >= 1 and f" {skipped} browser tests did not run " in summary
    assert "apt-get install chromium" in result.stdout


def test_ci_without_chromium_fails():
    result = run_browser_tests(CI="1")
    assert result.returncode != 0 and "apt-get install chromium" in result.stdout
