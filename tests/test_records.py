"""Committed records: --frozen publishes without running code; check shows drift."""

import os
import subprocess
import sys
from dataclasses import replace

import pytest
import yaml

from conftest import ROOT, RecordingProgress, authoring_example, no_traceback, replace_block
from coursesite.errors import BuildErrors
from coursesite.execution import records
from coursesite.execution.checkdrift import check_drift
from coursesite.pipeline import build

RECORD = "records/count-batches.yaml"


def needs_env(text: str) -> str:
    """The example lesson, with a step that only works where HAS_DEVICE=1 (a stand-in for
    hardware the publishing machine lacks)."""
    return text.replace(
        'print("Batch sizes:", sizes)',
        'import os\nassert os.environ.get("HAS_DEVICE") == "1", "no device"\n'
        'print("Batch sizes:", sizes)',
    )


@pytest.fixture
def recorded(course_folder, monkeypatch):
    monkeypatch.setenv("HAS_DEVICE", "1")
    course_folder.write(needs_env(authoring_example()))
    build(course_folder.options(), RecordingProgress())
    monkeypatch.delenv("HAS_DEVICE")
    return course_folder


def test_build_writes_a_readable_record(recorded):
    text = (recorded.root / RECORD).read_text()
    assert "stdout: |\n" in text and "Batch sizes: [4, 4, 3]\n" in text
    data = yaml.safe_load(text)
    assert data["record"]["blocks"]["step-2"]["stdout"].endswith("PASS: count-batches\n")
    assert set(data["code"]) >= {"code:step-1", "code:step-2", "values"}


def test_unchanged_output_leaves_the_record_alone(recorded, monkeypatch):
    path = recorded.root / RECORD
    before = path.read_text()
    monkeypatch.setenv("HAS_DEVICE", "1")
    result = build(recorded.options(force=True), RecordingProgress())
    assert result.executed == ["count-batches"]  # it did run again
    assert path.read_text() == before  # same output: no new timestamp to commit


def test_frozen_publishes_without_running_code(recorded, tmp_path):
    with pytest.raises(BuildErrors, match="no device"):  # running it here would fail
        build(recorded.options(force=True, out=tmp_path / "a", cache=tmp_path / "c1"))
    progress = RecordingProgress()
    result = build(
        recorded.options(frozen=True, out=tmp_path / "site", cache=tmp_path / "c2"), progress
    )
    assert result.executed == [] and progress.final("count-batches") == ("frozen", "")
    page = (tmp_path / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert "Batch sizes: [4, 4, 3]" in page


def test_frozen_refuses_a_lesson_whose_code_changed(recorded):
    recorded.lesson_path.write_text(
        recorded.lesson_path.read_text().replace(
            "assert sizes == [4, 4, 3]", "assert sizes == [4, 4, 3], sizes"
        )
    )
    with pytest.raises(BuildErrors) as caught:
        build(recorded.options(frozen=True))
    [error] = caught.value.errors
    assert (
        "code of lesson 'count-batches' changed since its record (step 2 changed)" in error.message
    )
    assert error.path == recorded.lesson_path


def test_frozen_without_a_record_says_what_to_do(recorded):
    (recorded.root / RECORD).unlink()
    with pytest.raises(BuildErrors) as caught:
        build(recorded.options(frozen=True))
    assert "has no record" in str(caught.value) and "commit records/" in str(caught.value)


def test_frozen_names_the_line_of_a_damaged_record(recorded):
    path = recorded.root / RECORD
    lines = path.read_text().splitlines()
    # A value with a second ': ' is noticed on its own line. (An unclosed '[' would be
    # noticed a line later: records.py reports YAML's problem mark as it is.)
    lines[3] = "  code:step-2: 95bf: 9609"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildErrors) as caught:
        build(recorded.options(frozen=True))
    [error] = caught.value.errors
    assert "not a readable record" in error.message and error.path == path
    assert error.line == 4, error


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: {**data, "code": list(data["code"].values())},  # code as a list
        lambda data: {**data, "record": {**data["record"], "blocks": [1, 2]}},  # blocks as a list
        lambda data: {**data, "record": "nothing"},
    ],
)
def test_a_record_of_the_wrong_shape_is_named_without_a_traceback(recorded, damage):
    path = recorded.root / RECORD
    path.write_text(yaml.safe_dump(damage(yaml.safe_load(path.read_text()))))
    result = recorded.cli("-q", "--frozen")
    assert result.returncode == 1
    assert f"{RECORD}: not a readable record" in result.stderr, result.stderr
    assert no_traceback(result.stderr)


