// Enhancements for every page. The pages are complete without this file: it adds the theme
// toggle, heading links, copy buttons, setup tabs, the stage strip, the "On this page"
// marker, quiz feedback and the portfolio (notes saved in this browser). Markup comes from
// the templates; this file only adds the few controls that mean nothing without JavaScript.
(function () {
  "use strict";

  var html = document.documentElement;
  var course = html.getAttribute("data-course") || "course";
  var rootURL = new URL(html.getAttribute("data-root") || "./", window.location.href);
  var PREFIX = "coursesite:" + course + ":";

  // localStorage, namespaced by course; every call survives storage being unavailable.
  var storage = {
    get: function (name) {
      try { return window.localStorage.getItem(PREFIX + name); } catch (error) { return null; }
    },
    set: function (name, value) {
      try { window.localStorage.setItem(PREFIX + name, value); return true; } catch (error) { return false; }
    },
    remove: function (name) {
      try { window.localStorage.removeItem(PREFIX + name); return true; } catch (error) { return false; }
    },
    // Whether anything can be saved: a privacy setting or a full quota makes writes fail.
    usable: function () {
      var works = storage.set("probe", "1");
      storage.remove("probe");
      return works;
    },
    names: function () {
      var names = [];
      try {
        for (var i = 0; i < window.localStorage.length; i++) {
          var key = window.localStorage.key(i);
          if (key && key.indexOf(PREFIX) === 0) { names.push(key.slice(PREFIX.length)); }
        }
      } catch (error) { /* no storage: nothing saved */ }
      return names;
    }
  };

  // Portfolio notes are stored under "<lesson slug>:<anchor>"; other names have no colon
  // (theme, shell) or two ("opened:<lesson slug>:<anchor>", a predict gate the reader opened).
  var portfolio = {
    name: function (lesson, anchor) { return lesson + ":" + anchor; },
    read: function (name) {
      var raw = storage.get(name);
      if (raw === null) { return null; }
      try {
        var note = JSON.parse(raw);
        if (note && typeof note.text === "string") { return note; }
      } catch (error) { /* stored by hand: keep it as text */ }
      return { text: raw };
    },
    write: function (name, note) { return storage.set(name, JSON.stringify(note)); },
    all: function () {
      return storage.names().filter(function (name) {
        return /^[a-z0-9-]+:[A-Za-z0-9_.-]+$/.test(name);
      }).map(function (name) {
        var parts = name.split(":");
        var note = portfolio.read(name) || { text: "" };
        note.lesson = parts[0];
        note.anchor = parts[1];
        return note;
      });
    },
    clearLesson: function (lesson) {
      var removed = {};
      storage.names().forEach(function (name) {
        if (name.indexOf(lesson + ":") === 0) {
          removed[name] = storage.get(name);
          storage.remove(name);
        }
      });
      return removed;
    },
    restore: function (removed) {
      Object.keys(removed).forEach(function (name) { storage.set(name, removed[name]); });
    }
  };

  function formatTime(iso) {
    var date = new Date(iso);
    if (isNaN(date.getTime())) { return ""; }
    return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }

  window.CourseSite = {
    course: course, rootURL: rootURL, storage: storage, portfolio: portfolio,
    formatTime: formatTime, plural: plural
  };

  // Theme: follows the system until the reader picks one; the choice is remembered.
  function setupThemeToggle() {
    var button = document.querySelector(".theme-toggle");
    if (!button) { return; }
    var system = window.matchMedia("(prefers-color-scheme: dark)");
    function isDark() {
      var chosen = html.getAttribute("data-theme");
      return chosen ? chosen === "dark" : system.matches;
    }
    function show() { button.setAttribute("aria-pressed", isDark() ? "true" : "false"); }
    button.addEventListener("click", function () {
      var theme = isDark() ? "light" : "dark";
      html.setAttribute("data-theme", theme);
      storage.set("theme", theme);
      show();
    });
    if (system.addEventListener) { system.addEventListener("change", show); }
    button.hidden = false;
    show();
  }

  // A "#" link on every heading that has an anchor (the section's id when the heading
  // names a section).
  function addHeadingLinks() {
    var headings = document.querySelectorAll("main h2[id], main h3[id], main h4[id]");
    Array.prototype.forEach.call(headings, function (heading) {
      var id = heading.id;
      var parent = heading.parentElement;
      if (/-title$/.test(id) && parent && parent.id === id.replace(/-title$/, "")) { id = parent.id; }
      var link = document.createElement("a");
      link.className = "heading-anchor";
      link.href = "#" + id;
      link.textContent = "#";
      link.setAttribute("aria-hidden", "true");
      link.tabIndex = -1;
      heading.appendChild(link);
    });
  }

  // Copy buttons: the code alone, as written (outputs are separate blocks).
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var done = document.execCommand("copy");
      area.remove();
      if (done) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  function addCopyButtons() {
    var blocks = document.querySelectorAll(".code-block pre, .setup-tabs pre");
    Array.prototype.forEach.call(blocks, function (pre) {
      var code = pre.querySelector("code") || pre;
      var bar = pre.previousElementSibling;
      if (!bar || !bar.classList.contains("code-label")) {
        bar = document.createElement("div");
        bar.className = "code-bar";
        pre.parentNode.insertBefore(bar, pre);
      }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy code" + (bar.textContent.trim() ? ": " + bar.textContent.trim() : ""));
      var timer = null;
      button.addEventListener("click", function () {
        copyText(code.textContent.replace(/\n+$/, "")).then(function () {
          button.textContent = "Copied";
          button.setAttribute("data-copied", "");
        }, function () {
          button.textContent = "Select and copy";
        }).then(function () {
          window.clearTimeout(timer);
          timer = window.setTimeout(function () {
            button.textContent = "Copy";
            button.removeAttribute("data-copied");
          }, 2000);
        });
      });
      bar.appendChild(button);
    });
  }

  // A heading's own words, without the "#" link addHeadingLinks gave it.
  function headingText(heading) {
    var copy = heading.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll(".heading-anchor"), function (link) {
      link.remove();
    });
    return copy.textContent.trim();
  }

  // Setup help as tabs (one per shell); the choice is remembered across pages.
  function setupTabs() {
    var groups = document.querySelectorAll(".setup-tabs");
    Array.prototype.forEach.call(groups, function (group) {
      var panels = Array.prototype.filter.call(group.children, function (child) {
        return child.matches("section[aria-labelledby]");
      });
      if (panels.length < 2) { return; }
      var tablist = document.createElement("div");
      tablist.className = "tablist";
      tablist.setAttribute("role", "tablist");
      tablist.setAttribute("aria-label", "Your shell");
      var tabs = panels.map(function (panel) {
        var heading = document.getElementById(panel.getAttribute("aria-labelledby"));
        var key = heading.id;
        var tab = document.createElement("button");
        tab.type = "button";
        tab.className = "tab";
        tab.id = key + "-tab";
        tab.setAttribute("role", "tab");
        tab.setAttribute("data-key", key);
        tab.textContent = headingText(heading);
        panel.id = panel.id || key + "-panel";
        tab.setAttribute("aria-controls", panel.id);
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", tab.id);
        panel.tabIndex = 0;
        heading.classList.add("visually-hidden", "tab-heading");
        tablist.appendChild(tab);
        return tab;
      });
      function select(key, remember, focus) {
        var found = tabs.some(function (tab) { return tab.getAttribute("data-key") === key; });
        if (!found) { key = tabs[0].getAttribute("data-key"); }
        tabs.forEach(function (tab, index) {
          var on = tab.getAttribute("data-key") === key;
          tab.setAttribute("aria-selected", on ? "true" : "false");
          tab.tabIndex = on ? 0 : -1;
          panels[index].hidden = !on;
          if (on && focus) { tab.focus(); }
        });
        if (remember) { storage.set("setup-shell", key); }
      }
      tablist.addEventListener("click", function (event) {
        var tab = event.target.closest("[role=tab]");
        if (tab) { select(tab.getAttribute("data-key"), true, false); }
      });
      tablist.addEventListener("keydown", function (event) {
        var index = tabs.indexOf(document.activeElement);
        if (index < 0) { return; }
        var next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
        if (next === undefined) { return; }
        event.preventDefault();
        next = (next + tabs.length) % tabs.length;
        select(tabs[next].getAttribute("data-key"), true, true);
      });
      group.insertBefore(tablist, group.firstChild);
      group.classList.add("is-tabbed");
      var windows = /Win/i.test(navigator.platform || "");
      var fallback = windows && tabs.length > 1 ? tabs[1].getAttribute("data-key") : tabs[0].getAttribute("data-key");
      select(storage.get("setup-shell") || fallback, false, false);
    });
  }

  // Where reading is: a line in the upper third of what the stage strip leaves visible. The
  // strip and "On this page" both call current what has passed it, so they always agree.
  function readingLine() {
    var nav = document.querySelector(".stage-nav");
    var strip = nav ? nav.getBoundingClientRect().height : 0;
    return strip + (window.innerHeight - strip) / 3;
  }

  // Runs `update` now and after each scroll or resize, at most once a frame.
  function followScrolling(update) {
    var queued = false;
    function schedule() {
      if (queued) { return; }
      queued = true;
      window.requestAnimationFrame(function () { queued = false; update(); });
    }
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    update();
  }

  // The stage strip follows scrolling: "Stage 2 of 5 · Build & Run", the stage marked.
  function setupStageStrip() {
    var nav = document.querySelector(".stage-nav");
    if (!nav) { return; }
    var links = Array.prototype.slice.call(nav.querySelectorAll("a[href^='#']"));
    var stages = links.map(function (link) { return document.getElementById(link.getAttribute("href").slice(1)); });
    var label = nav.querySelector(".stage-current");
    var count = label && label.querySelector(".stage-count");
    var now = label && label.querySelector(".stage-now");
    if (!count || !now || stages.some(function (stage) { return !stage; })) { return; }
    label.hidden = false;
    var current = -1;
    function update() {
      // The current stage is the last one whose title has reached the reading line: once a
      // stage's title is near the top, the strip names it.
      var offset = readingLine();
      var index = 0;
      stages.forEach(function (stage, position) {
        if (stage.getBoundingClientRect().top <= offset) { index = position; }
      });
      var bottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      var last = stages[stages.length - 1].getBoundingClientRect();
      if (bottom && last.top < window.innerHeight) { index = stages.length - 1; }
      if (index === current) { return; }
      current = index;
      links.forEach(function (link, position) {
        if (position === index) { link.setAttribute("aria-current", "step"); } else { link.removeAttribute("aria-current"); }
        link.classList.toggle("is-passed", position < index);
      });
      // "Stage 2 of 5 · " and "Build & Run": narrow screens show only the name.
      var text = links[index].getAttribute("data-stage-label");
      var split = text.indexOf(" · ") + 3;
      count.textContent = text.slice(0, split);
      now.textContent = text.slice(split);
    }
    followScrolling(update);
  }

  // "On this page": the section being read is marked (aria-current="location") in both
  // lists (the side column and the collapsed one), as the page scrolls.
  function setupPageContents() {
    var lists = document.querySelectorAll("[data-page-contents]");
    if (!lists.length) { return; }
    var first = Array.prototype.slice.call(lists[0].querySelectorAll("a[href^='#']"));
    var hrefs = first.map(function (link) { return link.getAttribute("href"); });
    var targets = hrefs.map(function (href) { return document.getElementById(href.slice(1)); });
    if (targets.some(function (target) { return !target; })) { return; }
    var current = null;
    function update() {
      // As for the stage strip: a section is current once its top has passed the reading
      // line; at the very bottom of the page, the last one is.
      var offset = readingLine();
      var index = -1;
      targets.forEach(function (target, position) {
        if (target.getBoundingClientRect().top <= offset) { index = position; }
      });
      var bottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      if (bottom && targets[targets.length - 1].getBoundingClientRect().top < window.innerHeight) {
        index = targets.length - 1;
      }
      var href = index < 0 ? null : hrefs[index];
      if (href === current) { return; }
      current = href;
      Array.prototype.forEach.call(lists, function (list) {
        Array.prototype.forEach.call(list.querySelectorAll("a[href^='#']"), function (link) {
          if (link.getAttribute("href") === href) { link.setAttribute("aria-current", "location"); } else { link.removeAttribute("aria-current"); }
        });
      });
    }
    followScrolling(update);
  }

  // Check your understanding: right/wrong feedback; a right answer opens the explanation.
  function setupQuizzes() {
    var forms = document.querySelectorAll("form[data-quiz]");
    Array.prototype.forEach.call(forms, function (form) {
      var feedback = form.querySelector(".quiz-feedback");
      var actions = form.querySelector(".quiz-actions");
      var answer = form.parentElement.querySelector("details.answer");
      var choices = Array.prototype.slice.call(form.querySelectorAll("input[type=radio]"));
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var picked = choices.filter(function (choice) { return choice.checked; })[0];
        choices.forEach(function (choice) {
          var item = choice.closest("li");
          item.classList.remove("is-right", "is-wrong");
          var why = item.querySelector(".choice-feedback");
          if (why) { why.hidden = true; }
        });
        feedback.classList.remove("is-right", "is-wrong");
        if (!picked) {
          feedback.textContent = "Pick an answer first.";
          return;
        }
        var number = choices.indexOf(picked) + 1;
        var right = picked.hasAttribute("data-correct");
        picked.closest("li").classList.add(right ? "is-right" : "is-wrong");
        var reason = picked.closest("li").querySelector(".choice-feedback");
        if (reason) { reason.hidden = false; }
        feedback.classList.add(right ? "is-right" : "is-wrong");
        if (right) {
          feedback.textContent = "Correct: answer " + number + ". The explanation is open below.";
          if (answer) { answer.open = true; }
        } else {
          feedback.textContent = "Not quite: answer " + number + " is not it" + (reason ? ", and the note under it says why" : "") + ". Try another, or open the explanation below.";
        }
      });
      form.addEventListener("change", function () {
        feedback.textContent = "";
        feedback.classList.remove("is-right", "is-wrong");
        choices.forEach(function (choice) {
          var item = choice.closest("li");
          item.classList.remove("is-right", "is-wrong");
          var why = item.querySelector(".choice-feedback");
          if (why) { why.hidden = true; }
        });
      });
      actions.hidden = false;
    });
  }

  // Predict, then see: an experiment's output or a figure waits (style.css hides it from the
  // first paint) until the reader writes a prediction or skips. Opening is remembered, and
  // what the lesson showed is kept beside the prediction for My learning.
  function setupPredictGates() {
    var article = document.querySelector("article[data-lesson]");
    var gates = article ? article.querySelectorAll("[data-predict-gate]") : [];
    if (!gates.length) { return; }
    var lesson = article.getAttribute("data-lesson");
    var canSave = storage.usable();
    Array.prototype.forEach.call(gates, function (gate) {
      var name = portfolio.name(lesson, gate.getAttribute("data-predict-gate"));
      var opened = "opened:" + name;
      var outcome = gate.querySelector(".gated");
      var area = gate.querySelector(".portfolio textarea");
      var status = gate.querySelector(".gate-status");
      function open(focus) {
        gate.classList.add("is-open");
        storage.set(opened, "1");
        area.dispatchEvent(new Event("blur"));  // a prediction still being saved is saved now
        var note = portfolio.read(name);
        if (note && note.text.trim()) {
          note.observed = gate.getAttribute("data-observed");
          portfolio.write(name, note);
        }
        if (focus) { outcome.focus(); }
      }
      if (canSave) { offerChoices(gate, area); }
      if (!canSave || storage.get(opened) === "1") {
        gate.classList.add("is-open");  // nowhere to write a prediction, or predicted before
        return;
      }
      gate.querySelector("[data-gate-show]").addEventListener("click", function () {
        if (area.value.trim()) { open(true); return; }
        status.textContent = "Write your prediction first, or choose “Show without predicting”.";
        area.focus();
      });
      gate.querySelector("[data-gate-skip]").addEventListener("click", function () { open(true); });
      function openIfTarget() {
        var target = window.location.hash ? document.getElementById(window.location.hash.slice(1)) : null;
        if (target && outcome.contains(target)) { open(false); target.scrollIntoView(); }
      }
      openIfTarget();
      window.addEventListener("hashchange", openIfTarget);
    });
  }

  // A gate's choices write the picked one as the first line of the prediction ("Picked: …"),
  // keeping what the reader wrote under it; the portfolio saves it as typed text.
  function offerChoices(gate, area) {
    var choices = gate.querySelector(".prediction-choices");
    if (!choices) { return; }
    var picked = /^Picked: (.*)$/m;
    var radios = Array.prototype.slice.call(choices.querySelectorAll("input[type=radio]"));
    var first = area.value.split("\n")[0].match(picked);
    radios.forEach(function (radio) {
      radio.checked = Boolean(first) && first[1] === radio.value;
      radio.addEventListener("change", function () {
        var rest = area.value.split("\n");
        if (picked.test(rest[0])) { rest.shift(); }
        area.value = ["Picked: " + radio.value].concat(rest.filter(function (line, i) {
          return i > 0 || line.trim();
        })).join("\n");
        area.dispatchEvent(new Event("input"));
      });
    });
    choices.hidden = false;
  }

  // The portfolio: a text area on each exercise and on the evidence, saved as you type.
  function setupPortfolio() {
    var article = document.querySelector("article[data-lesson]");
    if (!article) { return; }
    var lesson = article.getAttribute("data-lesson");
    var lessonTitle = article.getAttribute("data-lesson-title") || document.title;
    var pagePath = window.location.pathname.indexOf(rootURL.pathname) === 0
      ? window.location.pathname.slice(rootURL.pathname.length) : "";
    var boxes = Array.prototype.slice.call(article.querySelectorAll(".portfolio[data-portfolio]"));
    if (!boxes.length) { return; }
    if (!storage.usable()) {
      return;  // nowhere to save: leave the boxes hidden rather than lose what is typed
    }

    var areas = boxes.map(function (box) {
      var anchor = box.getAttribute("data-portfolio");
      var name = portfolio.name(lesson, anchor);
      var area = box.querySelector("textarea");
      var status = box.querySelector(".portfolio-status");
      var timer = null;
      function showSaved(note) {
        status.textContent = note && note.saved
          ? "Saved in this browser, " + formatTime(note.saved) + "."
          : "Saved in this browser as you type.";
      }
      function save() {
        window.clearTimeout(timer);
        timer = null;
        var text = area.value;
        if (!text.trim()) {
          storage.remove(name);
          status.textContent = "Nothing saved for this box.";
          return;
        }
        var note = {
          text: text, saved: new Date().toISOString(), title: box.getAttribute("data-portfolio-title"),
          lessonTitle: lessonTitle, url: pagePath + "#" + anchor
        };
        var gate = box.closest("[data-predict-gate]");
        if (gate && gate.classList.contains("is-open")) {
          note.observed = gate.getAttribute("data-observed");  // a prediction, once compared
        }
        if (portfolio.write(name, note)) { showSaved(note); } else { status.textContent = "Could not save: this browser’s storage is full or blocked."; }
      }
      area.addEventListener("input", function () {
        status.textContent = "Saving…";
        window.clearTimeout(timer);
        timer = window.setTimeout(save, 400);
      });
      area.addEventListener("blur", function () { if (timer) { save(); } });
      window.addEventListener("pagehide", function () { if (timer) { save(); } });
      function load() {
        var note = portfolio.read(name);
        area.value = note ? note.text : "";
        showSaved(note);
      }
      load();
      box.hidden = false;
      return { load: load };
    });

    var tools = article.querySelector(".portfolio-lesson");
    if (!tools) { return; }
    var clear = tools.querySelector("[data-portfolio-clear]");
    var undo = tools.querySelector("[data-portfolio-undo]");
    var message = tools.querySelector(".portfolio-clear-status");
    var removed = null;
    clear.addEventListener("click", function () {
      removed = portfolio.clearLesson(lesson);
      var count = Object.keys(removed).length;
      areas.forEach(function (area) { area.load(); });
      message.textContent = count ? "Cleared " + plural(count, "note") + " from this lesson." : "There were no saved notes on this lesson.";
      if (undo) { undo.hidden = !count; }
    });
    if (undo) {
      undo.addEventListener("click", function () {
        if (removed) { portfolio.restore(removed); }
        removed = null;
        areas.forEach(function (area) { area.load(); });
        message.textContent = "Notes restored.";
        undo.hidden = true;
      });
    }
    tools.hidden = false;
  }

  // Code, output, tables and display formulas that scroll sideways take keyboard focus, so
  // that they can be scrolled without a mouse. Checked again when a collapsed block opens
  // and when the page resizes.
  // A block wider than its column also says so: its cut edge fades (style.css, .scrolls)
  // until it is scrolled to that end.
  function focusWideBlocks() {
    function edges(block) {
      var left = block.scrollLeft > 1;
      var right = block.scrollLeft + block.clientWidth < block.scrollWidth - 1;
      block.classList.toggle("scrolls-left", left);
      block.classList.toggle("scrolls-right", right);
    }
    function mark() {
      var wide = document.querySelectorAll("pre, table, math[display='block'], .output-html");
      Array.prototype.forEach.call(wide, function (block) {
        var scrolls = block.scrollWidth > block.clientWidth + 1;
        if (scrolls && !block.hasAttribute("tabindex")) {
          block.setAttribute("tabindex", "0");
          block.setAttribute("data-scroll-focus", "");
        } else if (!scrolls && block.hasAttribute("data-scroll-focus")) {
          block.removeAttribute("tabindex");
          block.removeAttribute("data-scroll-focus");
        }
        block.classList.toggle("scrolls", scrolls);
        if (scrolls && !block.hasAttribute("data-scroll-edges")) {
          block.setAttribute("data-scroll-edges", "");
          block.addEventListener("scroll", function () { edges(block); }, { passive: true });
        }
        edges(block);
      });
    }
    document.addEventListener("toggle", mark, true);
    window.addEventListener("resize", mark);
    mark();
  }

  // Printing expands every collapsed block (print.css does too, where the browser allows).
  function setupPrint() {
    var opened = [];
    window.addEventListener("beforeprint", function () {
      opened = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (details) {
        details.open = true;
        return true;
      });
    });
    window.addEventListener("afterprint", function () {
      opened.forEach(function (details) { details.open = false; });
      opened = [];
    });
  }

  // A link to a place inside a collapsed block (a figure's "Code", a solution) opens the
  // blocks around it, so the reader lands on what the link names.
  function openLinkTargets() {
    function openAround() {
      var id = decodeURIComponent(window.location.hash.slice(1));
      var target = id && document.getElementById(id);
      for (var block = target; block; block = block.parentElement) {
        if (block.tagName === "DETAILS") { block.open = true; }
      }
      if (target && target.tagName === "DETAILS") { target.scrollIntoView(); }
    }
    window.addEventListener("hashchange", openAround);
    openAround();
  }

  setupThemeToggle();
  openLinkTargets();
  addHeadingLinks();
  addCopyButtons();
  setupTabs();
  setupStageStrip();
  setupPageContents();
  setupQuizzes();
  setupPortfolio();
  setupPredictGates();
  setupPrint();
  focusWideBlocks();
})();
