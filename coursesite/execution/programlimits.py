"""The programs a lesson starts are not held to its Python's address-space backstop
(lessonprocess.address_space_backstop). Chrome, which Plotly's static export (kaleido)
starts, reserves about 100 GB of address space it never uses and closes at once under
any smaller limit; so do other programs built on V8, the JVM or Go. A Python the lesson
starts goes without it too: it may be a launcher that starts Chrome itself (kaleido's
starts it through a Python wrapper). What they use is still watched: the guardian's
limit is on resident memory, theirs counted with the lesson's. A fork keeps it.

The guardian sets the limit as the soft one, the hard one left as it was: a program
started through subprocess gets the hard one while it starts. Loaded by runner.py, and by
importguard.py from beside it as `_coursesite_programs`; kept free of coursesite imports,
like importguard.py. A program started by os.system or os.posix_spawn keeps the limit.
"""

import resource
import subprocess


def install():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == hard:  # no backstop, or one the lesson cannot lift
        return
    start = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def _execute_child(self, *args, **options):
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        try:
            return start(self, *args, **options)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    subprocess.Popen._execute_child = _execute_child  # type: ignore[attr-defined]
