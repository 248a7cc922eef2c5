"""Lessons run on a real Dask cluster on this machine (docs/scaling.md).

One LocalCluster for the module: two worker processes of one thread each, bound to
127.0.0.1; the worker named "tpu" offers the resource {"tpu": 1}, as a TPU host's would. Its
machine is this one, with no TPU: a lesson run there sees CPU devices, unless it runs
SEES_A_TPU_THERE. Each worker runs under a nanny, which restarts it when a test kills it.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from conftest import (
    ROOT,
    RecordingProgress,
    authoring_example,
    line_of,
    no_traceback,
    replace_block,
)
from coursesite.cache.caches import ExecutionCache
from coursesite.config.manifest import load_course
from coursesite.errors import BuildErrors
from coursesite.execution import cluster as dask_cluster
from coursesite.execution import records
from coursesite.execution.cluster import create_executor
from coursesite.execution.execute import LocalExecutor
from coursesite.execution.executionkey import execution_key
from coursesite.execution.executionrecord import record_from_json
from coursesite.lesson.lessonbuild import outline_of
from coursesite.lesson.parse import parse_lesson
from coursesite.pipeline import build

FIRST = "count-batches"  # the slug of the course folder's first lesson

# Lesson code standing in for JAX on a TPU host: on the "tpu" worker, whose environment alone
# has FAKE_TPU_HOST, it leaves in sys.modules a jax whose devices are TPUs. The runner asks
# that jax after the lesson ran, as it asks the real one; elsewhere the lesson uses no JAX.
SEES_A_TPU_THERE = (
    "import os, sys, types\n"
    "if os.environ.get('FAKE_TPU_HOST'):\n"
    "    tpu = types.SimpleNamespace(platform='tpu')\n"
    "    sys.modules['jax'] = types.SimpleNamespace(devices=lambda: [tpu] * 4)"
)


@pytest.fixture(scope="module")
def cluster():
    # Every socket on 127.0.0.1; the scheduler's HTTP server on a free port, not 8787.
    cluster = LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    )
    spec = cluster.new_spec
    cluster.worker_spec["tpu"] = {
        "cls": spec["cls"],
        "options": dict(spec["options"], resources={"tpu": 1}, env={"FAKE_TPU_HOST": "1"}),
    }
    cluster.scale(2)  # starts the "tpu" worker added to the spec above
    client = Client(cluster, set_as_default=False)
    client.wait_for_workers(2, timeout=60)
    yield cluster, client
    client.close()
    cluster.close()


def workers(client: Client) -> dict[str, dict]:
    """Address -> resources of every live worker."""
    return {
        address: info.get("resources") or {}
        for address, info in client.scheduler_info(n_workers=-1)["workers"].items()
    }


def wait_for_both_workers(client: Client) -> None:
    """After a kill, the nanny brings the worker back; later tests need both."""
    deadline = time.monotonic() + 60
    while len(workers(client)) < 2 or not any(r.get("tpu") for r in workers(client).values()):
        assert time.monotonic() < deadline, "the killed worker did not come back"
        time.sleep(0.2)


def on_hardware(text: str, hardware: str) -> str:
    return text.replace("hardware: cpu", f"hardware: {hardware}", 1)


def with_experiment(code: str) -> str:
    """The example lesson with its experiment running `code` (experiments are not main.py)."""
    block = (
        ":::{experiment} Drop the remainder\n:predict: p\n:expected: e\n\n```python\n"
        + code
        + "\n```\n\nTakeaway.\n:::\n"
    )
    return replace_block(authoring_example(), ":::{experiment}", block)


def cluster_options(course_folder, cluster, **overrides):
    return course_folder.options(cluster=cluster[0].scheduler_address, **overrides)


def recorded(course_folder, slug: str):
    """The lesson's record in records/ (rewritten only when its output or kinds change)."""
    return records.load(course_folder.root / "records", slug).record


