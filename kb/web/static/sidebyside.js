// The side-by-side page: the language switcher keeps the row being read, the #R… anchor of
// the URL or else the first row on screen.
(function () {
  "use strict";
  function reading() {
    if (/^#R\w+$/.test(location.hash)) { return location.hash; }
    var rows = document.querySelectorAll(".side-by-side-table tbody tr[id]");
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getBoundingClientRect().bottom > 0) { return i ? "#" + rows[i].id : ""; }
    }
    return "";
  }
  document.querySelectorAll("nav.langs a[hreflang]").forEach(function (a) {
    a.addEventListener("click", function () { a.href = a.href.split("#")[0] + reading(); });
  });
})();
