"""Imported by the reader-style `python main.py` run's sitecustomize (importguard.py): its
wall clock runs ahead by a shift, so that a line printing the date or the time (or anything
computed from them) differs from the build's run and is caught, instead of going stale on
the page a day later. Durations are untouched (time.monotonic, time.perf_counter): a
timeout still lasts as long. datetime's classes are the real ones while a compiled
extension loads, since such a module may be built on them (pandas' Timestamp). Kept free
of coursesite imports, like importguard.py."""

import datetime
import importlib.machinery
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

    # Named as the classes they stand for: a lesson that prints a class (matplotlib's units
    # registry lists datetime.date) prints the same ahead of time as now.
    for cls, name in ((ShiftedDatetime, "datetime"), (ShiftedDate, "date")):
        cls.__name__ = cls.__qualname__ = name
        cls.__module__ = "datetime"
    shifted = {"datetime": ShiftedDatetime, "date": ShiftedDate}
    real = {"datetime": real_datetime, "date": datetime.date}
    _while_extensions_load(lambda: _set(real), lambda: _set(shifted))
    _set(shifted)


def _set(classes):
    for name, cls in classes.items():
        setattr(datetime, name, cls)


def _while_extensions_load(before, after):
    """Run `before` while a compiled extension module loads, `after` once it has: such
    a module takes datetime's classes as the C types it was compiled against (pandas'
    Timestamp is a C subclass of datetime), and a Python subclass there crashes it."""
    loader = importlib.machinery.ExtensionFileLoader
    real_create, real_exec = loader.create_module, loader.exec_module
    depth = 0  # extensions loading now: one may import another

    def around(step):
        def loading(self, target):
            nonlocal depth
            if depth == 0:
                before()
            depth += 1
            try:
                return step(self, target)
            finally:
                depth -= 1
                if depth == 0:
                    after()

        return loading

    setattr(loader, "create_module", around(real_create))  # noqa: B010 (a method, wrapped)
    setattr(loader, "exec_module", around(real_exec))  # noqa: B010