def test_a_record_that_is_not_utf8_is_named(recorded):
    path = recorded.root / RECORD
    path.write_bytes(path.read_bytes().replace(b"Batch sizes", b"Batch s\xe9zes", 1))
    result = recorded.cli("-q", "--frozen")
    assert result.returncode == 1
    assert f"{RECORD}: not a readable record" in result.stderr, result.stderr
    assert no_traceback(result.stderr)


def test_check_reports_drift_as_a_diff_and_accept_records_it(recorded, monkeypatch):
    monkeypatch.setenv("HAS_DEVICE", "1")
    assert check_drift(recorded.options(), RecordingProgress(), accept=False) == []
    path = recorded.root / RECORD
    path.write_text(path.read_text().replace("Batch sizes: [4, 4, 3]", "Batch sizes: [3, 4, 4]"))
    [(slug, diff)] = check_drift(recorded.options(), RecordingProgress(), accept=False)
    assert slug == "count-batches"
    assert "-Batch sizes: [3, 4, 4]" in diff and "+Batch sizes: [4, 4, 3]" in diff
    check_drift(recorded.options(), RecordingProgress(), accept=True)
    assert check_drift(recorded.options(), RecordingProgress(), accept=False) == []


def test_check_writes_a_record_only_when_accepting_one_that_differs(recorded, monkeypatch):
    monkeypatch.setenv("HAS_DEVICE", "1")
    path = recorded.root / RECORD
    committed = path.read_text()
    progress = RecordingProgress()
    assert check_drift(recorded.options(), progress, accept=True) == []
    assert path.read_text() == committed  # the same run: no new timestamps to commit
    assert progress.final("count-batches") == ("executed", "check")
    drifted = committed.replace("PASS: count-batches", "PASS: old")
    path.write_text(drifted)
    assert check_drift(recorded.options(), RecordingProgress(), accept=False) != []
    assert path.read_text() == drifted  # reported, never written without --accept
    path.unlink()
    missing = check_drift(recorded.options(), RecordingProgress(), accept=False)
    assert missing == [("count-batches", "no committed record")] and not path.exists()
    path.write_text("record: [unclosed\n")
    [(slug, problem)] = check_drift(recorded.options(), RecordingProgress(), accept=False)
    assert slug == "count-batches" and f"{RECORD}:2: not a readable record" in problem, problem
    check_drift(recorded.options(), RecordingProgress(), accept=True)
    assert check_drift(recorded.options(), RecordingProgress(), accept=False) == []


def test_volatile_lines_never_count_as_drift(course_folder):
    text = authoring_example().replace("revision: v0.1.0", 'revision: v0.1.0\nvolatile: ["^took "]')
    text = text.replace(
        'print("Batch sizes:", sizes)',
        'import time\nprint("took", time.perf_counter_ns())\nprint("Batch sizes:", sizes)',
    )
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    assert check_drift(course_folder.options(), RecordingProgress(), accept=False) == []


