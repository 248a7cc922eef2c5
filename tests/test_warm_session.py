"""A lesson's warm interpreter (coursesite/warm/session.py): a real lesson process that
keeps its namespace and runs edited blocks again in it."""

import pytest

from conftest import authoring_example
from coursesite.execution.execute import prepare_job
from coursesite.lesson.parse import parse_lesson
from coursesite.warm.dataflow import plan_rerun
from coursesite.warm.session import WarmSession

STEP_1 = "ids = np.arange(11)\n"
# Step 1 draws a number no second run would draw again: only the warm namespace has it.
TOKENED = "ids = np.arange(11)\nimport random\ntoken = random.random()\nprint(token)\n"


def job_of(course_folder, text):
    course = course_folder.write(text)
    return prepare_job(parse_lesson(course.lessons[0]), course.settings)


@pytest.fixture
def warm(course_folder):
    text = authoring_example().replace(STEP_1, TOKENED, 1)
    session = WarmSession(job_of(course_folder, text))
    assert session.start()
    yield session, course_folder, text
    session.close()


def edited(session, course_folder, text):
    job = job_of(course_folder, text)
    codes = [block["code"] for block in job.payload["blocks"]]
    labels = [job.labels[block["id"]] for block in job.payload["blocks"]]
    return job, plan_rerun(session.codes, codes, labels)


def test_an_edited_step_runs_again_in_the_namespace_the_lesson_left(warm):
    session, course_folder, text = warm
    text = text.replace('print("PASS: count-batches")', 'print("PASS", token)')
    job, plan = edited(session, course_folder, text)
    assert plan.fallback == "" and plan.rerun[0] == 1  # step 2, and the blocks reading it
    answer = session.rerun(job.payload, plan.rerun)
    assert answer is not None and answer["failure"] is None
    record = session.record()
    # The token step 1 drew on the first run, not a new one: step 1 did not run again.
    token = record.blocks["step-1"].stdout.strip()
    assert record.blocks["step-2"].stdout == f"Batch sizes: [4, 4, 3]\nPASS {token}\n"
    assert session.codes[1] == job.payload["blocks"][1]["code"]
    assert record.blocks["drop-the-remainder"].stdout == "Omitted: [8, 9, 10]\n"


def test_a_failing_rerun_says_so_and_leaves_the_session_unusable(warm):
    session, course_folder, text = warm
    text = text.replace('print("PASS: count-batches")', "print(undefined_name)")
    job, plan = edited(session, course_folder, text)
    answer = session.rerun(job.payload, plan.rerun)
    assert answer is not None and "NameError" in answer["failure"]["message"]
    assert not session.usable


def test_input_in_a_block_reads_nothing_and_the_session_still_answers(warm):
    session, course_folder, text = warm
    text = text.replace('print("PASS: count-batches")', "print(input)\ninput()")
    job, plan = edited(session, course_folder, text)
    answer = session.rerun(job.payload, plan.rerun)
    assert answer is not None and "EOFError" in answer["failure"]["message"]


def test_what_a_child_writes_in_a_rerun_is_the_steps_and_never_an_answer(warm):
    """A rerun's fd 1 is its step's, not the channel the warm runner answers on: a child's
    line that looks like an answer is the step's output, and the real answer still comes."""
    session, course_folder, text = warm
    child = (
        'import subprocess\nsubprocess.run(["printf", "\\x1ecoursesite-warm done 7\\nchild\\n"])'
    )
    text = text.replace('print("PASS: count-batches")', child + '\nprint("PASS")')
    job, plan = edited(session, course_folder, text)
    answer = session.rerun(job.payload, plan.rerun)
    assert answer is not None and answer["failure"] is None
    printed = session.record().blocks["step-2"].stdout
    assert printed == "Batch sizes: [4, 4, 3]\n\x1ecoursesite-warm done 7\nchild\nPASS\n"
