import pytest

from conftest import ROOT, authoring_example, line_of, replace_block
from coursesite.config.manifest import load_course
from coursesite.errors import BuildErrors
from coursesite.lesson.model import Check, Exercise, Experiment, Figure, Note, Pause, Section
from coursesite.lesson.parse import parse_lesson


@pytest.fixture
def example(course_folder):
    text = authoring_example()
    course = course_folder.write(text)
    return text, parse_lesson(course.lessons[0])


def parse_errors(course_folder, text):
    course = course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        parse_lesson(course.lessons[0])
    return caught.value.errors


def test_front_matter_is_typed(example):
    _, lesson = example
    assert lesson.front.minutes == 20 and lesson.front.hardware == "cpu"
    assert lesson.front.references[0].url.startswith("https://numpy.org/")


def test_stages_in_order_with_their_blocks(example):
    _, lesson = example
    assert [s.key for s in lesson.stages] == [
        "understand",
        "build-run",
        "experiment",
        "exercise-check",
        "evidence",
    ]
    kinds = {s.key: [type(i).__name__ for i in s.items] for s in lesson.stages}
    assert kinds["understand"] == ["Section", "Prose", "Pause", "Figure"]
    assert kinds["build-run"] == ["Step", "Step"]
    assert kinds["exercise-check"] == ["Exercise", "Check", "Note"]
    assert kinds["evidence"] == ["Note", "Note"]


def test_step_code_lines_are_file_lines(example):
    text, lesson = example
    step1, step2 = lesson.steps
    assert (step1.number, step1.title) == (1, "Make the records")
    assert step1.code.line == line_of(text, "import numpy as np")
    assert step1.intro.markdown.strip() == "Start `main.py` with the data."
    assert "evidence" in step2.explanation.markdown
    assert lesson.main_py().startswith("import numpy as np\n")
    assert 'print("PASS: count-batches")' in lesson.main_py()


def test_main_py_separates_steps_with_two_blank_lines(example):
    _, lesson = example
    step1, step2 = lesson.steps
    expected = step1.code.source.rstrip() + "\n\n\n" + step2.code.source.rstrip() + "\n"
    assert lesson.main_py() == expected  # PEP 8: two blank lines between top-level parts


def test_every_block_kind_keeps_its_parts(example):
    _, lesson = example
    [experiment] = lesson.items(Experiment)
    assert experiment.predict.startswith("How many records")
    assert experiment.expected.startswith("Eight records")
    assert experiment.takeaway.markdown.startswith("Dropping is a policy")
    [figure] = lesson.items(Figure)
    assert figure.alt.startswith("Bar chart") and figure.caption == "Batch sizes"
    assert "Each bar is one batch" in figure.read.markdown
    assert "remainder" in figure.connect.markdown
    [exercise] = lesson.items(Exercise)
    assert exercise.kind == "make-it-yours"
    assert "TODO" in exercise.scaffold.source and "TODO" not in exercise.solution.source
    assert "range(0, len(ids), 3)" in exercise.hint.markdown
    [check] = lesson.items(Check)
    assert [c.correct for c in check.choices] == [False, True, False]
    assert check.choices[1].markdown == "Eleven is not a multiple of four."
    assert check.explanation.markdown.startswith("Membership is unchanged")
    [pause] = lesson.items(Pause)
    assert "Three records" in pause.answer.markdown
    assert [n.kind for n in lesson.items(Note)] == ["diagnose", "carry-forward", "evidence"]
    assert lesson.items(Section)[0].anchor == "the-problem"


def test_runnable_blocks_are_steps_then_document_order(example):
    _, lesson = example
    ids = [block.id for block in lesson.runnable_blocks()]
    assert ids == ["step-1", "step-2", "batch-sizes", "drop-the-remainder", "batch-by-three"]
    assert [b.is_figure for b in lesson.runnable_blocks()] == [False, False, True, False, False]


def test_real_lessons_parse_with_all_their_parts():
    course = load_course(ROOT / "lessons.yaml")
    for ref in course.lessons:
        lesson = parse_lesson(ref)
        numbers = [step.number for step in lesson.steps]
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 3
        assert len(lesson.items(Exercise)) == 3
        assert {e.kind for e in lesson.items(Exercise)} == {
            "make-it-yours",
            "transfer",
            "challenge",
        }
        assert len(lesson.items(Figure)) >= 1 and len(lesson.items(Check)) == 1