def cached(course_folder, options, slug: str):
    """The lesson's record in the execution cache: the latest run."""
    course = course_folder.write(
        course_folder.lesson_path.read_text(),
        extra={
            path.stem: path.read_text()
            for path in (course_folder.root / "content").glob("*.md")
            if path != course_folder.lesson_path
        },
    )
    lesson = parse_lesson(course.lesson(slug))
    return (
        ExecutionCache(options.cache / "records")
        .lookup(slug, execution_key(outline_of(lesson), lesson.path.parent, course.settings))
        .record
    )


def build_in_background(options) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def target():
        try:
            outcome["result"] = build(options, RecordingProgress())
        except BuildErrors as problems:
            outcome["errors"] = problems.errors

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, outcome


def tpu_worker_of(cluster) -> str:
    return next(address for address, r in workers(cluster[1]).items() if r.get("tpu"))


def test_a_tpu_lesson_on_a_worker_whose_jax_sees_no_tpu_fails_at_its_hardware_line(
    course_folder, cluster
):
    uses_jax = on_hardware(with_experiment("import jax\nprint(jax.numpy.arange(3).sum())"), "tpu")
    course_folder.write(
        uses_jax,
        extra={"no-jax": on_hardware(authoring_example(), "tpu"), "plain": authoring_example()},
    )
    with pytest.raises(BuildErrors) as caught:
        build(cluster_options(course_folder, cluster))

    errors = {error.path.name: error for error in caught.value.errors}
    assert sorted(errors) == ["lesson.md", "no-jax.md"]
    for name, devices in (("lesson.md", "(1 CPU device)"), ("no-jax.md", "(JAX not used · ")):
        error = errors[name]
        assert error.message.startswith(
            "lesson declares hardware: tpu but its run saw no TPU " + devices
        ), error.message
        assert error.line == line_of(uses_jax, "hardware: tpu")
        assert (
            f"the Dask worker {tpu_worker_of(cluster)} offers tpu=1, but JAX found no TPU there"
        ) in error.hint
        assert error.hint.endswith("or declare hardware: cpu")
    # Neither claims a TPU anywhere; the cpu lesson ran and its run is kept in the cache
    # (records/ waits for a build that succeeds).
    assert records.load(course_folder.root / "records", FIRST) is None
    assert records.load(course_folder.root / "records", "no-jax") is None
    options = cluster_options(course_folder, cluster)
    assert cached(course_folder, options, FIRST) is None
    assert cached(course_folder, options, "plain").hardware == "cpu"


def test_the_command_line_names_the_hardware_line_and_keeps_the_previous_site(
    course_folder, cluster
):
    course_folder.write(authoring_example())
    build(course_folder.options())
    before = site_files(course_folder.root / "site")
    text = on_hardware(authoring_example(), "tpu")
    course_folder.write(text)
    # --force: only the front matter changed, and the execution cache holds the cpu run.
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "-q",
            "--force",
            "--cluster",
            cluster[0].scheduler_address,
        ],
        cwd=course_folder.root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert (
        f"lesson.md:{line_of(text, 'hardware: tpu')}: lesson declares hardware: tpu but "
        "its run saw no TPU (JAX not used · "
    ) in result.stderr, result.stderr
    assert "hint: the Dask worker tcp://127.0.0.1:" in result.stderr
    assert no_traceback(result.stderr)
    assert site_files(course_folder.root / "site") == before


