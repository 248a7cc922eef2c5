"""A lesson's reads of the network, failed on a machine that has none: one cause.

The runner marks a block whose exception is the network's (networkerrors.py). A tutorial
that reads several servers fails in a step for each (World Bank data in six steps, FRED in
four, each with its own URL in the message); they are one cause, the build machine's
network, and the report gives them one message, with a line naming the other steps and the
hosts they tried to reach.

Some libraries do not raise when a download fails: yfinance prints "Could not resolve
host" and returns an empty table, and the step that uses it fails later, as a ValueError
on NaNs. That failure is the network's too, when the names prove it: the failing block
uses a name that a block which printed such a line bound, and which no block between them
bound again; and a failure of a block that printed such a line itself before it raised
(`nltk.download` prints its failure, and the corpus read after it raises LookupError).
So is a failure in a block that names a path in a folder a shell download of
an earlier block was to fill (`!wget URL -O /tmp/data/x.tgz`, which the import leaves as a
comment: a shell line is no Python).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from coursesite.execution.consequences import bindings, used_names

# What resolvers, curl and HTTP libraries print when there is no network to reach.
PRINTED_FAILURE = re.compile(
    r"Could not resolve host|Name or service not known|Temporary failure in name resolution"
    r"|Failed to resolve|getaddrinfo failed|Failed to establish a new connection"
    r"|Network is unreachable|nodename nor servname provided"
    r"|<urlopen error "  # a URLError as text, whatever its reason (nltk.download prints one)
)
_HOST = re.compile(r"host='([^']+)'|https?://([^/\s'\"<>:]+)|resolve host:? '?([\w.-]+)")


def host_of(failure: dict) -> str:
    """The host a network failure names (`api.worldbank.org`): in its message, in what a
    read that failed without raising printed, or in the lines of code its traceback shows
    (`urlopen('https://...')`); or ""."""
    printed = failure["quiet"][2] if failure.get("quiet") else ""
    for text in (failure["message"], printed, failure.get("traceback") or ""):
        if match := _HOST.search(text):
            return next(group for group in match.groups() if group)
    return ""


@dataclass
class QuietRead:
    """A block that ran to its end though it printed a network failure."""

    block: str
    printed: str  # the line it printed
    bound: set[str]  # the module's names it bound

    @property
    def said(self) -> str:
        return quotable(self.printed)


def quotable(printed: str) -> str:
    """A printed line cut to a length a message can quote."""
    return printed if len(printed) <= 160 else printed[:157] + "..."


def printed_failure(output: dict) -> str | None:
    """The line a block's recorded `output` says a read of the network failed in, if any;
    a line a library wrapped is one line again (nltk writes `[nltk_data] Error loading
    stopwords: <urlopen error [Errno -2] Name or` and `[nltk_data]     service not known>`)."""
    text = f"{output.get('stdout') or ''}\n{output.get('stderr') or ''}"
    text = _WRAPPED.sub(" ", text)
    return next((li.strip() for li in text.splitlines() if PRINTED_FAILURE.search(li)), None)


# A line break a library's own wrapping made: the next line is its tag and an indent.
_WRAPPED = re.compile(r"\n\[[\w-]+\] {2,}")


def quiet_reads(blocks: list[dict], outputs: list[dict], failed: set[str]) -> list[QuietRead]:
    """The blocks (of the job's `blocks`, in the order they ran) that did not fail but
    printed a network failure, from the run's recorded `outputs`."""
    printed = {}
    for output in outputs:
        line = printed_failure(output)
        if line and output.get("id") not in failed:
            printed[output.get("id")] = line
    return [
        QuietRead(b["id"], printed[b["id"]], {n for n, _ in bindings(b["code"], everywhere=False)})
        for b in blocks
        if b["id"] in printed
    ]


def after_quiet_read(failure: dict, blocks: list[dict], reads: list[QuietRead]) -> dict:
    """`failure`, marked as the network's (with what the download printed in its message)
    when its block uses what a quiet read bound and no block between them bound again."""
    if failure.get("network") or not reads:
        return failure
    order = [block["id"] for block in blocks]
    if failure["block"] not in order:
        return failure
    at = order.index(failure["block"])
    codes = {block["id"]: block["code"] for block in blocks}
    used = used_names(blocks[at]["code"])
    for read in reversed(reads):
        if read.block not in order or order.index(read.block) >= at:
            continue
        between = order[order.index(read.block) + 1 : at]
        rebound = {n for b in between for n, _ in bindings(codes[b], everywhere=False)}
        names = sorted((read.bound & used) - rebound)
        if names:
            return {**failure, "network": True, "quiet": (read.block, names[0], read.said)}
    return failure


def after_own_quiet_read(failure: dict, outputs: list[dict]) -> dict:
    """`failure`, marked as the network's when its own block printed a network failure
    before it raised: a download it made failed without raising (`nltk.download` prints
    "Error loading stopwords: <urlopen error ...>"), and what it then read was never there
    (nltk's LookupError "Resource stopwords not found")."""
    if failure.get("network"):
        return failure
    for output in outputs:
        if output.get("id") == failure["block"] and (line := printed_failure(output)):
            said = quotable(line)
            return {**failure, "network": True, "quiet": (failure["block"], "", said)}
    return failure


# A shell download left in the code as a comment, as the import leaves `!wget` (a shell
# line is no Python): `# ... !wget URL -O /tmp/data/imdb/aclImdb_v1.tar.gz`, `!cd DIR && tar`.
_COMMENTED_SHELL = re.compile(r"#[^\n]*?!\s*([^\n]*\b(?:wget|curl|tar|unzip|git clone)\b[^\n]*)")
_PATH_WORD = re.compile(r"(?<![\w:/])((?:/|\.{0,2}/?)[\w.-]+(?:/[\w.-]*)+)")


def _download_folders(code: str) -> list[tuple[str, str]]:
    """(folder, shell line) for each folder a commented shell download was to fill: the
    folder of a file it names (`-O /tmp/d/x.tgz`), or a folder it names (`cd /tmp/d/`);
    the unpacking of an archive counts beside a download only (a local archive is no read)."""
    shells = list(_COMMENTED_SHELL.finditer(code))
    if not any(re.search(r"\b(?:wget|curl|git clone)\b", shell.group(1)) for shell in shells):
        return []
    found = []
    for shell in shells:
        line = re.sub(r"\w+://\S+", "", shell.group(1))  # an address is no folder here
        for word in _PATH_WORD.findall(line):
            folder = word.rstrip("/")
            if "." in folder.rpartition("/")[2]:  # a file: its folder
                folder = folder.rpartition("/")[0]
            if folder.strip("./") and folder.count("/") >= (2 if folder.startswith("/") else 0):
                found.append((folder, shell.group(1).strip()))
    return found


def unrun_downloads(blocks: list[dict]) -> dict[str, list[tuple[str, str]]]:
    """For each of the job's `blocks` (by id, in the order they ran), the folders its
    commented shell downloads were to fill, with their shell lines (_download_folders)."""
    return {block["id"]: _download_folders(block["code"]) for block in blocks}


def after_unrun_download(
    failure: dict, blocks: list[dict], downloads: dict[str, list[tuple[str, str]]]
) -> dict:
    """`failure`, marked as the network's when its block names a path in a folder that a
    shell download of an earlier block, left as a comment and never run, was to fill
    (`downloads`, from unrun_downloads): the tutorial fetched its data with `!wget` (the
    import reported that read)."""
    if failure.get("network"):
        return failure
    order = [block["id"] for block in blocks]
    if failure["block"] not in order:
        return failure
    at = order.index(failure["block"])
    named = _path_strings(blocks[at]["code"])
    for block in order[:at]:
        for folder, shell in downloads.get(block, []):
            if used := next((p for p in named if p == folder or p.startswith(f"{folder}/")), ""):
                return {**failure, "network": True, "unrun": (block, used, shell)}
    return failure


def _path_strings(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    return [
        node.value.rstrip("/")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "/" in node.value
    ]


def network_words(failure: dict, labels: dict[str, str]) -> str:
    """What the message of a network failure adds: that it read the network, or what it
    used of a download that failed without raising."""
    if not failure.get("network"):
        return ""
    if unrun := failure.get("unrun"):
        block, path, shell = unrun
        shell = shell if len(shell) <= 120 else shell[:117] + "..."
        return (
            f"; it uses {path}, which a shell command of {labels.get(block, block)} was to "
            f"download ({shell!r}), left as a comment and never run"
        )
    if not failure.get("quiet"):
        return "; it read the network"
    block, name, printed = failure["quiet"]
    label = labels.get(block, block)
    if block == failure["block"]:
        return (
            f"; it printed {printed!r} before it failed: a read of the network it made "
            "failed without raising"
        )
    return (
        f"; it used '{name}', which {label} read from the network, and the read failed "
        f"without raising: {label} printed {printed!r}"
    )


def other_reads_line(reads: list[tuple[str, int, str]], blocks_named: str) -> str:
    """'steps 4-6, 14 failed reading the network too (api.worldbank.org, fred.stlouisfed.org),
    at lines 76, 87, 105, 312': one cause, the build machine's network."""
    if not reads:
        return ""
    hosts = ", ".join(dict.fromkeys(host for _, _, host in reads if host))
    lines = ", ".join(str(line) for _, line, _ in reads)
    return (
        f"{blocks_named} failed reading the network too{f' ({hosts})' if hosts else ''}, "
        f"at line{'s' if len(reads) > 1 else ''} {lines}"
    )