def test_a_step_tagged_nbval_ignore_output_never_counts_as_drift_but_for_what_it_raised(
    course_folder,
):
    table = "import os\nfor row in range(3):\n    print(row, os.urandom(6).hex())\n"
    text = authoring_example().replace("ids = np.arange(11)\n", "ids = np.arange(11)\n" + table)
    tag = ":tags: [nbval-ignore-output]\n"
    opening = ":::{step} 1. Make the records\n"
    tagged = text.replace(opening, opening + tag)
    course_folder.write(tagged)
    build(course_folder.options(), RecordingProgress())
    assert check_drift(course_folder.options(), RecordingProgress(), accept=False) == []
    # Untagged, other rows are drift.
    committed = records.load(course_folder.root / "records", "count-batches").record
    step = committed.blocks["step-1"]
    rows = step.stdout.replace(step.stdout.split()[1], "other")
    fresh = replace(committed, blocks={**committed.blocks, "step-1": replace(step, stdout=rows)})
    assert records.drift(committed, fresh, [], frozenset({"step-1"})) == ""
    assert "+0 other" in records.drift(committed, fresh, [])
    # What the step raised (or that it now raises) is compared still.
    raising = tagged.replace(tag, tag + ":raises: ZeroDivisionError\n")
    course_folder.write(raising.replace(table, table + "1 / 0\n"))
    [(_, diff)] = check_drift(course_folder.options(), RecordingProgress(), accept=False)
    assert "+raised: ZeroDivisionError" in diff, diff


def test_check_command_exits_1_on_drift(recorded):
    path = recorded.root / RECORD
    path.write_text(path.read_text().replace("PASS: count-batches", "PASS: old"))
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "check"],
        cwd=recorded.root,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, HAS_DEVICE="1"),
    )
    assert result.returncode == 1
    assert "+PASS: count-batches" in result.stdout and "-PASS: old" in result.stdout
    assert "check --accept" in result.stderr


def as_the_old_cluster_code_wrote_it(path, receipt_devices: str) -> str:
    """The record rewritten as a cluster build made it before `worker_resources` existed: a
    worker offering the 'tpu' resource was recorded as hardware: tpu, whatever JAX saw."""
    data = yaml.safe_load(path.read_text())
    run = data["record"]
    del run["worker_resources"]
    run.update(
        worker="tcp://10.0.0.7:40112",
        hardware="tpu",
        receipts=[
            dict(
                hardware="tpu",
                host="h",
                timestamp=run["timestamp"],
                python=run["python"],
                packages=run["packages"],
                devices=receipt_devices,
            )
        ],
    )
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return run["devices"]


def test_an_older_record_has_the_hardware_its_devices_name(recorded):
    path = recorded.root / RECORD
    assert as_the_old_cluster_code_wrote_it(path, "4 TPU devices").startswith("JAX not used")
    record = records.load(path.parent, "count-batches").record
    assert record.hardware == "cpu" and record.worker == "tcp://10.0.0.7:40112"
    assert [receipt["hardware"] for receipt in record.receipts] == ["tpu"]


