// The search page: queries the Pagefind index built with the site (pagefind/), in the
// browser, offline. Results link to the lesson and to the sections that match.
(function () {
  "use strict";

  var rootURL = new URL(document.documentElement.getAttribute("data-root") || "./", window.location.href);
  var form = document.querySelector(".search-form");
  var input = document.getElementById("search-input");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var resultTemplate = document.getElementById("search-result-template");
  var sectionTemplate = document.getElementById("search-section-template");
  if (!form || !input || !list) { return; }

  if (window.location.protocol === "file:") {
    status.textContent = "Search needs the site to be served over HTTP, not opened as a file: " +
      "run “python -m http.server -d site” and open http://localhost:8000/search/.";
    return;
  }

  // A large site's index is in shards (coursesite/publish/searchindex.py, index_search):
  // pagefind/shards.json lists their folders, the first being pagefind/ itself, and the
  // others are merged into it. The last may be the overlay, which holds pages changed since
  // their shard was indexed: "stale" lists the ids those pages still have in their shards,
  // results to leave out.
  var stale = {};
  var loading = null;
  function pagefind() {
    if (!loading) {
      var index = new URL("pagefind/", rootURL);
      loading = fetch(new URL("shards.json", index).href).then(function (response) {
        return response.ok ? response.json() : { shards: [""] };
      }, function () {
        return { shards: [""] };
      }).then(function (list) {
        var shards = list.shards && list.shards.length ? list.shards : [""];
        (list.stale || []).forEach(function (id) { stale[id] = true; });
        // Result URLs are root-absolute: make them start at this site's folder on the host.
        var options = { baseUrl: rootURL.pathname, excerptLength: 22 };
        return import(new URL(shards[0] + "pagefind.js", index).href).then(function (module) {
          return module.options(options).then(function () {
            return Promise.all(shards.slice(1).map(function (folder) {
              return module.mergeIndex(new URL(folder, index).pathname, options);
            }));
          }).then(function () {
            return module;
          });
        });
      });
    }
    return loading;
  }

  // Pagefind excerpts are escaped text with <mark> around the matches: keep exactly that.
  function fillExcerpt(element, excerpt) {
    var parsed = new DOMParser().parseFromString("<p>" + (excerpt || "") + "</p>", "text/html");
    element.replaceChildren();
    Array.prototype.forEach.call(parsed.body.firstChild.childNodes, function (node) {
      if (node.nodeName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        element.appendChild(mark);
      } else {
        element.appendChild(document.createTextNode(node.textContent));
      }
    });
  }

  function show(results, total, query) {
    list.replaceChildren();
    results.forEach(function (data) {
      var item = resultTemplate.content.firstElementChild.cloneNode(true);
      var link = item.querySelector(".search-result-title a");
      link.href = data.url;
      link.textContent = (data.meta.number ? data.meta.number + " " : "") + (data.meta.title || data.url);
      fillExcerpt(item.querySelector(".search-excerpt"), data.excerpt);
      var sections = item.querySelector(".search-sections");
      (data.sub_results || []).filter(function (sub) {
        return sub.url.indexOf("#") > 0;
      }).slice(0, 4).forEach(function (sub) {
        var entry = sectionTemplate.content.firstElementChild.cloneNode(true);
        var anchor = entry.querySelector("a");
        anchor.href = sub.url;
        anchor.textContent = sub.title;
        fillExcerpt(entry.querySelector(".search-excerpt"), sub.excerpt);
        sections.appendChild(entry);
      });
      if (!sections.children.length) { sections.remove(); }
      list.appendChild(item);
    });
    status.textContent = total
      ? (total === 1 ? "1 lesson matches" : total + " lessons match") + " “" + query + "”."
      : "No lesson matches “" + query + "”.";
  }

  // Pagefind answers a word it has not indexed with the longest prefix it has ("xyzzyqq"
  // finds every lone "x", "checkpont" finds "check"): a result is kept only when a word it
  // marks shares most of its beginning with a word of the query. Stemming stays: "batching"
  // still finds "batches". Only the best CHECKED results are loaded to be checked.
  var CHECKED = 50;
  function sharedStart(a, b) {
    var n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) { n++; }
    return n;
  }
  function markedWords(data) {
    var excerpts = [data.excerpt || ""].concat((data.sub_results || []).map(function (sub) { return sub.excerpt || ""; }));
    var words = [];
    excerpts.forEach(function (excerpt) {
      excerpt.replace(/<mark>([^<]*)<\/mark>/g, function (_, word) { words.push(word.toLowerCase()); return ""; });
    });
    return words;
  }
  function matchesAWord(data, query) {
    var terms = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(function (term) { return term.length >= 3; });
    if (!terms.length) { return true; }
    var marked = markedWords(data);
    return terms.some(function (term) {
      return marked.some(function (word) { return sharedStart(word, term) >= Math.ceil(0.6 * term.length); });
    });
  }

  // Without the stale entries of overlaid pages, and each page once (an overlaid page
  // whose content did not change has the same id in its shard and in the overlay).
  function current(results) {
    var seen = {};
    return results.filter(function (result) {
      if (stale[result.id] || seen[result.id]) { return false; }
      seen[result.id] = true;
      return true;
    });
  }

  var latest = 0;
  function run(query) {
    var id = ++latest;
    query = query.trim();
    if (!query) {
      list.replaceChildren();
      status.textContent = "";
      return;
    }
    status.textContent = "Searching…";
    pagefind().then(function (module) {
      return module.search(query);
    }).then(function (search) {
      if (id !== latest) { return null; }
      return Promise.all(current(search.results).slice(0, CHECKED).map(function (result) { return result.data(); }))
        .then(function (results) {
          var found = results.filter(function (data) { return matchesAWord(data, query); });
          if (id === latest) { show(found.slice(0, 10), found.length, query); }
        });
    }).catch(function (error) {
      if (id === latest) { status.textContent = "Search could not load its index (" + error.message + ")."; }
    });
  }

  function remember(query) {
    var url = new URL(window.location.href);
    if (query) { url.searchParams.set("q", query); } else { url.searchParams.delete("q"); }
    window.history.replaceState(null, "", url.href);
  }

  var timer = null;
  input.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      remember(input.value.trim());
      run(input.value);
    }, 200);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    window.clearTimeout(timer);
    remember(input.value.trim());
    run(input.value);
  });

  // A query in the address (a shared link), or typed before this script ran.
  var initial = new URL(window.location.href).searchParams.get("q");
  if (initial && !input.value.trim()) { input.value = initial; }
  if (input.value.trim()) { run(input.value); }
  pagefind().catch(function () { /* reported when a search runs */ });
})();