def test_a_lesson_whose_jax_saw_a_tpu_is_verified_on_tpu_and_keeps_its_cpu_receipt(
    course_folder, cluster
):
    course_folder.write(
        on_hardware(with_experiment(SEES_A_TPU_THERE), "tpu"), extra={"plain": authoring_example()}
    )
    # A local build runs a tpu lesson on this machine and says what it saw there.
    build(course_folder.options(out=course_folder.root / "local"))
    assert recorded(course_folder, FIRST).hardware == "cpu"
    local_page = (course_folder.root / "local" / "basics" / FIRST / "index.html").read_text()
    assert "Verified on CPU · " in local_page and "Dask worker" not in local_page
    progress = RecordingProgress()
    options = cluster_options(course_folder, cluster, force=True)
    result = build(options, progress)

    assert sorted(result.executed) == [FIRST, "plain"]
    record = recorded(course_folder, FIRST)
    assert (
        record.worker,
        record.worker_resources,
        record.hardware,
        record.devices,
        record.host,
    ) == (tpu_worker_of(cluster), "tpu=1", "tpu", "4 TPU devices", platform.node())
    assert [receipt["hardware"] for receipt in record.receipts] == ["cpu"]
    plain = cached(course_folder, options, "plain")
    assert plain.hardware == "cpu" and plain.worker.startswith("tcp://127.0.0.1:")
    assert recorded(course_folder, "plain").worker == ""  # same output, same kind: left alone
    assert ("plain", "running", "--force") in progress.events  # when a worker started it
    assert any("on the Dask cluster at tcp://127.0.0.1:" in m for m in progress.messages)
    page = (course_folder.root / "site" / "basics" / FIRST / "index.html").read_text()
    assert re.search(
        r"Verified on TPU · [^<]* · 4 TPU devices · on a Dask worker offering "
        r"tpu=1</p>",
        page,
    )
    assert re.search(
        r"<li>Verified on CPU · \d{4}-\d\d-\d\d · Python [^<]* · JAX not used · "
        r"\d+ CPU cores</li>",
        page,
    )


def test_the_site_is_the_same_as_a_local_build(course_folder, cluster):
    course_folder.write(
        authoring_example(),
        extra={
            "second": on_hardware(
                with_experiment(SEES_A_TPU_THERE).replace(
                    "Count what a batch holds", "Count again"
                ),
                "tpu",
            )
        },
    )
    local = course_folder.options(
        out=course_folder.root / "site-local", cache=course_folder.root / "cache-local"
    )
    remote = cluster_options(
        course_folder,
        cluster,
        out=course_folder.root / "site-cluster",
        cache=course_folder.root / "cache-cluster",
    )
    build(local)
    # No receipts from the local build: each build should only show its own run.
    (course_folder.root / "records").rename(course_folder.root / "records-local")
    assert sorted(build(remote).executed) == [FIRST, "second"]
    # The tpu lesson saw a TPU on the cluster only: its page differs in the kind it was
    # verified on, and the devices that tell.
    local_files, cluster_files = site_files(local.out), site_files(remote.out)
    assert sorted(local_files) == sorted(cluster_files)
    for name, text in local_files.items():
        if "second" in name:
            text = text.replace("Verified on CPU", "Verified on TPU").replace(
                '"hardware": "cpu"', '"hardware": "tpu"'
            )
            text = re.sub(r"JAX not used (·|\\u00b7) \d+ CPU cores", "4 TPU devices", text)
        assert text == cluster_files[name], name


def site_files(site: Path) -> dict[str, str]:
    """Every file of the site (zips unpacked) but the search index, with times masked."""
    contents = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        name = str(path.relative_to(site))
        if name.startswith("pagefind/"):
            continue  # binary, and built from the pages compared here
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                contents.update(
                    {f"{name}!{member}": archive.read(member) for member in archive.namelist()}
                )
        else:
            contents[name] = path.read_bytes()
    return {
        name: mask_times(data.decode("utf-8", errors="replace")) for name, data in contents.items()
    }


def mask_times(text: str) -> str:
    # record.json names the Dask worker that ran the lesson, and the page the resources that
    # worker offered; a local run names none.
    text = re.sub(r'"worker(_resources)?": "[^"]*"', r'"worker\1": <worker>', text)
    text = re.sub(r" · on a Dask worker offering [^<]*", "", text)
    text = re.sub(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d\+00:00)?", "<time>", text)
    # "ran in 327 ms" or "ran in 1.2 s" on the page; timings in record.json.
    return re.sub(r"\d+(\.\d+)? ?(s|ms)\b|\"(wall_)?seconds\": [\d.]+", "<seconds>", text)


