"""A lesson's interpreter kept warm for `build.py serve`'s preview; started by session.py.

    python warmrunner.py job.json result.json

This file is a standalone script, like the runner it extends (execution/runner.py, loaded
from its path): it runs the lesson as the build does and writes result.json, then keeps
the namespace the last block left. Each line on stdin is then a request to run some blocks
again in that namespace (JSON: the blocks as job.json gives them, the lesson's text and its
live values); the answer goes to `rerun-N.json`, and the line `MARKER N` on stdout says it
is there. Lesson code may print to stdout outside any block too: only whole marker lines
count. Nothing it writes is a record: session.py turns it into the preview alone.
"""

import importlib.util
import json
import linecache
import os
import sys

MARKER = "\x1ecoursesite-warm"  # starts with a character no printed text line starts with


def _runner():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "execution", "runner.py")
    spec = importlib.util.spec_from_file_location("_coursesite_runner", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = _runner()


def say(line):
    """One answer line, on a line of its own whatever the lesson printed last."""
    if sys.__stdout__ is not None:
        sys.__stdout__.flush()
    os.write(1, f"\n{MARKER} {line}\n".encode())


def rerun(request, namespace, answer_path):
    """Run the request's blocks again in `namespace`; write what they did to `answer_path`."""
    source, text = request["source_path"], request["source_text"]
    linecache.cache[source] = (len(text), None, text.splitlines(True), source)
    outputs, failure = runner.run_blocks(
        request["blocks"], namespace, source, request["output_limit"]
    )
    values = {}
    if failure is None:
        values, failure = runner.evaluate_values(request["values"], namespace)
    answer = {"blocks": outputs, "values": values, "failure": failure}
    with open(answer_path, "w", encoding="utf-8") as handle:
        json.dump(runner.encodable(answer), handle)


def main(job_path, result_path):
    folder = os.path.dirname(os.path.abspath(job_path))
    # The requests come on stdin; the lesson's code gets an empty one, as in a build (an
    # input() there must not swallow a request).
    requests = os.fdopen(os.dup(0), "rb")
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    namespace = runner.main(job_path, result_path)
    say("ready")
    for number, line in enumerate(requests, start=1):
        os.chdir(folder)  # the blocks run again where they ran first, whatever they did since
        rerun(json.loads(line), namespace, os.path.join(folder, f"rerun-{number}.json"))
        say(f"done {number}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    os._exit(0)  # the build stopped asking: nothing printed now would be seen