def test_receipts_never_vouch_for_a_tpu_that_no_run_saw(recorded, monkeypatch):
    path = recorded.root / RECORD
    as_the_old_cluster_code_wrote_it(path, "JAX not used · 2 CPU cores")
    monkeypatch.setenv("HAS_DEVICE", "1")
    build(recorded.options(force=True), RecordingProgress())
    page = (recorded.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    assert "Verified on CPU · " in page and "TPU" not in page
    assert "receipts: []" in path.read_text()  # rewritten: it held claims, now it holds none


def assert_each_record_edit_drifts(course_folder, lesson_text, edits):
    """Build `lesson_text`, then make each (old, new) edit of its committed record alone:
    `build.py check` must call the lesson drifted and show `shown` in its diff."""
    course_folder.write(lesson_text)
    build(course_folder.options(), RecordingProgress())
    assert check_drift(course_folder.options(), RecordingProgress(), accept=False) == []
    path = course_folder.root / RECORD
    committed = path.read_text()
    for old, new, shown in edits:
        assert old in committed, committed
        path.write_text(committed.replace(old, new, 1))
        drifts = check_drift(course_folder.options(), RecordingProgress(), accept=False)
        assert [slug for slug, _ in drifts] == ["count-batches"], f"{new!r} went unnoticed"
        assert shown in drifts[0][1], drifts[0][1]


def test_check_compares_live_values_and_stderr_as_well_as_stdout(course_folder):
    text = authoring_example().replace(
        "Eleven records do not", "Sizes: {value}`sizes`. Eleven records do not"
    )
    text = text.replace(
        'print("Batch sizes:", sizes)',
        'import sys\nprint("Batch sizes:", sizes)\nprint("a warning", file=sys.stderr)',
    )
    assert_each_record_edit_drifts(
        course_folder,
        text,
        [
            ("a warning", "an older warning", "-stderr: an older warning\n+stderr: a warning"),
            ("sizes: '[4, 4, 3]'", "sizes: '[4, 4, 4]'", "-value sizes = [4, 4, 4]\n"),
        ],
    )


def test_check_compares_a_displayed_value_and_figure_data_too(course_folder):
    """A step that ends in a bare expression shows its value, and a figure shows its data:
    both are what the page claims, so a change in either is drift as printed text is."""
    text = authoring_example().replace(
        'print("PASS: count-batches")', 'print("PASS: count-batches")\nlen(sizes) * 10'
    )
    assert_each_record_edit_drifts(
        course_folder,
        text,
        [
            ("display: '30'", "display: '40'", "-Out: 40\n+Out: 30"),
            ("- batch 0\n", "- batch 9\n", "figure labels:"),
        ],
    )


# Lesson code standing in for JAX on a TPU host (as in test_cluster.py, without a cluster):
# where FAKE_TPU_HOST is set, the runner finds a jax whose devices are TPUs; the lesson also
# prints HAS_DEVICE, so that one run's output can differ from another's.
SEES_A_TPU_WHERE_TOLD = (
    "import os, sys, types\n"
    "if os.environ.get('FAKE_TPU_HOST'):\n"
    "    tpu = types.SimpleNamespace(platform='tpu')\n"
    "    sys.modules['jax'] = types.SimpleNamespace(devices=lambda: [tpu] * 4)\n"
    "print('device', os.environ.get('HAS_DEVICE'))"
)


def test_a_receipt_is_kept_for_the_same_output_and_dropped_once_the_output_drifted(
    course_folder, monkeypatch
):
    experiment = (
        ":::{experiment} Drop the remainder\n:predict: p\n:expected: e\n\n```python\n"
        + SEES_A_TPU_WHERE_TOLD
        + "\n```\n\nTakeaway.\n:::\n"
    )
    course_folder.write(replace_block(authoring_example(), ":::{experiment}", experiment))
    page = course_folder.root / "site" / "basics" / "count-batches" / "index.html"
    monkeypatch.setenv("HAS_DEVICE", "1")
    monkeypatch.setenv("FAKE_TPU_HOST", "1")
    build(course_folder.options(), RecordingProgress())
    assert records.load(course_folder.root / "records", "count-batches").record.hardware == "tpu"
    # The same output on a CPU: the TPU run stays, as a receipt.
    monkeypatch.delenv("FAKE_TPU_HOST")
    build(course_folder.options(force=True), RecordingProgress())
    record = records.load(course_folder.root / "records", "count-batches").record
    assert record.hardware == "cpu" and [r["hardware"] for r in record.receipts] == ["tpu"]
    assert "Verified on TPU" in page.read_text()
    # Other output on the TPU: the CPU run vouched for output this one no longer prints.
    monkeypatch.setenv("FAKE_TPU_HOST", "1")
    monkeypatch.setenv("HAS_DEVICE", "2")
    build(course_folder.options(force=True), RecordingProgress())
    record = records.load(course_folder.root / "records", "count-batches").record
    assert record.hardware == "tpu" and record.receipts == []
    assert "Verified on TPU" in page.read_text() and "Verified on CPU" not in page.read_text()
