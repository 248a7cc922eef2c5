// Injected by `build.py serve` only: reload after a rebuild, show a failed build's error.
(function () {
  "use strict";
  var seen = null;
  var overlay = null;

  function showError(text) {
    if (!overlay) {
      overlay = document.createElement("pre");
      overlay.id = "build-error-overlay";
      overlay.setAttribute("role", "alert");
      overlay.style.cssText = "position:fixed;inset:auto 1rem 1rem 1rem;max-height:50vh;" +
        "overflow:auto;margin:0;padding:1rem;background:#2b0b0b;color:#ffe9e9;" +
        "border:2px solid #ff6b6b;border-radius:6px;z-index:9999;white-space:pre-wrap;" +
        "font:13px/1.4 ui-monospace,monospace";
      document.body.appendChild(overlay);
    }
    overlay.textContent = "Build failed; this page is the last good build.\n\n" + text;
  }

  function poll() {
    fetch("/__status", { cache: "no-store" })
      .then(function (response) { return response.json(); })
      .then(function (status) {
        if (seen !== null && status.generation !== seen) {
          window.location.reload();
          return;
        }
        seen = status.generation;
        if (status.error) {
          showError(status.error);
        } else if (overlay) {
          overlay.remove();
          overlay = null;
        }
      })
      .catch(function () { /* the server is restarting or stopped */ })
      .then(function () { window.setTimeout(poll, 700); });
  }
  poll();
})();
