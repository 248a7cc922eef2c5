"""Every cache the build keeps in .cache/, in one place.

Each cache maps a key (built from everything its entry depends on) to an entry that a
later build may reuse; a missing, damaged or outdated entry counts as a miss and is
computed and written again, never trusted. Entries are named by `files.short_digest` of
their key (the execution cache by lesson slug, so that a miss can say what changed) and
written atomically (`files.write_atomically`).

- ExecutionCache (records/): keyed by the lesson's code, packages, files and settings
  (`executionkey`); saves running the lesson.
- ParseCache (parsed/, in parsecache.py for its size): the lesson file's bytes and the
  parser's version; saves parsing, and with every lesson's outline in one index, loading
  unchanged lessons at all. The index also remembers which lesson and record last passed
  validation.
- FormulaMemo (mathml/): the formula, the converter's and the allowlist's versions; saves
  importing latex2mathml.
- HighlightCache (highlight/): the code and Pygments' version; saves highlighting.
- ImageDigests (images.json): each lesson image's digest, while its size, modification
  time and inode hold; saves reading every image of the course on every build.
- ProseMemo (prose/): a lesson page's prose HTML, keyed by the lesson's text, live values
  and images, the course's lessons and labels, and the generator; saves converting
  Markdown when only templates changed.
- cached_clean_svg (figures/clean/): the drawing, its id prefix and svgclean.py; saves
  rebuilding every figure's SVG from the allowlist when a template changes.
- cached_hidden_modules (installs/): the lesson's distributions, the installed packages'
  signature and installs.py; saves reading the metadata of every installed distribution.
- cached_figure_svg (figures/): the figure's data, alt text, figures.py and matplotlib's
  version;
  saves importing matplotlib and drawing.
- cached_cut_words (figures/cut/): the figure's data, figures.py, lessonoutputs.py and
  matplotlib's version; saves importing matplotlib and drawing to find text the drawing
  cuts (0.4 s of every code edit of a lesson with a {figure}, whose data rarely changes).

What the last build of an output folder left (its pages, their files, the fingerprint of
its inputs) is not a cache but the site's state: `sitestate`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from coursesite.execution import installs, lessonoutputs
from coursesite.execution.dependencies import distribution_version, installed_signature
from coursesite.execution.executionkey import CacheKey, explain_miss
from coursesite.execution.executionrecord import (
    ExecutionRecord,
    record_digest,
    record_from_json,
    record_to_json,
)
from coursesite.files import short_digest, write_atomically
from coursesite.markup.markdown import highlight_code
from coursesite.markup.mathml import ALLOWLIST_REVISION, latex_to_mathml

# 2: blocks kept in execution order; 3: blocks keep their display output; 4: blocks keep
# the matplotlib figures they drew
FORMAT = 4


@dataclass(frozen=True)
class Lookup:
    record: ExecutionRecord | None  # None: a miss
    reason: str  # why it missed (empty on a hit)
    stale: ExecutionRecord | None = None  # on a miss, the last record if it was readable
    recorded: bool = True  # False: kept by a build that failed, not yet saved to records/
    digest: str = ""  # execute.record_digest of the record, when the entry has it


class ExecutionCache:
    """One JSON file per lesson in `folder`; unreadable entries count as misses."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, slug: str) -> Path:
        return self.folder / f"{slug}.json"

    def lookup(self, slug: str, key: CacheKey) -> Lookup:
        path = self._path(slug)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return Lookup(None, "not run before")
        except OSError as problem:
            return Lookup(None, f"unreadable cache entry {path} ({problem}); running again")
        try:
            entry = msgspec.json.decode(data)  # json.loads took 35 ms for 1,000 entries
            if entry.get("format") != FORMAT:
                return Lookup(None, "cache format changed")
            record = record_from_json(entry["record"])
            digest = str(entry.get("record_digest", ""))
            if entry["key"] == key.digest:
                return Lookup(record, "", recorded=entry.get("recorded", True), digest=digest)
            reason = explain_miss(entry["parts"], key.parts) or "key changed"
            return Lookup(None, reason, record, digest=digest)
        except (ValueError, KeyError, TypeError, AttributeError, msgspec.DecodeError) as problem:
            return Lookup(
                None,
                f"damaged cache entry {path} ({type(problem).__name__}) discarded; running again",
            )

    def store(self, slug: str, key: CacheKey, record: ExecutionRecord, recorded: bool) -> None:
        """Keep `record`; `recorded` says whether records/ holds it too (see Lookup)."""
        entry = {
            "format": FORMAT,
            "key": key.digest,
            "parts": key.parts,
            "record": record_to_json(record),
            "record_digest": record_digest(record),
            "recorded": recorded,
        }
        write_atomically(self._path(slug), json.dumps(entry, indent=1))