def test_unknown_stage_suggests_the_closest(course_folder):
    text = authoring_example().replace("# Experiment\n", "# Experiments\n")
    errors = parse_errors(course_folder, text)
    assert "unknown stage 'Experiments' (did you mean 'Experiment'?)" in errors[0].message
    assert errors[0].line == line_of(text, "# Experiments")


def test_stages_out_of_order(course_folder):
    text = authoring_example()
    text = text.replace("# Experiment\n", "# TEMP\n").replace("# Build & Run\n", "# Experiment\n")
    text = text.replace("# TEMP\n", "# Build & Run\n")
    errors = parse_errors(course_folder, text)
    assert [(e.message.split(";")[0], e.line) for e in errors if "out of order" in e.message] == [
        ("stage 'Experiment' is out of order", line_of(text, "# Experiment")),
        ("stage 'Build & Run' is out of order", line_of(text, "# Build & Run")),
    ]


def test_unknown_block_kind(course_folder):
    text = authoring_example().replace(":::{pause}", ":::{pasue}")
    [error] = parse_errors(course_folder, text)
    assert "unknown block '{pasue}" in error.message and "did you mean 'pause'" in error.message
    assert error.line == line_of(text, "{pasue}")


def test_unclosed_block_names_its_opening_line(course_folder):
    text = authoring_example()
    text = text.replace(
        ":::{evidence}\nKeep the batch sizes and the omitted IDs under the drop policy.\n:::\n",
        ":::{evidence}\nKeep the batch sizes.\n",
    )
    errors = parse_errors(course_folder, text)
    assert any(
        "unclosed block" in e.message and e.line == line_of(text, "{evidence}") for e in errors
    )


def test_step_numbering_gap(course_folder):
    text = authoring_example().replace("{step} 2. Batch and check", "{step} 3. Batch and check")
    [error] = parse_errors(course_folder, text)
    assert "expected step 2, found 3" in error.message
    assert error.line == line_of(text, "{step} 3.")


def test_step_numbering_gap_points_at_the_opening_line_past_intro_prose(course_folder):
    # Step 1 of the example has intro prose: its code starts three lines below the opening.
    text = authoring_example().replace("{step} 1. Make the records", "{step} 2. Make the records")
    text = text.replace(
        "Start `main.py` with the data.\n",
        "Start `main.py` with the data.\n\nThe IDs are the records.\n",
    )
    errors = parse_errors(course_folder, text)
    assert [(e.message, e.line) for e in errors] == [
        ("step numbering gap: expected step 1, found 2", line_of(text, "{step} 2. Make"))
    ]


def test_scaffold_that_does_not_compile_names_its_line(course_folder):
    text = authoring_example().replace("threes = ...  # TODO", "threes = (  # TODO")
    [error] = parse_errors(course_folder, text)
    assert "syntax error" in error.message
    assert error.line == line_of(text, "threes = (")


def test_missing_required_option(course_folder):
    text = authoring_example().replace(":expected: Eight records survive; three are omitted.\n", "")
    [error] = parse_errors(course_folder, text)
    assert "{experiment} needs the option ':expected:'" in error.message
    assert error.line == line_of(text, ":::{experiment}")


def test_unknown_option_suggests(course_folder):
    text = authoring_example().replace(":predict: How many", ":predcit: How many")
    errors = parse_errors(course_folder, text)
    assert [e.line for e in errors if "did you mean 'predict'" in e.message] == [
        line_of(text, ":predcit:")
    ]


def test_fold_tags_are_read_and_unknown_ones_named(course_folder):
    tagged = authoring_example().replace(
        ":::{step} 2. Batch and check\n",
        ":::{step} 2. Batch and check\n:tags: [hide-output, hide-input]\n",
    )
    lesson = parse_lesson(course_folder.write(tagged).lessons[0])
    step = next(block for block in lesson.runnable_blocks() if block.id == "step-2")
    assert step.code.tags == ("hide-input", "hide-output")
    assert lesson.output_varies() == frozenset()
    varying = tagged.replace("hide-input]", "nbval-ignore-output]")
    lesson = parse_lesson(course_folder.write(varying).lessons[0])
    assert lesson.output_varies() == {"step-2"}
    removing = tagged.replace("[hide-output, hide-input]", "[remove-output]")
    [error] = parse_errors(course_folder, removing)
    assert (
        "unknown tag 'remove-output'" in error.message
        and "did you mean 'hide-output'" in error.message
    )
    assert error.line == line_of(removing, ":::{step} 2.")
    assert "a page never removes them" in error.hint


