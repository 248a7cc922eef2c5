"""The build's highlighting helper (markup/highlighting.py): the same HTML as Pygments in
the build's process, a fallback when it fails, and no process left after a build."""

import pytest

from conftest import RecordingProgress, authoring_example
from coursesite.markup import highlighting
from coursesite.markup.markdown import _html_formatter, _lexer, highlight_code
from coursesite.pipeline import build

SAMPLES = [
    ('def f(x):\n    """Doc."""\n    return {"é": x ** 2}  # note\n', "python"),
    ("pip install -r requirements.txt && echo done\n", "bash"),
    ("<p>not <b>code</b></p>\n", "no-such-language"),
    ("", "python"),
]


def here(code: str, language: str) -> str:
    from pygments import highlight

    return highlight(code, _lexer(language or "text"), _html_formatter())


@pytest.fixture
def helper():
    highlighting.start_highlighter()
    running = highlighting.running()
    assert running is not None
    yield running
    highlighting.end_highlighter()


@pytest.mark.parametrize(("code", "language"), SAMPLES)
def test_the_helper_gives_what_pygments_gives_in_the_build(helper, code, language):
    assert helper.highlight(code, language) == here(code, language)
    assert highlight_code(code, language) == here(code, language)


def test_a_helper_that_died_leaves_highlighting_to_the_build(helper):
    assert helper.process is not None
    helper.process.kill()
    helper.process.wait()
    code, language = SAMPLES[0]
    assert helper.highlight(code, language) is None
    assert highlight_code(code, language) == here(code, language)


def test_a_build_starts_one_helper_and_ends_it(course_folder, monkeypatch):
    started, answered = [], []
    original, ask = highlighting.Highlighter.__init__, highlighting.Highlighter.highlight

    def recording(self):
        original(self)
        started.append(self.process)

    def asking(self, code, language):
        html = ask(self, code, language)
        answered.append(html is not None)
        return html

    monkeypatch.setattr(highlighting.Highlighter, "__init__", recording)
    monkeypatch.setattr(highlighting.Highlighter, "highlight", asking)
    course_folder.write(authoring_example())
    build(course_folder.options(), RecordingProgress())
    [process] = started
    assert answered and all(answered)  # the page's code was highlighted by the helper
    assert process.wait(timeout=10) is not None  # ended with the build
    assert highlighting.running() is None
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert '<span class="k">' in page or '<span class="kn">' in page  # highlighted code


def test_the_helper_exits_at_the_end_of_its_input_as_when_the_build_dies():
    helper = highlighting.Highlighter()
    assert helper.process is not None and helper.process.stdin is not None
    assert helper.highlight("x = 1\n", "python") == here("x = 1\n", "python")
    helper.process.stdin.close()  # what the build's death does to the pipe
    assert helper.process.wait(timeout=10) == 0
