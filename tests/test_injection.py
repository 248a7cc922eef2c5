"""Nothing an author writes in math, prose, options, output or figures reaches a page as
markup: the built pages pass the allowlist audit, and the audit catches what got through
before."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CourseFolder, authoring_example, line_of, write_hostile_course
from coursesite.markup.markdown import render_block
from coursesite.markup.markupaudit import audit_markup
from coursesite.markup.mathml import UnsafeMath, latex_to_mathml
from coursesite.publish.sitecheck import check_markup

PAGE = "basics/count-batches/index.html"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    folder = CourseFolder(tmp_path_factory.mktemp("hostile"))
    write_hostile_course(folder)
    result = folder.cli("-q")
    assert result.returncode == 0, result.stderr
    return folder.root / "site"


def test_hostile_text_is_shown_as_text_and_the_pages_pass_the_audit(hostile_site):
    findings = check_markup(hostile_site)
    assert findings == [], "\n".join(map(str, findings))
    lesson = (hostile_site / PAGE).read_text()
    assert "&lt;script\tsrc=main.py&gt;&lt;/script&gt;" in lesson  # the formula's text
    assert "&lt;script&gt;window.__injected=&#39;output&#39;&lt;/script&gt;" in lesson
    # The same payload past the 40 lines an output shows before it folds the rest away.
    assert "&lt;script&gt;window.__injected=&#39;folded output&#39;&lt;/script&gt;" in lesson
    assert '<details class="output-fold">' in lesson
    # latex2mathml keeps the spaces of \text as no-break spaces
    assert "<mtext>&lt;svg\u00a0onload=window.__injected='title'&gt;</mtext>" in lesson
    guide = (hostile_site / "basics" / "index.html").read_text()
    assert "&lt;script\tsrc=../basics/count-batches/main.py&gt;" in guide


def test_raw_html_payloads_are_refused(course_folder):
    """Raw HTML in lesson prose or a phase guide stops the build at its line."""
    text = authoring_example().replace(
        "the last batch has", "the <img src=x onerror=\"window.__injected='prose'\"> last batch has"
    )
    course_folder.write(text)
    (course_folder.root / "content" / "guide.md").write_text(
        '# Guide\n\n<script>window.__injected = "guide"</script>\n'
    )
    manifest = course_folder.manifest.read_text()
    course_folder.manifest.write_text(
        manifest.replace("    title: Basics\n", "    title: Basics\n    guide: content/guide.md\n")
    )
    result = course_folder.cli("-q")
    assert result.returncode == 1
    assert f"lesson.md:{line_of(text, '<img src=x')}: raw HTML '<img src=x" in result.stderr
    assert "guide.md:3: raw HTML '<script>" in result.stderr
    assert not (course_folder.root / "site").exists()


TAMPERING = {
    "a script loaded from a download": '<script src="../../basics/count-batches/main.py"></script>',
    "an inline script": "<script>alert(1)</script>",
    "a script from outside static/": '<script src="../../evil.js"></script>',
    "a script that climbs out of static/": '<script src="../../static/../main.js"></script>',
    "an event handler": '<p onclick="alert(1)">x</p>',
    "an event handler in math": '<math><mi onmouseover="alert(1)">x</mi></math>',
    "a javascript: link": '<a href="javascript:alert(1)">x</a>',
    "a javascript: link with a tab": '<a href="java\tscript:alert(1)">x</a>',
    "a data: URL": '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    "an iframe": '<iframe src="main.py"></iframe>',
    "a link inside math": '<math><mrow href="https://example.org"><mi>x</mi></mrow></math>',
    "a refresh": '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "an svg": "<svg><script>alert(1)</script></svg>",
}


@pytest.mark.parametrize("markup", TAMPERING.values(), ids=TAMPERING.keys())
def test_the_audit_finds_markup_that_got_through(hostile_site, tmp_path, markup):
    site = tmp_path / "site"
    page = site / PAGE
    page.parent.mkdir(parents=True)
    clean = (hostile_site / PAGE).read_text()
    page.write_text(clean.replace("</main>", markup + "</main>", 1))
    findings = check_markup(site)
    assert findings, f"{markup} passed the audit"
    assert all(f.path == PAGE and f.line for f in findings)


def test_the_old_injection_through_text_is_escaped():
    mathml = latex_to_mathml("\\text{<script\tsrc=main.py></script>}", display=False)
    assert "<script" not in mathml and "&lt;script" in mathml
    assert audit_markup(mathml) == []


@pytest.mark.parametrize(
    "latex", [r"\href{javascript:alert(1)}{x}", r"\style{color:red}{x}", r"\class{x}{y}"]
)
def test_math_that_asks_for_links_or_styles_is_refused(latex):
    with pytest.raises(UnsafeMath):
        latex_to_mathml(latex, display=True)


LATEX_PIECES = st.sampled_from(
    [
        r"\text{",
        r"\mathrm{",
        r"\href{",
        r"\color{",
        r"\style{",
        r"\frac{",
        r"\sqrt{",
        "}",
        "{",
        "<",
        ">",
        "&",
        '"',
        "'",
        "\t",
        " ",
        "script",
        "onload=",
        "javascript:",
        "x",
        "1",
        "^",
        "_",
        r"\alpha",
        r"\\",
        r"\begin{matrix}",
        r"\end{matrix}",
        r"\operatorname{",
        r"\mathbb{",
        "&#x3c;",
        "&lt;",
        "/",
        "=",
        r"\left(",
        r"\right)",
        r"\overbrace{",
        r"\hat{",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LATEX_PIECES | st.text(max_size=3), max_size=12).map("".join))
def test_any_formula_becomes_allowed_mathml_or_an_error(latex):
    try:
        mathml = latex_to_mathml(latex, display=False)
    except Exception:  # unreadable LaTeX is reported to the author at its line
        return
    assert audit_markup(mathml) == [], mathml


MARKDOWN_PIECES = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[a](javascript:alert(1))",
        "[a](data:text/html,x)",
        "![a](javascript:alert(1))",
        "$x$",
        "$$y$$",
        "`code`",
        "\n\n",
        "# heading\n",
        "- item\n",
        "*em*",
        "<!-- c -->",
        "&lt;",
        "&#60;script",
        "\\",
        "[",
        "](",
        ")",
        '"',
        "<a href='javascript:alert(1)'>",
        "```python\nprint(1)\n```\n",
        ":::{note}",
        "| a | b |\n|---|---|\n| <b> | x |\n",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKDOWN_PIECES | st.text(max_size=4), max_size=14).map("".join))
def test_any_markdown_renders_to_allowed_markup(markdown):
    try:
        page = render_block(markdown, resolve_link=lambda href: "#")
    except Exception:  # math the converter cannot read: the parse stage reports it
        return
    assert audit_markup(page) == [], page
