"""Files the manifest and front matter name stay inside the course folder, links resolved."""

import subprocess
import sys

from conftest import ROOT, authoring_example, line_of


def build(folder) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_data_file_relinked_out_of_the_course_is_refused_on_a_cached_rebuild(
    course_folder, tmp_path_factory
):
    secret = tmp_path_factory.mktemp("elsewhere") / "secret.csv"
    secret.write_text("SECRET-TOKEN\n")
    text = authoring_example().replace("revision: v0.1.0", "revision: v0.1.0\nfiles: [records.csv]")
    course_folder.write(text)
    data = course_folder.lesson_path.parent / "records.csv"
    data.write_text("id\n1\n")
    assert build(course_folder.root).returncode == 0
    # The lesson file is unchanged, so its parse comes from the cache this time.
    data.unlink()
    data.symlink_to(secret)
    result = build(course_folder.root)
    assert result.returncode == 1, result.stderr
    assert "data file 'records.csv' is outside the course folder" in result.stderr
    assert f"lesson.md:{line_of(text, 'files: [records.csv]')}: " in result.stderr
    site = course_folder.root / "site"
    assert not [p for p in site.rglob("*") if p.is_file() and b"SECRET-TOKEN" in p.read_bytes()]
