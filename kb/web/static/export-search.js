// Static export only: search in the browser with Pagefind (one index per interface language).
// The server's search (filters, cross-language queries, linkify) needs `kb serve`; the page says so.
(function () {
  "use strict";
  var form = document.getElementById("export-search");
  if (!form) { return; }
  var strings = JSON.parse(form.dataset.strings || "{}");
  var input = form.querySelector("input[name=q]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var goto = document.getElementById("search-goto");
  var locale = form.dataset.locale;
  var pagefind = null;

  function say(template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, function (_, k) { return values[k]; });
  }

  // Same spellings the server's number parser takes: 117.3a, rule 117.3a, １１７．３ａ.
  function ruleNumber(text) {
    var t = String(text || "").normalize("NFKC").trim().toLowerCase();
    t = t.replace(/^(rules?|règles?|regles?|ルール|総合ルール)\s*/, "").replace(/\s+/g, "");
    var m = /^(\d{3})(?:\.(\d{1,3})([a-z]?))?\.?$/.exec(t) || /^(\d)\.?$/.exec(t);
    if (!m) { return null; }
    return m[1] + (m[2] ? "." + m[2] + (m[3] || "") : "");
  }

  function pageUrl(url) {
    // Pagefind gives folder URLs (/en/rules/117.3b/); the site's pages have none of that slash.
    return url.length > 1 && url.charAt(url.length - 1) === "/" ? url.slice(0, -1) : url;
  }

  function load() {
    if (!pagefind) {
      pagefind = import(form.dataset.bundle + "pagefind.js").then(function (pf) {
        return pf.options({ baseUrl: "/" }).then(function () { return pf; });
      });
    }
    return pagefind;
  }

  function render(query) {
    list.textContent = "";
    var number = ruleNumber(query);
    goto.hidden = !number;
    if (number) {
      var a = goto.querySelector("a");
      a.href = "/r/" + encodeURIComponent(number) + "?lang=" + encodeURIComponent(locale);
      a.textContent = say(strings.goto, { n: number });
    }
    if (!query.trim()) { status.textContent = ""; return; }
    status.textContent = strings.loading;
    load().then(function (pf) {
      return pf.search(query);
    }).then(function (search) {
      return Promise.all(search.results.slice(0, 30).map(function (r) { return r.data(); }))
        .then(function (items) { return [search.results.length, items]; });
    }).then(function (found) {
      var total = found[0], items = found[1];
      status.textContent = total ? say(strings.results, { n: total, q: query }) : say(strings.none, { q: query });
      items.forEach(function (item) {
        var li = document.createElement("li");
        li.className = "result";
        var h = document.createElement("h2");
        var a = document.createElement("a");
        a.href = pageUrl(item.url);
        a.textContent = (item.meta && item.meta.title) || item.url;
        h.appendChild(a);
        var p = document.createElement("p");
        p.className = "snippet";
        p.innerHTML = item.excerpt;  // Pagefind's excerpt: escaped page text with <mark> only
        li.appendChild(h);
        li.appendChild(p);
        list.appendChild(li);
      });
    }).catch(function () {
      status.textContent = strings.unavailable;
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var q = input.value;
    history.replaceState(null, "", location.pathname + (q ? "?q=" + encodeURIComponent(q) : ""));
    render(q);
  });
  var initial = new URLSearchParams(location.search).get("q") || "";
  input.value = initial;
  if (initial) { render(initial); }
})();
