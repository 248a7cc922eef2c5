"""A lesson publishes as images only real, clean image files of the course (assets.py):
never a secret that an image path names, never an SVG that runs script on its own URL.
Each case goes through the real command line and then searches the whole site."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT, authoring_example, line_of, no_traceback
from coursesite.publish.sitecheck import check_assets

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
SECRET = b"DEPLOY_TOKEN=s3cr3t-deploy-token\n"
CLEAN_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" '
    'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 10 10">'
    '<inkscape:grid id="grid1"/><rect width="10" height="10" fill="#3366cc" '
    'inkscape:label="box"/></svg>'
)


def with_image(src: str, alt: str = "the pipeline diagram") -> str:
    return authoring_example().replace("# Understand\n", f"# Understand\n\n![{alt}]({src})\n", 1)


def build(folder, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q", *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def published_with(site, needle: bytes) -> list:
    return [p for p in site.rglob("*") if p.is_file() and needle in p.read_bytes()]


def refused(course_folder, text: str, message: str) -> None:
    result = build(course_folder.root)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr, result.stderr
    assert f"lesson.md:{line_of(text, '](')}: " in result.stderr, result.stderr
    assert no_traceback(result.stderr)


def course_with_image(course_folder, name: str, content: bytes | str):
    """The course, its lesson showing an image file `name` holding `content`; the lesson text
    and the image's path, for the test to change the file behind the unchanged lesson."""
    text = with_image(f"images/{name}")
    course_folder.write(text)
    image = course_folder.lesson_path.parent / "images" / name
    image.parent.mkdir()
    image.write_bytes(content if isinstance(content, bytes) else content.encode())
    return text, image


@pytest.mark.parametrize(
    ("src", "secret_at", "message"),
    [
        ("../.env", ".env", "image '../.env' is a hidden or private file of the course"),
        ("../.git/config", ".git/config", "image '../.git/config' is a hidden or private"),
        ("%2e%2e/.env", ".env", "image '../.env' is a hidden or private file"),
        ("../lessons.yaml", None, "'../lessons.yaml' is not an image file"),
        ("../records/count-batches.yaml", "records/count-batches.yaml", "hidden or private"),
        ("images/diagram.png", "content/images/diagram.png", "is not an image, though its"),
    ],
)
def test_a_secret_named_as_an_image_is_refused_at_its_line(course_folder, src, secret_at, message):
    text = with_image(src)
    course_folder.write(text)
    if secret_at:
        secret = course_folder.root / secret_at
        secret.parent.mkdir(parents=True, exist_ok=True)
        secret.write_bytes(SECRET)
    refused(course_folder, text, message)
    assert not (course_folder.root / "site").exists()


def test_a_symlinked_image_that_points_at_a_dotfile_is_refused(course_folder):
    text = with_image("images/logo.png")
    course_folder.write(text)
    (course_folder.root / ".env").write_bytes(SECRET)
    link = course_folder.lesson_path.parent / "images" / "logo.png"
    link.parent.mkdir()
    link.symlink_to(course_folder.root / ".env")
    refused(course_folder, text, "image 'images/logo.png' is a hidden or private file")


def test_an_image_swapped_for_a_link_out_of_the_course_is_refused_by_the_next_build(
    course_folder, tmp_path_factory
):
    """The lesson text is unchanged, so its parse comes from the cache: the image is checked
    again all the same, and `touch` does not make the build call it up to date."""
    secret = tmp_path_factory.mktemp("elsewhere") / "token.png"
    secret.write_bytes(PNG + SECRET)
    text, image = course_with_image(course_folder, "logo.png", PNG)
    assert build(course_folder.root).returncode == 0
    image.unlink()
    image.symlink_to(secret)
    course_folder.lesson_path.touch()
    refused(course_folder, text, "image 'images/logo.png' is outside the course folder")
    assert published_with(course_folder.root / "site", SECRET) == []


def test_an_image_swapped_for_a_fifo_is_refused_without_waiting(course_folder):
    text, image = course_with_image(course_folder, "logo.png", PNG)
    assert build(course_folder.root).returncode == 0
    image.unlink()
    os.mkfifo(image)
    refused(course_folder, text, "image 'images/logo.png' is not a regular file")


def test_a_frozen_build_refuses_a_secret_image_too(course_folder):
    _, image = course_with_image(course_folder, "logo.png", PNG)
    assert build(course_folder.root).returncode == 0
    image.write_bytes(SECRET)
    result = build(course_folder.root, "--frozen")
    assert result.returncode == 1, result.stderr
    assert "image 'images/logo.png' is not an image, though its name says PNG" in result.stderr
    assert published_with(course_folder.root / "site", SECRET) == []


@pytest.mark.parametrize(
    ("svg", "message"),
    [
        (
            '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>',
            "element <script> is not one a figure may contain",
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1"/></svg>',
            "attribute 'onload' on <svg> is not allowed",
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div '
            'xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>',
            "element <foreignObject> is not one a figure may contain",
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink">'
            '<a x:href="javascript:alert(1)"><rect width="1"/></a></svg>',
            "element <a> is not one a figure may contain",
        ),
    ],
)
def test_an_svg_image_that_could_run_script_is_refused(course_folder, svg, message):
    text, _ = course_with_image(course_folder, "chart.svg", svg)
    refused(course_folder, text, f"SVG image 'images/chart.svg' cannot be published: {message}")


def test_a_clean_svg_image_is_published_as_the_allowlist_rebuilt_it(course_folder):
    course_with_image(course_folder, "chart.svg", CLEAN_SVG)
    result = build(course_folder.root)
    assert result.returncode == 0, result.stderr
    [published] = (course_folder.root / "site").rglob("images/chart-*.svg")
    svg = published.read_text()
    assert '<rect width="10" height="10" fill="#3366cc">' in svg
    assert "inkscape" not in svg
    assert check_assets(course_folder.root / "site") == []


def test_check_flags_a_published_asset_that_could_run_script(course_folder):
    """`build.py check` looks at every published file, not only at what the build wrote."""
    course_with_image(course_folder, "chart.svg", CLEAN_SVG)
    assert build(course_folder.root).returncode == 0
    site = course_folder.root / "site"
    [published] = site.rglob("images/chart-*.svg")
    published.write_text(CLEAN_SVG.replace("<rect", '<rect onclick="alert(1)"'))
    (published.parent / "logo.png").write_bytes(b"<html><script>alert(1)</script>")
    (published.parent / "page.xhtml").write_text("<html/>")
    found = {(problem.path.rpartition("/")[2], problem.message) for problem in check_assets(site)}
    assert found == {
        (
            published.name,
            f"unsafe asset: SVG image '{published.relative_to(site)}' cannot be "
            "published: attribute 'onclick' on <rect> is not allowed",
        ),
        (
            "logo.png",
            f"unsafe asset: image '{(published.parent / 'logo.png').relative_to(site)}'"
            " is not an image, though its name says PNG",
        ),
        ("page.xhtml", "unsafe asset: a .xhtml document is published"),
    }
