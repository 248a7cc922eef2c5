"""Imported by the reader-style `python main.py` run's sitecustomize (importguard.py): its
wall clock runs ahead by a shift, so that a line printing the date or the time (or anything
computed from them) differs from the build's run and is caught, instead of going stale on
the page a day later. Durations are untouched (time.monotonic, time.perf_counter): a
timeout still lasts as long. Kept free of coursesite imports, like importguard.py."""

import datetime
import time


def shift(seconds):
    _shift_time(seconds)
    _shift_datetime(seconds)


def _shift_time(seconds):
    real_time, real_time_ns = time.time, time.time_ns
    real_localtime, real_gmtime, real_ctime = time.localtime, time.gmtime, time.ctime
    real_strftime, real_asctime = time.strftime, time.asctime
    nanoseconds = int(seconds * 1_000_000_000)
    time.time = lambda: real_time() + seconds
    time.time_ns = lambda: real_time_ns() + nanoseconds
    time.localtime = lambda secs=None: real_localtime(time.time() if secs is None else secs)
    time.gmtime = lambda secs=None: real_gmtime(time.time() if secs is None else secs)
    time.ctime = lambda secs=None: real_ctime(time.time() if secs is None else secs)
    time.asctime = lambda t=None: real_asctime(time.localtime() if t is None else t)
    time.strftime = lambda format, t=None: real_strftime(
        format, time.localtime() if t is None else t
    )


def _shift_datetime(seconds):
    real_datetime = datetime.datetime
    ahead = datetime.timedelta(seconds=seconds)

    class RealInstances(type):
        # Dates made before the shift or by C code are the real classes: still instances.
        def __instancecheck__(cls, value):
            return isinstance(value, cls.__mro__[1])

    class ShiftedDatetime(datetime.datetime, metaclass=RealInstances):
        @classmethod
        def now(cls, tz=None):
            return real_datetime.now(tz) + ahead

        @classmethod
        def utcnow(cls):
            return real_datetime.now(datetime.UTC).replace(tzinfo=None) + ahead

        @classmethod
        def today(cls):
            return cls.now()

    class ShiftedDate(datetime.date, metaclass=RealInstances):
        @classmethod
        def today(cls):
            return (real_datetime.now() + ahead).date()

    setattr(datetime, "datetime", ShiftedDatetime)  # noqa: B010 (a module's class, replaced)
    setattr(datetime, "date", ShiftedDate)  # noqa: B010