class ImageDigests:
    """Each image file's digest, kept in `file` between builds with the file's size,
    modification time and inode: a file with the same three is not read again."""

    def __init__(self, file: Path):
        self.file = file
        try:
            self.known = msgspec.json.decode(file.read_bytes(), type=dict[str, list[int | str]])
        except (OSError, msgspec.DecodeError):
            self.known = {}
        self.used: dict[str, list[int | str]] = {}

    def digest(self, path: Path, digest_of: Callable[[Path], str]) -> str:
        """The digest of the file at `path` (resolved), from `digest_of` (which also checks
        the content) when the file is new or changed; OSError if it cannot be read."""
        status = path.stat()
        stamp: list[int | str] = [status.st_size, status.st_mtime_ns, status.st_ino]
        key = str(path)
        entry = self.known.get(key)
        if entry is None or entry[:3] != stamp:
            entry = [*stamp, digest_of(path)]
        self.used[key] = entry
        return str(entry[3])

    def save(self) -> None:
        """Keep the digests of the files this build used."""
        if self.used != self.known:
            write_atomically(self.file, msgspec.json.encode(self.used))


class FormulaMemo:
    """The MathML of the course's formulas, kept between builds in a JSON file.

    Converting needs latex2mathml (~30 ms to import) and about 0.1 ms per formula, while a
    rebuild almost only meets formulas that an earlier build converted. The file is named
    by the converter's version, so that an upgrade starts afresh; it keeps the formulas
    this build used, so that it never outgrows the course.
    """

    def __init__(self) -> None:
        self.mathml: dict[str, str] = {}  # "block\0latex" -> MathML
        self.used: set[str] = set()
        self.converted: list[str] = []  # keys in the order asked for, for `used_since`
        self.path: Path | None = None

    def load(self, folder: Path, version: str | None) -> None:
        # The file name carries the allowlist's revision: a memo written before the
        # allowlist (or under an older one) may hold unfiltered MathML and is not read.
        self.path = folder / f"latex2mathml-{version}-{ALLOWLIST_REVISION}.json"
        self.used, self.converted = set(), []
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(saved, dict):
            self.mathml.update(saved)

    def convert(self, latex: str, display: bool) -> str:
        mode = "block" if display else "inline"
        key = f"{mode}\0{latex.strip()}"
        if key not in self.mathml:
            self.mathml[key] = latex_to_mathml(latex.strip(), display)
        self.used.add(key)
        self.converted.append(key)
        return self.mathml[key]

    def used_since(self, mark: int) -> list[str]:
        """The formulas asked for since `len(self.converted)` was `mark`."""
        return self.converted[mark:]

    def keep(self, keys: list[str]) -> None:
        """Count formulas as used without converting them: a lesson parsed by an earlier
        build uses them. One missing from the memo is converted when a page needs it."""
        self.used.update(key for key in keys if key in self.mathml)

    def save(self) -> None:
        if self.path is None:
            return
        write_atomically(
            self.path, json.dumps({key: self.mathml[key] for key in sorted(self.used)})
        )


@dataclass(frozen=True)
class HighlightCache:
    """Highlighted HTML of code blocks, kept between builds: a template change re-renders
    every page, but rarely changes any code, and highlighting is a third of a page's cost."""

    folder: Path | None

    def python(self, code: str) -> str:
        if self.folder is None:
            return highlight_code(code, "python")
        import pygments  # with the rest of Pygments, only when a page is rendered

        key = short_digest(pygments.__version__ + "\0" + code)
        path = self.folder / f"{key}.html"
        try:
            cached = path.read_text(encoding="utf-8")
            if cached.endswith("\n"):  # Pygments output always does; else a damaged entry
                return cached
        except (OSError, UnicodeDecodeError):
            pass
        html = highlight_code(code, "python")
        write_atomically(path, html)
        return html


@functools.cache
def _code_digest(module_file: str) -> str:
    """A digest of a module's source: a change to how figures are drawn or cleaned makes
    them again."""
    return short_digest(Path(module_file).read_bytes())


