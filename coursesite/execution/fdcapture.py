"""A block's stdout and stderr: what its Python code prints, and what is written to file
descriptors 1 and 2 while it runs, kept together as the block's output.

The companion of runner.py, loaded by it from this file and, like it, importing nothing
from the generator. Python's print goes through sys.stdout, which is a BlockStream for the
whole run; a child process (subprocess, os.system, a multiprocessing worker), C code and
os.write write to the descriptors themselves, and `python main.py` prints that too. So
while a block runs each of fd 1 and fd 2 is the write end of a pipe of its own, and what
comes out of the pipe joins the block's output, decoded as UTF-8, in the order written:

- before Python code's own text is added, what is in the pipe is read first, so that a
  print, then a child's line, then a print show in that order;
- a thread reads the pipe meanwhile, so that a child writing more than a pipe holds does
  not wait for ever; the output's cap (CappedOutput) keeps what it keeps, the rest
  is only counted, as for printed text;
- when the block ends, what is still in the pipe is read into it, then fd 1 and fd 2 are
  the process's own again: the runner's parent reads them (and the warm preview's
  answers go there), and nothing a block wrote is among them.

The pipes are made once and kept for the whole run: a process the lesson started in one
block (a server, a forkserver) keeps the pipe's end it was given, and what it writes later
joins the block running then, or the process's own stream between blocks. The reading
thread is started through _thread, so that lesson code counting its threads sees its own.
"""

import _thread
import codecs
import contextlib
import io
import os
import re
import select
import sys

CHUNK = 65_536
DRAIN_CHUNKS = 32  # at most this many chunks are read at a block's end: more than a pipe holds


class Descriptor:
    """fd 1 or fd 2, taken over by a pipe while a block runs."""

    def __init__(self, fd):
        self.fd = fd
        self.read_end = self.write_end = self.own = -1  # made on first use
        self.target = None  # what the running block's output is written to
        self.decoder, self.partial = _decoder(), False  # partial: it holds part of a character
        self.poller = select.poll()

    def start(self):
        if self.read_end >= 0:  # made by an earlier try that failed further on
            return
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self.poller.register(self.read_end, select.POLLIN)
        self.own = os.dup(self.fd)  # the process's own stream, given back between blocks

    def take(self, data):
        """Add bytes read from the pipe to the block's output (or, between blocks, to the
        process's own stream)."""
        if self.target is None:
            _write_all(self.own, data)
        else:
            self.target.write(self.decoder.decode(data))
            self.partial = bool(self.decoder.getstate()[0])

    def drain(self, chunks=DRAIN_CHUNKS):
        """Read what is in the pipe, at most `chunks` chunks of it; False once it is
        empty (or closed: no process holds its write end but this one's)."""
        for _ in range(chunks):
            try:
                data = os.read(self.read_end, CHUNK)
            except OSError:  # BlockingIOError: empty; or closed by the lesson
                return False
            if not data:
                return False
            self.take(data)
        return True

    def catch_up(self):
        """Before Python code's text: what the pipe holds is read (the poll is the cheapest
        way to ask, on every write), and what the decoder holds of a character not yet
        complete goes out as U+FFFD, so that the text comes after both."""
        if self.poller.poll(0):
            self.drain()
        if self.partial:
            self.settle()

    def settle(self):
        if self.target is not None:
            rest = self.decoder.decode(b"", final=True)
            if rest:
                self.target.write(rest)
        self.partial = False


