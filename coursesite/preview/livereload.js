// Injected by `build.py serve` only: reload after a rebuild, show a failed build's error
// over the page, and the build's warnings in a panel that can be dismissed.
(function () {
  "use strict";
  var seen = null;
  var overlay = null;
  var panel = null;

  // The warnings stay dismissed until they change (in this tab).
  function showWarnings(warnings) {
    var key = "coursesite-preview-dismissed";
    var text = warnings.join("\n\n");
    if (panel) { panel.remove(); panel = null; }
    if (!warnings.length || window.sessionStorage.getItem(key) === text) { return; }
    panel = document.createElement("div");
    panel.id = "build-warnings";
    panel.setAttribute("role", "status");
    panel.style.cssText = "position:fixed;inset:auto 1rem 1rem 1rem;max-height:40vh;" +
      "overflow:auto;padding:.75rem 1rem;background:#2b2205;color:#fff4d6;" +
      "border:2px solid #e0b030;border-radius:6px;z-index:9998;" +
      "font:13px/1.4 ui-monospace,monospace";
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Dismiss";
    close.style.cssText = "float:right;font:inherit";
    close.addEventListener("click", function () {
      window.sessionStorage.setItem(key, text);
      panel.remove();
      panel = null;
    });
    var body = document.createElement("pre");
    body.style.cssText = "margin:0;white-space:pre-wrap";
    body.textContent = warnings.length + " warning(s) from the last build:\n\n" + text;
    panel.appendChild(close);
    panel.appendChild(body);
    document.body.appendChild(panel);
  }

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
        var first = seen === null;
        seen = status.generation;
        if (first) { showWarnings(status.warnings || []); }
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
