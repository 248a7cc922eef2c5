"""An image the lesson's code writes and its prose shows (front matter `writes:`): the build
takes it from the run into the record and publishes it beside the page; one the code does
not write, or that no image shows, is an error at its line. Through the real command line
and the real lesson process."""

import base64
import json
import zipfile

from conftest import authoring_example, line_of, no_traceback

# A 1x1 PNG: the code writes these bytes, the page must publish them as they are.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
WRITE_PNG = (
    "import base64, os\n"
    "os.makedirs('out', exist_ok=True)\n"
    f"open('out/plot.png', 'wb').write(base64.b64decode({base64.b64encode(PNG).decode()!r}))\n"
)


def written_lesson(writes: str = "[out/plot.png]", code: str = WRITE_PNG, src="out/plot.png"):
    text = authoring_example()
    text = text.replace("---\n", f"---\nwrites: {writes}\n", 1)
    text = text.replace("ids = np.arange(11)\n", f"ids = np.arange(11)\n{code}", 1)
    return text.replace("# Understand\n", f"# Understand\n\n![the plot the code drew]({src})\n", 1)


def test_an_image_the_code_writes_is_published_from_the_run(course_folder):
    course_folder.write(written_lesson())
    result = course_folder.cli("-q")
    assert result.returncode == 0, result.stderr
    page_folder = next((course_folder.root / "site").rglob("count-batches"))
    published = list((page_folder / "images").glob("plot-*.png"))
    assert [p.read_bytes() for p in published] == [PNG]
    page = (page_folder / "index.html").read_text()
    assert f'src="images/{published[0].name}"' in page
    assert 'src="out/plot.png"' not in page
    # The zip holds it too, where its lesson.md shows it.
    with zipfile.ZipFile(page_folder / "count-batches.zip") as archive:
        assert archive.read(f"images/{published[0].name}") == PNG
        assert f"](images/{published[0].name})" in archive.read("lesson.md").decode()
    # The record keeps it: a build from the cache publishes it with no run.
    record = json.loads((page_folder / "record.json").read_text())
    assert base64.b64decode(record["written"]["out/plot.png"]) == PNG
    (page_folder / "images" / published[0].name).unlink()
    again = course_folder.cli("-q")
    assert again.returncode == 0, again.stderr
    assert (page_folder / "images" / published[0].name).read_bytes() == PNG


def test_an_image_the_code_does_not_write_fails_at_the_line_that_shows_it(course_folder):
    text = written_lesson(code="")
    course_folder.write(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1, result.stderr
    line = line_of(text, "](out/plot.png)")
    assert (
        f"lesson.md:{line}: the lesson's code did not write 'out/plot.png', which this line "
        "shows" in result.stderr
    ), result.stderr
    assert no_traceback(result.stderr)
    assert not (course_folder.root / "site").exists()


def test_a_written_file_that_is_no_image_is_refused_as_any_image_is(course_folder):
    code = "import os\nos.makedirs('out', exist_ok=True)\nopen('out/plot.png', 'w').write('x')\n"
    text = written_lesson(code=code)
    course_folder.write(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1, result.stderr
    assert f"lesson.md:{line_of(text, '](out/plot.png)')}: " in result.stderr
    assert "image 'out/plot.png' is not an image, though its name says PNG" in result.stderr


def test_writes_entries_that_cannot_be_shown_are_errors_at_their_front_matter_line(
    course_folder,
):
    text = written_lesson(writes="[out/plot.png, ../secret.png, out/data.csv, out/other.png]")
    course_folder.write(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1, result.stderr
    line = line_of(text, "writes:")
    assert f"lesson.md:{line}: '../secret.png' in writes: is not a path inside" in result.stderr
    assert f"lesson.md:{line}: 'out/data.csv' in writes: is not an image file" in result.stderr
    assert (
        f"lesson.md:{line}: 'out/other.png' in writes: is shown by no image of the lesson"
        in result.stderr
    )
    assert "'out/plot.png' in writes:" not in result.stderr


def test_without_writes_an_image_missing_beside_the_lesson_says_how_to_declare_one(
    course_folder,
):
    text = written_lesson(writes="[]")
    course_folder.write(text)
    result = course_folder.cli("-q")
    assert result.returncode == 1
    line = line_of(text, "](out/plot.png)")
    assert f"lesson.md:{line}: image file 'out/plot.png' not found" in result.stderr
    assert "under 'writes:' in the front matter" in result.stderr
