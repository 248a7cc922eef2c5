"""Launch links: with `repository:` in lessons.yaml each lesson page offers its learner
notebook in Colab (GitHub) and Binder (where binder_url is set); without it, nothing."""

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import RecordingProgress, authoring_example
from coursesite.pipeline import build
from test_manifest import VALID, errors_of, write

PAGE = "basics/count-batches/index.html"


def launched(course_folder, repository: str, **options) -> dict[str, str]:
    course_folder.write(authoring_example())
    manifest = course_folder.manifest.read_text() + repository
    course_folder.manifest.write_text(manifest)
    out = options.pop("out", course_folder.root / "site")
    build(course_folder.options(out=out, **options), RecordingProgress())
    page = BeautifulSoup((Path(out) / PAGE).read_text(), "html.parser")
    return {a.get_text(): a["href"] for a in page.select(".launch-links a")}


def test_a_github_repository_offers_colab_and_binder_for_the_learner_notebook(
    course_folder,
):
    links = launched(
        course_folder,
        "repository:\n  url: https://github.com/jax-pathways/training-systems\n"
        "  branch: release/site\n  site_folder: docs/\n  binder_url: https://mybinder.org/\n",
    )
    notebook = "docs/basics/count-batches/lesson-student.ipynb"
    assert links == {
        "Open in Colab": "https://colab.research.google.com/github/jax-pathways/"
        f"training-systems/blob/release/site/{notebook}",
        "Open in Binder": "https://mybinder.org/v2/gh/jax-pathways/training-systems/"
        f"release%2Fsite?labpath={notebook}",
    }


def test_the_student_edition_launches_its_own_notebook_and_gitlab_only_binder(
    course_folder, tmp_path
):
    links = launched(
        course_folder,
        "repository:\n  url: https://gitlab.com/group/course.git\n"
        "  binder_url: https://binder.example.org\n",
        edition="student",
        out=tmp_path / "student",
    )
    assert links == {
        "Open in Binder": "https://binder.example.org/v2/gl/group%2Fcourse/gh-pages"
        "?labpath=basics/count-batches/lesson.ipynb"
    }


def test_without_a_repository_no_page_offers_a_launch(course_folder):
    course_folder.write(authoring_example())
    build(course_folder.options(), RecordingProgress())
    page = (course_folder.root / "site" / PAGE).read_text()
    assert "launch-links" not in page and "colab" not in page.lower()


@pytest.mark.parametrize(
    ("repository", "message", "key"),
    [
        (
            "repository:\n  url: https://gitlab.com/group/course\n",
            "no launch service opens notebooks from gitlab.com",
            "url",
        ),
        (
            "repository:\n  url: github.com/owner/name\n",
            "is not a repository address",
            "url",
        ),
        (
            "repository:\n  url: https://github.com/o/n\n  site_folder: ../elsewhere\n",
            "is not a folder of the repository",
            "site_folder",
        ),
    ],
)
def test_a_repository_no_service_can_use_is_refused_at_its_line(tmp_path, repository, message, key):
    text = VALID + repository
    (error,) = errors_of(write(tmp_path, text))
    assert message in error.message
    line = next(n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith(key))
    assert error.line == line