def cached_figure_svg(data: dict, description: str, cache: Path | None) -> str:
    """render_svg, reusing an earlier drawing of the same data from `cache` when there is one."""
    from coursesite.outputs import figures  # only where a figure is shown

    if cache is None:
        return figures.render_svg(data, description)
    key = short_digest(
        json.dumps(
            [data, description, _code_digest(figures.__file__), distribution_version("matplotlib")],
            sort_keys=True,
        )
    )
    path = cache / f"{key}.svg"
    if path.is_file():
        cached = path.read_text(encoding="utf-8", errors="replace")
        if cached.startswith("<?xml") and cached.rstrip().endswith("</svg>"):
            return cached  # anything else is a damaged entry: draw it again
    svg = figures.render_svg(data, description)
    write_atomically(path, svg)
    return svg


def cached_cut_words(data: dict, cache: Path | None) -> list[str]:
    """figures.cut_words, from `cache` when the same data was measured before."""
    from coursesite.outputs import figures  # only where a figure is shown

    if cache is None:
        return figures.cut_words(data)
    measurer = [_code_digest(module.__file__) for module in (figures, lessonoutputs)]
    key = short_digest(
        json.dumps([data, *measurer, distribution_version("matplotlib")], sort_keys=True)
    )
    path = cache / "cut" / f"{key}.json"
    try:
        words = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(words, list) and all(isinstance(word, str) for word in words):
            return words  # anything else is a damaged entry: measure again
    except (OSError, ValueError):
        pass
    words = figures.cut_words(data)
    write_atomically(path, json.dumps(words))
    return words


class ProseMemo:
    """The HTML of one lesson page's prose, piece by piece, kept between builds.

    A template change re-renders every page, but its prose (Markdown, math, links) comes
    out the same: at 1,000 lessons, converting it again was a third of the rendering. The
    entry holds `key`, a digest of everything the prose's HTML depends on (the lesson's
    text and live values, its images, the course's lessons and labels, the generator's
    code); an entry with another key, or damaged, is ignored and replaced.
    """

    def __init__(self, folder: Path | None, slug: str, key: str):
        self.path = folder and folder / f"{slug}.json"
        self.key = key
        self.pieces: dict[str, str] = {}
        self.added = False

    def load(self) -> ProseMemo:
        if self.path is not None:
            try:
                entry = json.loads(self.path.read_text(encoding="utf-8"))
                if entry.get("key") == self.key and isinstance(entry.get("pieces"), dict):
                    self.pieces = entry["pieces"]
            except (OSError, ValueError, AttributeError):
                pass
        return self

    def get(self, piece: str) -> str | None:
        return self.pieces.get(piece)

    def put(self, piece: str, html: str) -> None:
        self.pieces[piece] = html
        self.added = True

    def save(self) -> None:
        if self.path is not None and self.added:
            write_atomically(self.path, json.dumps({"key": self.key, "pieces": self.pieces}))


def cached_clean_svg(svg: str, prefix: str, cache: Path | None) -> str:
    """svgclean.clean_svg's markup, from `cache` when this very drawing was cleaned with
    this prefix before: a template change re-renders every page, never its figures.
    Raises svgclean.UnsafeSvg as clean_svg does (nothing unsafe is kept)."""
    from coursesite.markup import svgclean  # only where a figure is shown

    if cache is None:
        return svgclean.clean_svg(svg, prefix)
    key = short_digest("\0".join([svg, prefix, _code_digest(svgclean.__file__)]))
    path = cache / "clean" / f"{key}.svg"
    try:
        cached = path.read_text(encoding="utf-8")
        if cached.startswith("<svg") and cached.rstrip().endswith("</svg>"):
            return cached  # anything else is a damaged entry: clean it again
    except (OSError, UnicodeDecodeError):
        pass
    markup = svgclean.clean_svg(svg, prefix)
    write_atomically(path, markup)
    return markup


def cached_hidden_modules(distributions: list[str], cache: Path | None) -> dict[str, str]:
    """installs.hidden_modules, from `cache` when nothing was installed or removed since
    (it reads every distribution's metadata: ~0.1 s before a changed lesson can start)."""
    if cache is None:
        return installs.hidden_modules(distributions)
    key = short_digest(
        json.dumps([distributions, installed_signature(), _code_digest(installs.__file__)])
    )
    path = cache / f"{key}.json"
    try:
        hidden = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(hidden, dict):
            return hidden
    except (OSError, ValueError):
        pass
    hidden = installs.hidden_modules(distributions)
    write_atomically(path, json.dumps(hidden))
    return hidden
