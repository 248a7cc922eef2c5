"""Stage 5: write the site so that readers only ever see a complete build.

Everything goes into a fresh folder beside the output folder; only when all of it is written
does that folder replace the old site, so a failed or interrupted build leaves the previous
site untouched. Files that did not change are hard-linked from the old site, not rewritten.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pagefind_bin

from .errors import BuildError, BuildErrors
from .render import OutputFile


def write_site(rendered: list[OutputFile], kept: list[str], static: Path, out: Path) -> None:
    """Make `out` hold `rendered`, the `kept` files of the current `out`, and `static/`."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        shutil.copytree(static, staging / "static")
        for path in kept:
            _link_or_copy(out / path, staging / path)
        for file in rendered:
            target = staging / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(file.content, bytes):
                target.write_bytes(file.content)
            else:
                target.write_text(file.content, encoding="utf-8")
        index_search(staging)
        staging.chmod(0o755)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def index_search(site: Path) -> None:
    """Build the Pagefind search index of the lesson pages into `site/pagefind/`.

    Only elements marked `data-pagefind-body` (the lesson articles) are indexed; result URLs
    keep `index.html` so that they work on any static host.
    """
    command = [pagefind_bin.get_executable(), "--site", str(site), "--keep-index-url",
               "--output-subdir", "pagefind", "--silent"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as problem:
        raise BuildErrors([BuildError(f"the search index could not be built: {problem}",
                                      hint="reinstall the pinned pagefind-bin package "
                                           "(pip install -r requirements.txt)")]) from None
    if result.returncode != 0:
        raise BuildErrors([BuildError(
            "the search index could not be built (pagefind exited with "
            f"{result.returncode})", detail=(result.stdout + result.stderr).strip() or None,
            hint="the previous site is unchanged")])


def _remove_leftovers(out: Path) -> None:
    """Staging folders of builds that were killed before they could clean up.

    The build lock guarantees that no other build is writing next to `out` right now.
    """
    for prefix in (f".{out.name}.new-", f".{out.name}.old-"):
        for folder in out.parent.glob(prefix + "*"):
            shutil.rmtree(folder, ignore_errors=True)


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copy2(source, target)


def _swap(staging: Path, out: Path) -> None:
    """Replace `out` with `staging`; the old site is removed only after the rename."""
    retired = None
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, retired / "site")
    os.rename(staging, out)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