class DescriptorCapture:
    """fd 1 and fd 2 of this process, each a pipe while a block runs (see the docstring)."""

    def __init__(self):
        self.lock = _thread.RLock()  # a signal handler may print while the lock is held
        self.descriptors = {1: Descriptor(1), 2: Descriptor(2)}
        self.reading = False
        # In a process the lesson forked (a multiprocessing worker), the copy of a block's
        # output is nobody's: what it prints goes to its fd 1 or 2, the block's pipe.
        self.in_child = False
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self):
        self.in_child = True

    def begin(self, fd, target):
        """From now on, what is written to `fd` goes to `target` (CappedOutput).
        False when it cannot be taken over (the lesson used up its descriptors): the block
        then keeps what Python code prints, as before."""
        _flush_python_streams()
        descriptor = self.descriptors[fd]
        with self.lock:
            try:
                if not self.reading:
                    for each in self.descriptors.values():
                        each.start()
                    _start_lean_thread(self._read)
                    self.reading = True
                descriptor.drain()  # a process left running wrote between blocks
                os.dup2(descriptor.write_end, fd)
            except OSError:
                return False
            descriptor.target, descriptor.decoder = target, _decoder()
        return True

    def end(self, fd):
        """`fd` is the process's own again; what was written to it so far is the
        block's."""
        _flush_python_streams()
        descriptor = self.descriptors[fd]
        with self.lock:
            with contextlib.suppress(OSError):  # the lesson closed it: the pipe stays
                os.dup2(descriptor.own, fd)
            descriptor.drain()
            descriptor.settle()
            descriptor.target = None

    def write_text(self, descriptor, target, text):
        """Python code's text for `target`, after what is already in the pipe of
        `descriptor`, when that feeds `target` (a lesson's thread may print after its
        block ended). The hot path of every print: kept short."""
        self.lock.acquire()
        try:
            if descriptor.target is target and (descriptor.poller.poll(0) or descriptor.partial):
                descriptor.catch_up()
            target.write(text)
        finally:
            self.lock.release()

    def write_bytes(self, descriptor, target, data):
        """Python code's bytes (sys.stdout.buffer) for `target`, after the pipe's."""
        with self.lock:
            if descriptor.target is target:
                descriptor.catch_up()
                descriptor.take(bytes(data))
            else:
                target.write(bytes(data).decode("utf-8", "replace"))

    def _read(self):
        """Read the pipes as they are written, for the rest of the process's life."""
        ends = {d.read_end: d for d in self.descriptors.values()}
        poller = select.poll()
        for end in ends:
            poller.register(end, select.POLLIN)
        while ends:
            for end, event in poller.poll():
                with self.lock:
                    if event & select.POLLIN:
                        ends[end].drain(chunks=1)
                    elif end in ends:  # closed by the lesson: nothing more comes from it
                        poller.unregister(end)
                        del ends[end]


def _decoder():
    """UTF-8, a character split between two reads whole, what is not UTF-8 as U+FFFD."""
    return codecs.getincrementaldecoder("utf-8")("replace")


def _flush_python_streams():
    """What Python code left in a stream's buffer goes to the descriptor it was written
    for now, before that descriptor changes."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # closed, or replaced by something with no flush(), by the lesson
            pass


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except OSError:  # the parent stopped reading: there is no one to tell
            return


def write_in_child(fd, data):
    """Text or bytes written by a forked child's copy of sys.stdout or sys.stderr: to its
    fd, with lone surrogates as the runner's result gives them (runner.encodable)."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = data.encode("utf-8", "replace")
    _write_all(fd, data)


DESCRIPTORS = DescriptorCapture()


class CappedOutput(io.TextIOBase):
    """A block's stdout or stderr, keeping at most `limit` characters of what is written.

    A lesson that prints without end must not exhaust the build's memory or its pages; the
    rest is counted and reported. Bytes (sys.stdout.buffer, fd 1 and 2) are decoded
    leniently before they get here, so output that is not UTF-8 shows replacement
    characters instead of failing the lesson.
    """

    def __init__(self, limit):
        super().__init__()
        self.limit, self.parts, self.kept, self.dropped = limit, [], 0, 0
        # The last line, once a carriage return went back into it (a progress bar redraws
        # itself so): kept apart, as a terminal or a notebook shows it, until it ends.
        self.line = None

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        if self.line is None and "\r" not in text:
            self._keep(text)
        else:
            if self.line is None:
                self.line = TerminalLine(self._last_line())
            self._keep(self.line.write(text))
            if not self.line.text:
                self.line = None
        return len(text)

    def _keep(self, text):
        if self.kept + len(text) <= self.limit:  # the common case, first: every print
            self.parts.append(text)
            self.kept += len(text)
            return
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))

    def _last_line(self):
        """Take the kept text after the last newline out of `parts`."""
        tail = []
        while self.parts and "\n" not in self.parts[-1]:
            tail.append(self.parts.pop())
        if self.parts:
            done, _, rest = self.parts[-1].rpartition("\n")
            self.parts[-1] = done + "\n"
            tail.append(rest)
        line = "".join(reversed(tail))
        self.kept -= len(line)
        return line

    def getvalue(self):
        line = self.line.text if self.line else ""
        room = max(0, self.limit - self.kept)
        text = "".join(self.parts) + line[:room]
        dropped = self.dropped + max(0, len(line) - room)
        if dropped:
            text += f"\n[output truncated: {dropped} more characters were not recorded]\n"
        return text


