"""Build the real course with the real command line, then read the pages as HTML."""

import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, authoring_example, line_of

LESSON_1 = "recovery/design-an-input-pipeline/index.html"
LESSON_2 = "recovery/load-batch-and-checkpoint-order-with-grain/index.html"
LESSON_3 = "recovery/checkpoint-and-resume-a-training-step/index.html"
LESSON_4 = "recovery/write-checkpoints-that-survive-a-crash/index.html"
LESSON_5 = "recovery/shard-the-input-pipeline-across-processes/index.html"
LESSON_6 = "recovery/run-a-preemption-drill/index.html"


def run_build(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("e2e") / "site"
    result = run_build("--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def page(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def test_course_home_lists_every_lesson_in_order(site):
    home = page(site, "index.html")
    links = [a["href"] for a in home.select(".lesson-list a")]
    assert links == [LESSON_1, LESSON_2, LESSON_3, LESSON_4, LESSON_5, LESSON_6]
    assert home.h1.get_text() == "JAX Pathways"


def test_phase_page_has_the_study_guide(site):
    phase = page(site, "recovery/index.html")
    assert phase.select_one(".study-guide") is not None
    assert len(phase.select(".lesson-list > li")) == 6


@pytest.mark.parametrize("path", [LESSON_1, LESSON_2, LESSON_3, LESSON_4, LESSON_5, LESSON_6])
def test_lesson_page_has_five_stages_and_numbered_steps(site, path):
    lesson = page(site, path)
    titles = [h.get_text(" ", strip=True) for h in lesson.select("section.stage > h2.stage-title")]
    assert titles == [
        "Stage 1 of 5 Understand",
        "Stage 2 of 5 Build & Run",
        "Stage 3 of 5 Experiment",
        "Stage 4 of 5 Exercise & Check",
        "Stage 5 of 5 Evidence",
    ]
    numbers = [s.get_text() for s in lesson.select("#build-run .step .step-number")]
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)] and len(numbers) >= 3
    assert len(lesson.find_all("h1")) == 1


def test_recorded_output_of_lesson_1_holds_its_checks(site):
    output = page(site, LESSON_1).select_one(".recorded-run .output pre").get_text()
    assert "Batch sizes: [4, 4, 3]" in output
    assert output.rstrip().endswith("PASS: recovery-01")


def test_recorded_output_of_lesson_2_is_the_main_py_output_once(site):
    lesson = page(site, LESSON_2)
    output = lesson.select_one(".recorded-run .output pre").get_text()
    assert output.count("PASS: recovery-02") == 1
    first = next(line for line in output.splitlines() if line.startswith("First IDs"))
    assert len(first.split(",")) == 4
    environment = lesson.select_one(".environment").get_text()
    assert "grain 0.2.18" in environment and "jax 0.10.2" in environment
    assert "1 CPU device" in environment


def test_lesson_3_records_jax_and_shows_its_measured_divergence(site):
    lesson = page(site, LESSON_3)
    environment = lesson.select_one(".environment").get_text()
    assert "jax 0.10.2" in environment and "1 CPU device" in environment
    output = lesson.select_one(".recorded-run .output pre").get_text()
    assert "params and velocity equal to the bit" in output
    assert output.rstrip().endswith("PASS: recovery-03")
    values = [span.get_text() for span in lesson.select("#experiment .live-value")]
    gap, steps, repeated, unseen = values[:4]
    assert float(gap) > 0 and int(steps) > 0
    assert repeated.startswith("[") and unseen.startswith("[")
    no_velocity = lesson.select_one("#resume-without-the-velocity .output pre").get_text()
    printed = float(no_velocity.rsplit(":", 1)[1])
    assert abs(printed - float(gap)) <= 0.001 * printed  # the prose shows the printed value


def test_experiments_show_their_own_output(site):
    lesson = page(site, LESSON_2)
    experiments = lesson.select("#experiment .experiment")
    assert len(experiments) == 3
    for experiment in experiments:
        assert experiment.select(".output pre"), experiment.h3.get_text()
    raised = experiments[-1].select_one(".output-raised pre").get_text()
    assert raised.startswith("ValueError:") and "seed=99" in raised


def test_solutions_hints_and_answers_are_collapsed(site):
    for path in (LESSON_1, LESSON_2):
        lesson = page(site, path)
        exercises = lesson.select("#exercise-check .exercise")
        assert len(exercises) == 3
        for exercise in exercises:
            solution = exercise.select_one("details.solution")
            assert solution is not None and not solution.has_attr("open")
            assert solution.select_one(".output pre") is not None  # solutions were executed
        assert lesson.select_one("details.answer") is not None