def test_a_lesson_needing_hardware_no_worker_has_is_a_clear_error(course_folder, cluster):
    course_folder.write(
        on_hardware(authoring_example(), "gpu"), extra={"plain": authoring_example()}
    )
    started = time.monotonic()
    with pytest.raises(BuildErrors) as caught:
        build(cluster_options(course_folder, cluster))
    assert time.monotonic() - started < 30
    [error] = caught.value.errors
    assert error.path == course_folder.lesson_path
    assert f"lesson '{FIRST}' needs hardware: gpu" in error.message
    assert "no worker with a 'gpu' resource" in error.message
    assert '--resources "gpu=1"' in error.hint
    # The other lesson ran and its run is kept in the cache; records/ waits for a good build.
    assert cached(course_folder, cluster_options(course_folder, cluster), "plain")
    assert records.load(course_folder.root / "records", "plain") is None


# The lesson's processes are children of its guardian (coursesite/execution/guardian.py), which the
# worker started: the worker is their parent's parent.
WORKER_PID = "int(open(f'/proc/{os.getppid()}/stat').read().rsplit(')', 1)[1].split()[1])"


def test_a_lesson_whose_worker_is_killed_runs_again_elsewhere(course_folder, cluster, tmp_path):
    marker = tmp_path / "started"
    # The first attempt tells the test its worker (see WORKER_PID) and itself, then
    # waits to be killed; the retry finds the marker and goes straight on.
    slow = with_experiment(
        "import os, pathlib, time\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        f"    worker = {WORKER_PID}\n"
        "    marker.write_text(f'{worker} {os.getpid()}')\n"
        "    time.sleep(60)\n"
        "print('retried')"
    )
    course_folder.write(slow, extra={"plain": authoring_example()})
    pids = {pid: address for address, pid in cluster[1].run(os.getpid).items()}
    thread, outcome = build_in_background(cluster_options(course_folder, cluster))
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline and thread.is_alive(), outcome
        time.sleep(0.05)
    worker_pid, runner_pid = map(int, marker.read_text().split())
    os.kill(worker_pid, signal.SIGKILL)
    os.kill(runner_pid, signal.SIGKILL)  # its guardian kills it too; no need to wait
    thread.join(timeout=60)

    assert not thread.is_alive(), "the build hangs after a worker died"
    assert "errors" not in outcome, outcome.get("errors")
    record = recorded(course_folder, FIRST)
    assert record.blocks["drop-the-remainder"].stdout == "retried\n"
    assert record.worker != pids[worker_pid]
    wait_for_both_workers(cluster[1])


def test_a_lesson_that_kills_every_worker_fails_after_one_retry(course_folder, cluster):
    kill_my_worker = f"import os, signal\nos.kill({WORKER_PID}, signal.SIGKILL)"
    course_folder.write(with_experiment(kill_my_worker), extra={"plain": authoring_example()})
    options = cluster_options(course_folder, cluster)
    thread, outcome = build_in_background(options)
    thread.join(timeout=60)

    assert not thread.is_alive(), "the build hangs after its workers died"
    [error] = outcome["errors"]
    assert error.path == course_folder.lesson_path
    assert "the Dask worker running this lesson died, on each of 2 tries" in error.message
    assert f"--lesson {FIRST}" in error.hint
    # The other lesson's result is kept in the cache; records/ waits for a good build.
    assert cached(course_folder, options, "plain").worker
    assert records.load(course_folder.root / "records", "plain") is None
    wait_for_both_workers(cluster[1])


def test_the_command_line_cluster_wins_over_the_manifest(course_folder):
    course = course_folder.write(authoring_example())
    assert isinstance(create_executor(course_folder.options(), course.settings), LocalExecutor)
    text = course_folder.manifest.read_text().replace(
        "settings:\n", "settings:\n  cluster: tcp://a:8786\n"
    )
    course_folder.manifest.write_text(text)
    settings = load_course(course_folder.manifest).settings
    assert create_executor(course_folder.options(), settings).address == "tcp://a:8786"
    assert (
        create_executor(course_folder.options(cluster="tcp://b:8786"), settings).address
        == "tcp://b:8786"
    )
    # Which machines run the lessons is not part of the execution cache key.
    lesson = parse_lesson(load_course(course_folder.manifest).lessons[0])
    outline, folder = outline_of(lesson), lesson.path.parent
    assert execution_key(outline, folder, settings) == execution_key(
        outline, folder, course.settings
    )


