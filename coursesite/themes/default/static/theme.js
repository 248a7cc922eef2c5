// Runs in <head> before the page is drawn: marks that JavaScript runs and applies the theme
// the reader chose (site.js owns the toggle). Without a choice the system theme applies.
(function () {
  "use strict";
  var html = document.documentElement;
  html.classList.add("js");
  try {
    var theme = window.localStorage.getItem("coursesite:" + html.getAttribute("data-course") + ":theme");
    if (theme === "light" || theme === "dark") {
      html.setAttribute("data-theme", theme);
    }
  } catch (error) {
    // Storage is unavailable (a privacy setting): the system theme applies.
  }
})();