@pytest.mark.parametrize("path", [LESSON_1, LESSON_2, LESSON_3, LESSON_4, LESSON_5, LESSON_6])
def test_figure_is_a_valid_svg_with_text(site, path):
    lesson = page(site, path)
    drawing = lesson.select_one("figure .figure-svg")
    assert drawing["aria-label"]
    assert drawing.select("svg text"), "text in the figure must stay text"
    full_size = lesson.select_one("figure .figure-full-size")
    svg_path = (site / path).parent / full_size["href"]
    root = ElementTree.parse(svg_path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts, "text in the figure must stay text"


def test_every_local_link_resolves(site):
    for html in site.rglob("*.html"):
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.select("[href], [src]"):
            url = tag.get("href") or tag.get("src")
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue
            # The 404 page links from the site's path ("/" here): hosts serve it anywhere.
            if html == site / "404.html" and parts.path:
                assert url.startswith("/"), f"404.html links relatively to {url}"
            folder = site if url.startswith("/") else html.parent
            target = (folder / parts.path.lstrip("/")).resolve() if parts.path else html
            assert target.is_file(), f"{html.relative_to(site)} links to missing {url}"
            if parts.fragment and target.suffix == ".html":
                ids = {
                    t["id"] for t in BeautifulSoup(target.read_text(), "html.parser").select("[id]")
                }
                assert parts.fragment in ids, f"{html.relative_to(site)}: #{parts.fragment}"


def test_no_page_requests_anything_from_another_host(site):
    for html in site.rglob("*.html"):
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.select("script[src], link[href], img[src]"):
            parts = urlsplit(tag.get("src") or tag.get("href"))
            assert not (parts.scheme or parts.netloc), html  # also no //host/... URLs


@pytest.mark.parametrize(
    "lesson",
    [
        "design-an-input-pipeline",
        "load-batch-and-checkpoint-order-with-grain",
        "checkpoint-and-resume-a-training-step",
        "write-checkpoints-that-survive-a-crash",
        "shard-the-input-pipeline-across-processes",
        "run-a-preemption-drill",
    ],
)
def test_downloaded_main_py_runs_on_its_own(site, tmp_path, lesson):
    script = tmp_path / "main.py"
    script.write_bytes((site / "recovery" / lesson / "main.py").read_bytes())
    result = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().splitlines()[-1].startswith("PASS: recovery-0")


def test_failed_build_keeps_the_previous_site(course_folder):
    course_folder.write(authoring_example())
    assert run_build(cwd=course_folder.root).returncode == 0
    index = course_folder.root / "site" / "index.html"
    before = index.read_bytes()
    broken = authoring_example().replace("assert sizes == [4, 4, 3]", "assert sizes == [4, 4]")
    course_folder.lesson_path.write_text(broken)
    result = run_build(cwd=course_folder.root)
    assert result.returncode == 1
    line = line_of(broken, "assert sizes == [4, 4]")
    assert f"lesson.md:{line}: step 2 failed" in result.stderr
    # The traceback is the lesson's own, in its Markdown lines, marked with '|'.
    assert (
        f'  |   File "content/lesson.md", line {line}, in <module>\n'
        "  |     assert sizes == [4, 4]\n" in result.stderr
    )
    assert "coursesite" not in result.stderr  # no traceback from the generator itself
    assert index.read_bytes() == before
    leftovers = [p.name for p in course_folder.root.iterdir() if p.name.startswith(".site")]
    assert leftovers == []


def test_help_teaches_the_command():
    result = run_build("--help")
    assert result.returncode == 0
    assert "docs/authoring.md" in result.stdout and "--out" in result.stdout


def test_import_help_teaches_install():
    result = run_build("import", "--help")
    assert result.returncode == 0
    assert "--install" in result.stdout and "nothing installed moves" in result.stdout
    assert "python build.py import tutorial.md --phase 02 --install" in result.stdout


def test_bad_arguments_exit_with_2():
    assert run_build("--jobs", "0").returncode == 2


def test_whole_training_steps_get_whole_ticks(site):
    """Lesson 06.03 plots the loss at steps 1..15: its step axis reads 2, 4, ..., never 2.5."""
    lesson = page(site, LESSON_3)
    texts = lesson.select("#loss-per-step-uninterrupted-and-resumed-from-disk .figure-svg text")
    # matplotlib centres the x axis's tick labels under their ticks and ends the y axis's
    steps = [t.get_text() for t in texts if t.get("text-anchor") == "middle"]
    numbers = [s for s in steps if s.replace(".", "").isdigit()]
    assert len(numbers) >= 4, steps
    assert all(n.isdigit() for n in numbers), numbers