def test_records_made_before_hosts_were_named_still_load():
    old = {
        "lesson": "x",
        "timestamp": "2026-01-01T00:00:00+00:00",
        "python": "3.11.7",
        "packages": {},
        "devices": "1 CPU device",
        "wall_seconds": 1.0,
        "blocks": {},
        "values": {},
    }
    record = record_from_json(old)
    assert (record.host, record.worker, record.worker_resources, record.receipts) == (
        "",
        "",
        "",
        [],
    )
    assert record.hardware == "cpu"  # what its devices say


def test_a_local_build_never_imports_dask():
    code = (
        "import sys; from coursesite import cli, pipeline; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert imported.strip() == "[]"


def test_a_build_called_from_a_thread_that_runs_an_event_loop_reaches_the_cluster(
    cluster, course_folder
):
    """The handshake's own event loop must not clash with one the caller runs (a notebook
    kernel; Playwright's, left in the main thread by the browser tests of a test session):
    the build runs inside a loop, on a thread of its own since this one may hold a loop."""
    course_folder.write(authoring_example())
    outcome = {}

    async def build_inside_a_loop():
        outcome["result"] = build(cluster_options(course_folder, cluster))

    thread = threading.Thread(target=asyncio.run, args=(build_inside_a_loop(),))
    thread.start()
    thread.join(120)
    assert outcome["result"].executed == ["count-batches"]


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """The address of a socket on 127.0.0.1 that takes connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)  # the kernel accepts connections into the backlog
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"


@pytest.fixture
def web_server() -> Iterator[str]:
    """The address of a plain HTTP server on 127.0.0.1, as if given for the scheduler."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
    server.RequestHandlerClass.log_message = lambda *arguments: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("server", ["silent_listener", "web_server"])
def test_an_address_that_never_answers_fails_at_the_deadline_naming_it(
    course_folder, monkeypatch, request, server
):
    address = request.getfixturevalue(server)
    monkeypatch.setattr(dask_cluster, "CONNECT_SECONDS", 2.0)
    course_folder.write(authoring_example())
    started = time.monotonic()
    thread, outcome = build_in_background(course_folder.options(cluster=address))
    thread.join(60)
    assert not thread.is_alive(), "the build waits for an answer that never comes"
    assert time.monotonic() - started < 2 + 30  # the deadline, and slack for a busy machine
    [error] = outcome["errors"]
    assert error.message == (
        f"cannot reach the Dask scheduler at {address}: no answer within 2 s "
        "(is it a Dask scheduler's address?)"
    )


@pytest.mark.parametrize("address", ["silent", "tls://127.0.0.1:9", "ucx://127.0.0.1:9"])
def test_a_cluster_that_cannot_be_used_is_one_line_naming_it(
    course_folder, silent_listener, address
):
    """The real command line: exit status 1, the address in one line, no traceback, and no
    20 s wait for a half-made client to close."""
    address = silent_listener if address == "silent" else address
    course_folder.write(authoring_example())
    started = time.monotonic()
    result = course_folder.cli("-q", "--cluster", address, timeout=120)
    assert result.returncode == 1, result.stderr
    assert f"cannot reach the Dask scheduler at {address}: " in result.stderr
    assert no_traceback(result.stderr) and "Exception ignored" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if address in line]
    assert len(line) < 300
    if address.startswith(("tls", "ucx")):  # refused at once, not after a deadline
        assert time.monotonic() - started < 60
        hint = "certificates" if address.startswith("tls") else "cannot connect to ucx://"
        assert hint in result.stderr
