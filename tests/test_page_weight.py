"""`build.py check` weighs every lesson page (compressed HTML with its inline figures, plus
the stylesheets and scripts it loads) and fails on a page over 150 KiB, naming the page,
its weight and what makes it heavy."""

import re

from conftest import authoring_example, no_traceback
from coursesite.config.manifest import Settings
from coursesite.publish.sitecheck import page_weights

PAGE = "basics/count-batches/index.html"

# 2,400 lines of 79 characters that gzip cannot shrink much: 192,000 characters, under the
# 200,000-character output limit, so only the page's weight can stop the lesson.
HEAVY = """\
import random
noise = random.Random(0)
letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
for _ in range(2400):
    print("".join(noise.choice(letters) for _ in range(79)))
print("PASS: count-batches")"""


def weight_lines(stdout: str) -> dict[str, float]:
    """{page: KiB} from check's "page weight" lines."""
    return {
        path: float(size)
        for size, path in re.findall(r"^page weight +([\d.]+) KiB \(.*\) +(\S+)$", stdout, re.M)
    }


def test_a_lesson_page_weight_is_reported_and_a_light_page_passes(course_folder):
    course_folder.write(authoring_example())
    assert course_folder.cli("-q").returncode == 0
    checked = course_folder.cli("check")
    assert checked.returncode == 0, checked.stderr
    weights = weight_lines(checked.stdout)
    assert list(weights) == [PAGE]  # lesson pages only, not the home or phase pages
    assert 10 < weights[PAGE] < 150


def test_a_page_over_150_kib_fails_check_naming_the_page_its_weight_and_biggest_parts(
    course_folder,
):
    text = authoring_example().replace('print("PASS: count-batches")', HEAVY)
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr  # a heavy page builds: only check refuses it
    checked = course_folder.cli("check")
    assert checked.returncode == 1
    assert no_traceback(checked.stderr)
    [error] = [line for line in checked.stderr.splitlines() if "over the 150.0 KiB limit" in line]
    weight = float(re.search(r"page weighs ([\d.]+) KiB compressed", error).group(1))
    assert weight > 150
    assert error.startswith(f"error: site/{PAGE}: page weighs {weight} KiB compressed (")
    listed = error.split("biggest parts: ", 1)[1].split(". ", 1)[0]
    parts = {what: float(size) for what, size in re.findall(r"([^,]+?) ([\d.]+) KiB", listed)}
    parts = {what.strip(): size for what, size in parts.items()}
    # The HTML comes first; then the heaviest parts, the printing step's section among them.
    assert next(iter(parts)) == "the HTML" and parts["the HTML"] > 120
    step = next(what for what in parts if what.startswith("section #"))
    assert parts[step] > 100
    assert "static/style.css" in error
    assert "split the lesson" in error, error
    assert weight_lines(checked.stdout)[PAGE] == weight


def test_the_real_lessons_are_under_the_limit(real_site):
    weights = page_weights(real_site)
    assert len(weights) == 6
    limit = Settings().page_weight_kib * 1024
    assert limit == 150 * 1024  # the default
    assert all(0 < weight.compressed <= limit for weight in weights), weights
    # Raw, the same pages are heavier than the limit: the limit is on what a reader downloads.
    assert all(weight.raw > weight.compressed * 3 for weight in weights)


def test_the_limit_is_a_setting(course_folder):
    course_folder.write(authoring_example())
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(
        manifest.replace("settings:\n", "settings:\n  page_weight_kib: 5\n")
    )
    assert course_folder.cli("-q").returncode == 0
    checked = course_folder.cli("check")
    assert checked.returncode == 1
    [error] = [line for line in checked.stderr.splitlines() if "page weighs" in line]
    assert f"site/{PAGE}: page weighs" in error and "over the 5.0 KiB limit" in error