def test_block_in_the_wrong_stage(course_folder):
    text = authoring_example()
    text = replace_block(text, ":::{carry-forward}", "")
    text = text.replace("# Understand\n", "# Understand\n\n:::{carry-forward}\n- x\n:::\n")
    [error] = parse_errors(course_folder, text)
    assert "{carry-forward} belongs in the 'Evidence' stage" in error.message
    assert error.line == line_of(text, ":::{carry-forward}")


def test_check_needs_exactly_one_right_answer(course_folder):
    text = authoring_example().replace("- [x] Eleven", "- [ ] Eleven")
    [error] = parse_errors(course_folder, text)
    assert "exactly one marked [x]" in error.message
    assert error.line == line_of(text, ":::{check}")


def test_a_check_answers_later_paragraphs_are_its_feedback(course_folder):
    text = authoring_example().replace(
        "  A shuffle reorders records; it drops none. Count the IDs to see it.\n",
        "  A shuffle reorders; it drops nothing.\n  Count the IDs to see it.\n",
    )
    lesson = parse_lesson(course_folder.write(text).lessons[0])
    [check] = lesson.items(Check)
    first, second, third = check.choices
    assert first.markdown == "The shuffle lost a record."
    assert first.feedback == "A shuffle reorders; it drops nothing.\nCount the IDs to see it."
    assert second.correct and second.feedback.startswith("Right: two full batches")
    assert not first.correct and third.feedback.startswith("Only when the count")


def test_an_answer_without_feedback_is_a_warning_at_its_check(course_folder):
    from coursesite.lesson.completeness import unfinished_parts

    text = authoring_example().replace(
        "\n  Only when the count leaves a remainder: twelve records make three full batches.\n",
        "",
    )
    lesson = parse_lesson(course_folder.write(text).lessons[0])
    [warning] = [w for w in unfinished_parts(lesson) if "says nothing" in w.message]
    assert warning.message.startswith("answer 3 of the check 'Why is the last batch short?'")
    assert warning.line == line_of(text, ":::{check}")
    assert not [
        w
        for w in unfinished_parts(parse_lesson(course_folder.write(authoring_example()).lessons[0]))
        if "says nothing" in w.message
    ]


def test_math_that_cannot_render_is_an_error_with_line(course_folder):
    text = authoring_example().replace("$11 - 8 = 3$", "$\\frac{1}{$")
    [error] = parse_errors(course_folder, text)
    assert "cannot render math" in error.message
    assert error.line == line_of(text, "\\frac{1}{")


def test_lesson_links_are_collected_with_lines(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "See [batching](lesson:other#policy). Eleven records do not"
    )
    course = course_folder.write(text)
    lesson = parse_lesson(course.lessons[0])
    [link] = lesson.links
    assert (link.slug, link.anchor, link.line) == ("other", "policy", line_of(text, "lesson:other"))


def test_front_matter_errors_count_file_lines(course_folder):
    text = authoring_example().replace("minutes: 20", "minutes: twenty")
    [error] = parse_errors(course_folder, text)
    assert error.line == line_of(text, "minutes: twenty")
    assert "minutes" in error.message


def test_text_that_is_not_utf8_names_its_line(course_folder):
    course = course_folder.write(authoring_example())
    text = authoring_example().encode()
    broken = text.replace(b"Eleven records", b"Eleven \xff records", 1)
    course_folder.lesson_path.write_bytes(broken)
    with pytest.raises(BuildErrors) as caught:
        parse_lesson(course.lessons[0])
    [error] = caught.value.errors
    assert "not UTF-8 text" in error.message
    assert error.line == line_of(authoring_example(), "Eleven records")


def test_only_markdown_options_are_read_as_markdown(course_folder):
    """:alt: is plain text (an image's text alternative); :caption: and :predict: are Markdown."""
    text = authoring_example().replace(
        ":alt: Bar chart:",
        ":caption: Sizes, as [planned](lesson:the-plan)\n"
        ":alt: Bar chart {value}`1 +` of [sizes](lesson:nowhere):",
    )
    course = course_folder.write(text)
    lesson = parse_lesson(course.lessons[0])
    [figure] = lesson.items(Figure)
    assert figure.alt.startswith("Bar chart {value}`1 +` of [sizes](lesson:nowhere):")
    assert [link.slug for link in lesson.links] == ["the-plan"]
    assert lesson.links[0].line == line_of(text, "lesson:the-plan")


