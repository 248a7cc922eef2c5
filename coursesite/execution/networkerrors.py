"""Whether an exception a lesson block raised is the network failing it: a name that did not
resolve, a connection refused or cut, a timeout on a socket, an HTTP error status.

A companion of runner.py, loaded from beside it into the lesson's process: it imports
nothing from the generator. The runner marks such a failure (`"network": True`), and the
failure's hint (failures.py) says the build machine may have no network, and what to do.
"""

import errno
import http.client
import socket
import urllib.error

# Libraries whose errors that are OSErrors are the network's (requests' ConnectionError,
# urllib3's NewConnectionError, httpx's ConnectError, ...): their modules, by first name.
NETWORK_LIBRARIES = {"requests", "urllib3", "httpx", "httpcore", "aiohttp", "fsspec", "gcsfs"}
# What the operating system says when there is no network to reach.
UNREACHABLE = {
    errno.ENETUNREACH,
    errno.EHOSTUNREACH,
    errno.ENETDOWN,
    errno.EHOSTDOWN,
    errno.ECONNREFUSED,
    errno.ECONNRESET,
}
# What resolvers and HTTP libraries say of an unreachable network, which a library that
# catches their error quotes in its own (torchvision: RuntimeError "Error downloading ...:
# <urlopen error [Errno -2] Name or service not known>", the URLError's chain cut).
QUOTED = (
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname provided",
    "getaddrinfo failed",
    "Failed to establish a new connection",
    "<urlopen error",
)
# Where a TimeoutError raised by the network is raised from.
SOCKET_FILES = ("socket.py", "ssl.py", "http/client.py", "urllib/request.py")


def quotes_the_network(message):
    """Whether a message made of an error raised where no exception reaches the runner (a
    figure drawn as it is saved: Cartopy fetches its coastlines then) quotes a network's."""
    return any(words in message for words in QUOTED)


def read_the_network(error):
    """Whether `error`, or an exception it was raised from or during, is a network error."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if _network_error(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def _network_error(error):
    if isinstance(error, (socket.gaierror, socket.herror, urllib.error.URLError)):
        return True
    if isinstance(error, (http.client.HTTPException, ConnectionError)):
        return True
    if isinstance(error, OSError) and error.errno in UNREACHABLE:
        return True
    if isinstance(error, OSError) and any(
        cls.__module__.split(".")[0] in NETWORK_LIBRARIES for cls in type(error).__mro__
    ):
        return True
    if any(words in str(error) for words in QUOTED):
        return True
    if isinstance(error, FileNotFoundError) and _names_an_address(error):
        return True
    if isinstance(error, TimeoutError):
        frames = []
        trace = error.__traceback__
        while trace is not None:
            frames.append(trace.tb_frame.f_code.co_filename.replace("\\", "/"))
            trace = trace.tb_next
        return any(name.endswith(SOCKET_FILES) for name in frames)
    return False


def _names_an_address(error):
    """A "file" not found that is a web address: NumPy's loadtxt and genfromtxt fetch one
    through their DataSource, which swallows the URLError and says the file was not found."""
    named = [str(error.filename or ""), str(error)]
    return any(text.startswith(ADDRESSES) for text in named)


ADDRESSES = ("http://", "https://", "ftp://")
