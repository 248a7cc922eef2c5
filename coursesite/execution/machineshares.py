"""What of the building machine each lesson running at once gets: an equal share of its
cores (for its BLAS and XLA threads) and, unless the course sets a limit, of its memory."""

from __future__ import annotations

import os


def memory_share(threads: int) -> int:
    """The MB a lesson may use where the course sets no limit: three quarters of this
    machine's memory, in the share of its cores the lesson runs with (`threads`), so that
    the lessons run at once stay within it together; at least 1024."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # a platform that does not say
        return 4096
    cores = os.cpu_count() or 1
    return max(1024, (total * 3 // 4 * min(threads, cores) // cores) >> 20)


def threads_per_lesson(lessons_at_once: int) -> int:
    """Each lesson running at once gets an equal share of the cores for its BLAS/XLA threads."""
    return max(1, (os.cpu_count() or 1) // lessons_at_once)
