(function () {
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  var search = document.getElementById("search"), shown = document.getElementById("shown-count");
  var questions = Array.prototype.slice.call(document.querySelectorAll("section.question"));
  var text = questions.map(function (el) {
    return Array.prototype.map.call(el.querySelectorAll(".q-id, .q-text, .q-sql"), function (n) {
      return n.textContent;
    }).join("\n").toLowerCase();
  });
  function apply() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean), n = 0;
    questions.forEach(function (el, i) {
      var ok = selects.every(function (s) {
        return !s.value || el.getAttribute("data-" + s.getAttribute("data-filter")) === s.value;
      }) && words.every(function (w) { return text[i].indexOf(w) !== -1; });
      el.hidden = !ok; if (ok) { n++; }
    });
    shown.textContent = n + " shown";
  }
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  search.addEventListener("input", apply);
  var bar = document.querySelector(".filters");
  function fit() {  // what a link scrolls to stops below the sticky bar (CSS: scroll-margin-top), however tall it wraps
    if (bar) { document.documentElement.style.setProperty("--bar", bar.offsetHeight + "px"); }
  }
  window.addEventListener("resize", fit);
  fit();
  function openTarget() {  // a link to a question (#q-ID) opens its card, collapsed or not, its header in view
    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) { return; }
    if (el.matches("section.question")) { el.querySelector("details").open = true; }
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
}());
