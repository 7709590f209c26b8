(function () {
  var v = document.getElementById("filter-verdict"), s = document.getElementById("filter-stratum");
  var shown = document.getElementById("shown-count");
  function apply() {
    var n = 0;
    document.querySelectorAll("section.question").forEach(function (el) {
      var ok = (!v.value || el.dataset.verdict === v.value) && (!s.value || el.dataset.stratum === s.value);
      el.hidden = !ok; if (ok) { n++; }
    });
    shown.textContent = n + " shown";
  }
  v.addEventListener("change", apply); s.addEventListener("change", apply);
}());
