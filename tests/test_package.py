"""The generator as a package: a wheel built from the repository installs outside it, and
its `coursesite` command starts a course that builds and passes `coursesite check`, with
the theme and the starter course coming from the installed package alone."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, authoring_example


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel, installed into a folder of its own; the repository is not on the path."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"  # a build writes build/ and *.egg-info beside its sources
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "coursesite", source / "coursesite", ignore=shutil.ignore_patterns("__pycache__")
    )
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    wheels = work / "wheels"
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, source], check=True
    )
    [wheel] = wheels.glob("coursesite-*.whl")
    target = work / "installed"
    subprocess.run([*pip, "install", "--no-deps", "--target", target, wheel], check=True)
    return work, target


def coursesite(installed, *arguments, cwd):
    _, target = installed
    environment = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run(
        [str(target / "bin" / "coursesite"), *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_installed_package_is_the_one_that_runs(installed):
    work, target = installed
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import coursesite; print(coursesite.__file__, coursesite.DEFAULT_THEME)",
        ],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
    )
    module, theme = found.stdout.split()
    assert module.startswith(str(target)) and theme.startswith(str(target))
    assert (target / "coursesite" / "themes" / "default" / "templates" / "base.html").is_file()
    assert (target / "coursesite" / "starter" / "course" / "gitignore").is_file()


def test_a_new_course_builds_and_passes_check_outside_the_repository(installed):
    work, _ = installed
    made = coursesite(installed, "new", "my-course", cwd=work)
    assert made.returncode == 0, made.stderr
    course = work / "my-course"
    assert sorted(p.name for p in course.iterdir()) == [
        ".gitignore",
        "README.md",
        "content",
        "lessons.yaml",
    ]
    assert "JAX" not in (course / "lessons.yaml").read_text() + (course / "README.md").read_text()
    built = coursesite(installed, "build", "-q", cwd=course)
    assert built.returncode == 0, built.stderr
    page = (course / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert "My Course" in page and "[4, 4, 3]" in page
    checked = coursesite(installed, "check", "-q", cwd=course)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("check passed")


def test_new_refuses_a_folder_that_holds_anything(installed, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    refused = coursesite(installed, "new", str(tmp_path), cwd=tmp_path)
    assert refused.returncode == 1
    assert "is not an empty folder: nothing written" in refused.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_starter_lesson_is_the_documented_complete_example():
    """docs/authoring.md prints the lesson `coursesite new` writes: one text, never two."""
    starter = ROOT / "coursesite" / "starter" / "course" / "content" / "01-basics"
    assert (starter / "01-count-batches.md").read_text() == authoring_example()