class TerminalLine:
    """The last line of a stream as a terminal or a notebook shows it: a carriage return
    goes back to the line's start, and what follows is written over what is there; a
    colour code (`\x1b[1;36m`, rich's and IPython's) colours the text and is none of it."""

    def __init__(self, text=""):
        self.text, self.column = text, len(text)

    def write(self, text):
        """Write `text`; the lines it ended, as shown, each with its newline."""
        ended = []
        for piece in _LINE_CONTROLS.split(_TERMINAL_CODES.sub("", text)):
            if piece in ("\n", "\r\n"):
                ended.append(self.text + "\n")
                self.text, self.column = "", 0
            elif piece == "\r":
                self.column = 0
            elif piece:
                end = self.column + len(piece)
                self.text = self.text[: self.column] + piece + self.text[end:]
                self.column = end
        return "".join(ended)


_LINE_CONTROLS = re.compile(r"(\r\n|\r|\n)")
_TERMINAL_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")  # ECMA-48 control sequences


def terminal_text(text):
    """`text` as a terminal or a notebook shows it (TerminalLine): what a progress bar
    drew over is gone, its last state stays."""
    line = TerminalLine()
    return line.write(text) + line.text


class BlockStream(io.TextIOBase):
    """sys.stdout or sys.stderr for the whole run, writing to the running block's output.

    One object for the whole run, not one per block: a logging handler (logging's, absl's,
    a library's) keeps the stream that was sys.stderr when it was made, and what it writes
    in later blocks must still reach the block that is running then. While a block runs,
    its file descriptor (1 or 2) writes to the block's output too (fdcapture.py): what a
    child process or C code writes is there, in order with what Python code printed.
    """

    def __init__(self, name, fd):
        super().__init__()
        self.name, self.fd, self.target = name, fd, None
        self.descriptor = DESCRIPTORS.descriptors[fd]

    @contextlib.contextmanager
    def writing_to(self, output):
        taken = DESCRIPTORS.begin(self.fd, output)
        self.target = output
        try:
            yield
        finally:
            try:
                if taken:
                    DESCRIPTORS.end(self.fd)
            finally:
                self.target = None

    @property
    def buffer(self):
        return (
            _BlockBuffer(self)
            if self.target is not None
            else getattr(sys, f"__{self.name}__").buffer
        )

    encoding = "utf-8"

    def writable(self):
        return True

    def fileno(self):
        return self.fd  # subprocess.run(..., stdout=sys.stdout) writes to the block too

    def flush(self):
        getattr(sys, f"__{self.name}__").flush()

    def write_located(self, text):
        """Write `text` as write() does; where it starts in the running block's kept output
        (CappedOutput.getvalue()), or None when no block here takes it whole (none runs,
        this is a forked worker, or the cap cut it). What Python code left in a buffer and
        what is already in the pipe is the block's first: both came before `text`."""
        target = self.target
        if target is None or DESCRIPTORS.in_child:
            self.write(text)
            return None
        _flush_python_streams()
        with DESCRIPTORS.lock:
            feeds_target = self.descriptor.target is target
            if feeds_target:
                self.descriptor.catch_up()
            start = target.kept
            target.write(text)
            return start if target.kept == start + len(text) else None

    def write(self, text):
        target = self.target
        if target is None:  # outside any block: the process's own stream
            return getattr(sys, f"__{self.name}__").write(text)
        if DESCRIPTORS.in_child:  # a forked worker: its fd is the block's pipe
            write_in_child(self.fd, str(text))
        else:
            DESCRIPTORS.write_text(self.descriptor, target, str(text))
        return len(text)


BLOCK_STDOUT, BLOCK_STDERR = BlockStream("stdout", 1), BlockStream("stderr", 2)


class _BlockBuffer:
    """sys.stdout.buffer (or stderr's) while a block runs: bytes for the block's output."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data):
        target = self.stream.target
        if target is None:  # the block ended meanwhile
            return getattr(sys, f"__{self.stream.name}__").buffer.write(data)
        if DESCRIPTORS.in_child:
            write_in_child(self.stream.fd, bytes(data))
        else:
            DESCRIPTORS.write_bytes(self.stream.descriptor, target, data)
        return len(data)

    def flush(self):
        self.stream.flush()


def _start_lean_thread(function):
    """Start the reading thread with a small stack and no malloc arena of its own: the
    default 8 MB stack and glibc's 64 MB per-thread arena would count against the lesson's
    address-space limit (lessonprocess.address_space_backstop)."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX: threads share the main arena
    except (OSError, AttributeError):  # not glibc: the thread may cost more address space
        pass
    previous = _thread.stack_size(256 * 1024)
    try:
        _thread.start_new_thread(function, ())
    finally:
        _thread.stack_size(previous)