def with_front(extra: str, summary: str | None = None) -> str:
    """The example lesson with `extra` front-matter lines after 'revision:'."""
    text = authoring_example().replace("revision: v0.1.0\n", "revision: v0.1.0\n" + extra)
    if summary:
        text = text.replace("summary: Batch eleven records", f"summary: {summary}. Batch eleven")
    return text


def test_front_matter_problems_are_located_by_the_yaml_not_by_searching_text(course_folder):
    # Each name also appears on an earlier line (summary, or the same item listed before).
    text = with_front(
        "files:\n  - absent.csv\n  - absent.csv\n"
        'volatile:\n  - "(unclosed"\n  - "^time"\n  - "(unclosed"\n',
        summary="Mentions absent.csv and (unclosed",
    )
    errors = parse_errors(course_folder, text)
    assert [(error.message.split(" is not")[0], error.line) for error in errors] == [
        ("volatile pattern '(unclosed'", line_of(text, '- "(unclosed"', 1)),
        ("volatile pattern '(unclosed'", line_of(text, '- "(unclosed"', 2)),
        ("data file 'absent.csv' not found", line_of(text, "- absent.csv", 1)),
        ("data file 'absent.csv' not found", line_of(text, "- absent.csv", 2)),
    ]


def test_a_prerequisite_lesson_link_carries_its_own_line(course_folder):
    text = authoring_example().replace(
        "prerequisite: Python lists and NumPy arrays", "prerequisite: lesson:count-batches"
    )
    [link] = parse_lesson(course_folder.write(text).lessons[0]).links
    assert (link.slug, link.line) == ("count-batches", line_of(text, "prerequisite:"))


def test_a_lesson_without_steps_points_at_its_build_and_run_stage(course_folder):
    text = replace_block(
        replace_block(authoring_example(), ":::{step} 1.", ""),
        ":::{step} 2.",
        "Nothing to run yet.\n",
    )
    [error] = parse_errors(course_folder, text)
    assert (error.message, error.line) == (
        "the lesson has no {step} blocks, but blocks that run after them",
        line_of(text, "# Build & Run"),
    )


def test_an_anchor_made_from_a_file_name_leaves_a_later_target_label_to_its_author(
    course_folder,
):
    """An image figure takes its anchor from its file's name; a target line further down
    with that label is the author's (QuantEcon's Markov chains: Hamilton.png, then
    `(hamilton)=` above "Hamilton's chain"), so the figure's anchor takes a suffix."""
    from coursesite.lesson.model import Picture

    text = authoring_example().replace(
        "# Build & Run\n",
        "# Build & Run\n\n:::{figure} Hamilton.png\n:alt: a chain\nThe chain.\n:::\n\n"
        "See {ref}`the chain <hamilton>`.\n\n(hamilton)=\n### Hamilton's chain\n\nIt mixes.\n",
        1,
    )
    course = course_folder.write(text)
    course.lessons[0].source.parent.joinpath("Hamilton.png").write_bytes(
        b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
    )
    lesson = parse_lesson(course.lessons[0])
    [picture] = lesson.items(Picture)
    assert picture.anchor == "hamilton-2"
    assert "hamilton" in lesson.anchors


CONFLICT = "<<<<<<< HEAD\nbatch = 32\n=======\nbatch = 64\n>>>>>>> 5c1e0a7\n"


def test_conflict_markers_a_lesson_shows_in_a_text_fence_are_its_text(course_folder):
    """A lesson about git shows the markers in a ```text block: that is content, not a
    conflict git left; the same markers in the prose after it still are one."""
    shown = f"Git marks both versions:\n\n```text\n{CONFLICT}```\n\nEleven records"
    text = authoring_example().replace("Eleven records", shown, 1)
    lesson = parse_lesson(course_folder.write(text).lessons[0])
    prose = "".join(getattr(item, "markdown", "") for item in lesson.stages[0].items)
    assert ">>>>>>> 5c1e0a7" in prose
    broken = text.replace("Eleven records", CONFLICT, 1)
    [error] = parse_errors(course_folder, broken)
    assert "unresolved git merge conflict" in error.message
    assert error.line == line_of(broken, "<<<<<<< HEAD", occurrence=2)
