"""The lesson page's setup help: one way in per shell, and one for Jupyter that installs the
same packages plus JupyterLab and opens the lesson's notebook download."""

import json
import re
from html import unescape

from conftest import authoring_example
from coursesite.pipeline import build

PAGE = "basics/count-batches/index.html"


def setup_sections(html: str) -> dict[str, str]:
    """{tab heading: the section's HTML} inside the setup help."""
    help_ = re.search(r'<details class="setup-help".*?</details>', html, re.S).group(0)
    return {
        unescape(title): section
        for section, title in (
            (match.group(0), match.group(1))
            for match in re.finditer(
                r"<section[^>]*>\s*<h3[^>]*>(.*?)</h3>.*?</section>", help_, re.S
            )
        )
    }


def code_of(section: str) -> list[str]:
    code = re.search(r"<pre><code>(.*?)</code></pre>", section, re.S).group(1)
    return unescape(code).splitlines()


def test_setup_help_has_a_jupyter_route_to_the_lessons_notebook(course_folder):
    course_folder.write(authoring_example())
    build(course_folder.options())
    page = course_folder.root / "site" / PAGE
    sections = setup_sections(page.read_text(encoding="utf-8"))
    assert list(sections) == ["macOS / Linux terminal", "Windows PowerShell", "Jupyter"]

    posix_install = next(
        line for line in code_of(sections["macOS / Linux terminal"]) if "pip" in line
    )
    packages = posix_install.split("pip install ", 1)[1]
    assert "numpy==" in packages
    jupyter = sections["Jupyter"]
    assert code_of(jupyter) == [
        f"python -m pip install {packages} jupyterlab",
        "jupyter lab lesson.ipynb",
    ]
    # The link is the notebook download beside the page, a notebook with the lesson's code.
    [href] = re.findall(r'<a href="([^"]+)" download>', jupyter)
    assert href == "lesson.ipynb"
    notebook = json.loads((page.parent / href).read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert any('print("PASS: count-batches")' in source for source in sources)
