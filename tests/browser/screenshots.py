"""Screenshots of a lesson page for the README: desktop and phone width, light and dark.

    .venv/bin/python -m tests.browser.screenshots        # writes docs/screenshots/*.png

Builds the real course into a temporary folder, serves it on 127.0.0.1 and photographs it
with Debian's Chromium, as the browser tests do.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

from .conftest import CHROMIUM, LESSON_2, ROOT, QuietHandler

OUT = ROOT / "docs" / "screenshots"
SHOTS = [  # name, viewport, where the page is scrolled to
    ("lesson-desktop-light", {"width": 1280, "height": 800}, "#build-run", "light"),
    ("lesson-desktop-dark", {"width": 1280, "height": 800}, "#build-run", "dark"),
    ("lesson-phone-light", {"width": 375, "height": 740}, None, "light"),
    ("lesson-phone-dark", {"width": 375, "height": 740}, "#check-your-understanding", "dark"),
]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "--out", str(site), "-q"], cwd=ROOT, check=True
        )
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site))
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/{LESSON_2}"
        OUT.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            for name, viewport, anchor, theme in SHOTS:
                context = browser.new_context(
                    viewport=viewport, color_scheme=theme, device_scale_factor=1
                )
                page = context.new_page()
                page.goto(url + (anchor or ""))
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(200)  # the stage strip settles after the jump
                page.screenshot(path=OUT / f"{name}.png")
                context.close()
                print(f"wrote {OUT / name}.png")
            browser.close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
