// "My learning": every portfolio note saved in this browser, by lesson, with export to a
// JSON file, import from one, and clearing per lesson. Uses window.CourseSite (site.js).
(function () {
  "use strict";

  var site = window.CourseSite;
  if (!site) { return; }
  var FORMAT = "coursesite-my-learning";
  var saved = document.getElementById("saved");
  var empty = document.getElementById("portfolio-empty");
  var message = document.getElementById("portfolio-message");
  var template = document.getElementById("saved-note-template");
  var tools = document.querySelector(".portfolio-tools");
  var exportButton = document.getElementById("portfolio-export");
  var importButton = document.getElementById("portfolio-import-button");
  var importInput = document.getElementById("portfolio-import");
  var download = document.getElementById("portfolio-download");
  var undo = document.getElementById("portfolio-undo");
  var lastCleared = null;
  if (!saved || !template) { return; }

  function sectionFor(lesson) {
    var sections = saved.querySelectorAll("section[data-lesson]");
    var other = null;
    for (var i = 0; i < sections.length; i++) {
      var slug = sections[i].getAttribute("data-lesson");
      if (slug === lesson) { return sections[i]; }
      if (slug === "") { other = sections[i]; }
    }
    return other;
  }

  function render() {
    var notes = site.portfolio.all();
    Array.prototype.forEach.call(saved.querySelectorAll("section[data-lesson]"), function (section) {
      section.querySelector(".saved-notes").replaceChildren();
      section.hidden = true;
    });
    notes.sort(function (a, b) { return (a.saved || "") < (b.saved || "") ? -1 : 1; });
    notes.forEach(function (note) {
      var section = sectionFor(note.lesson);
      var item = template.content.firstElementChild.cloneNode(true);
      var link = item.querySelector(".saved-note-title a");
      var lessonLink = section.getAttribute("data-lesson") ? section.querySelector("h2 a") : null;
      if (lessonLink) {
        link.href = lessonLink.getAttribute("href") + "#" + note.anchor;
      } else if (note.url) {
        link.href = new URL(note.url, site.rootURL).href;
      } else {
        link.removeAttribute("href");
      }
      link.textContent = note.title || note.anchor;
      var meta = [];
      if (!lessonLink && note.lessonTitle) { meta.push(note.lessonTitle); }
      if (note.saved) { meta.push("saved " + site.formatTime(note.saved)); }
      item.querySelector(".saved-note-meta").textContent = meta.join(" · ");
      item.querySelector(".saved-note-text").textContent = note.text;
      if (typeof note.observed === "string" && note.observed) {
        var observed = item.querySelector(".saved-note-observed");
        observed.querySelector("pre").textContent = note.observed;
        observed.hidden = false;
      }
      section.querySelector(".saved-notes").appendChild(item);
      section.hidden = false;
    });
    empty.hidden = notes.length > 0;
    exportButton.disabled = notes.length === 0;
  }

  function say(text) {
    message.textContent = text;
    undo.hidden = true;
  }

  exportButton.addEventListener("click", function () {
    var notes = site.portfolio.all();
    var data = {
      format: FORMAT, version: 1, course: site.course, exported: new Date().toISOString(),
      notes: notes
    };
    var blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
    var url = URL.createObjectURL(blob);
    download.href = url;
    download.download = site.course + "-my-learning-" + data.exported.slice(0, 10) + ".json";
    download.click();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    say("Exported " + site.plural(notes.length, "note") + " to " + download.download + ".");
  });

  importButton.addEventListener("click", function () { importInput.click(); });

  importInput.addEventListener("change", function () {
    var file = importInput.files && importInput.files[0];
    if (!file) { return; }
    file.text().then(function (text) {
      var data;
      try { data = JSON.parse(text); } catch (error) { throw new Error("it is not JSON"); }
      if (!data || data.format !== FORMAT || !Array.isArray(data.notes)) {
        throw new Error("it is not a My learning export");
      }
      var added = 0;
      var kept = 0;
      data.notes.forEach(function (note) {
        if (!note || typeof note.text !== "string" || !/^[a-z0-9-]+$/.test(note.lesson || "") ||
            !/^[A-Za-z0-9_.-]+$/.test(note.anchor || "")) { return; }
        var name = site.portfolio.name(note.lesson, note.anchor);
        var current = site.portfolio.read(name);
        if (current && current.text !== note.text && (current.saved || "") > (note.saved || "")) {
          kept += 1;
          return;
        }
        var copy = {};
        Object.keys(note).forEach(function (key) {
          if (key !== "lesson" && key !== "anchor") { copy[key] = note[key]; }
        });
        if (site.portfolio.write(name, copy)) { added += 1; }
      });
      render();
      say("Imported " + site.plural(added, "note") + " from " + file.name + "." +
          (kept ? " Kept " + site.plural(kept, "newer note") + " already in this browser." : ""));
    }).catch(function (error) {
      say("Could not import " + file.name + ": " + error.message + ".");
    }).then(function () { importInput.value = ""; });
  });

  saved.addEventListener("click", function (event) {
    var button = event.target.closest("[data-clear-lesson]");
    if (!button) { return; }
    var lesson = button.getAttribute("data-clear-lesson");
    var title = button.closest("section").querySelector("h2").textContent.trim();
    lastCleared = site.portfolio.clearLesson(lesson);
    render();
    say("Cleared " + site.plural(Object.keys(lastCleared).length, "note") + " from " + title + ".");
    undo.hidden = false;
    undo.focus();
  });

  undo.addEventListener("click", function () {
    if (lastCleared) { site.portfolio.restore(lastCleared); }
    lastCleared = null;
    render();
    say("Notes restored.");
    undo.hidden = true;
    exportButton.focus();
  });

  window.addEventListener("storage", render);
  tools.hidden = false;
  render();
})();
