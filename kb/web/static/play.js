// The playground (/<locale>/play): runs the scenario through POST /api/run without leaving the
// page, shows the answer as the server renders it, and keeps the address at the scenario's
// permalink. Without this script the form posts to the page and the server answers the same.
(function () {
  "use strict";
  var form = document.querySelector("form.play");
  if (!form || !window.fetch) return;
  var area = form.querySelector("textarea");
  var button = form.querySelector("button[type=submit]");
  var permalink = document.getElementById("play-permalink");
  var tooLong = document.getElementById("play-long");
  var out = document.getElementById("play-result");

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fill(template, key, value) { return template.split("{" + key + "}").join(value); }

  function ruleLinks(rules) {
    var span = el("span", { class: "cites" });
    span.appendChild(document.createTextNode("("));
    rules.forEach(function (r, i) {
      if (i) span.appendChild(document.createTextNode(", "));
      span.appendChild(r.url ? el("a", { class: "ref", href: r.url, "data-rule": r.number }, r.number)
                             : el("span", { class: "ref" }, r.number));
    });
    span.appendChild(document.createTextNode(")"));
    return span;
  }

  function selectLine(n) {
    var lines = area.value.split("\n");
    var start = 0;
    for (var i = 0; i < n - 1 && i < lines.length; i++) start += lines[i].length + 1;
    area.focus();
    area.setSelectionRange(start, start + (lines[n - 1] || "").length);
  }

  function render(data) {
    var title = out.getAttribute("data-title-result");
    out.textContent = "";
    out.hidden = false;
    out.appendChild(el("h2", { id: "h-result" }, title));
    if (!data.ok) {
      out.appendChild(el("p", { class: "notice play-summary", role: "alert" }, data.error_local || data.error));
      return;
    }
    var summary = el("p", { class: "play-summary " + (data.passed ? "pass" : "fail"), "data-outcome": data.outcome }, data.message_local);
    out.appendChild(summary);
    if (data.problems.length) {
      out.appendChild(el("h3", {}, out.getAttribute("data-title-problems")));
      var ul = el("ul", { class: "play-problems", lang: "en" });
      data.problems.forEach(function (p) {
        var li = el("li");
        if (p.line) {
          var a = el("a", { href: "#scenario", "data-line": p.line }, fill(out.getAttribute("data-line"), "n", p.line));
          li.appendChild(a);
          li.appendChild(document.createTextNode(": "));
        }
        li.appendChild(document.createTextNode(p.message));
        ul.appendChild(li);
      });
      out.appendChild(ul);
    }
    if (data.events.length) {
      out.appendChild(el("h3", {}, out.getAttribute("data-title-trace")));
      var ol = el("ol", { class: "trace play-trace", lang: "en" });
      data.events.forEach(function (e) {
        var li = el("li", { value: e.seq });
        li.appendChild(el("span", { class: "where" }, "[" + e.where + "]"));
        li.appendChild(document.createTextNode(" " + e.text));
        if (e.rules.length) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(ruleLinks(e.rules));
        }
        ol.appendChild(li);
      });
      out.appendChild(ol);
      if (data.events_left_out) {
        out.appendChild(el("p", { class: "meta" }, fill(out.getAttribute("data-left-out"), "n", data.events_left_out)));
      }
    }
    if (data.permalink) {
      permalink.href = data.permalink;
      permalink.hidden = false;
      tooLong.hidden = true;
      history.replaceState(null, "", data.permalink);
    } else {
      permalink.hidden = true;
      tooLong.hidden = false;
    }
  }

  out.addEventListener("click", function (event) {
    var a = event.target.closest && event.target.closest("a[data-line]");
    if (!a) return;
    event.preventDefault();
    selectLine(parseInt(a.getAttribute("data-line"), 10));
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    out.setAttribute("aria-busy", "true");
    fetch(form.getAttribute("data-run-url"), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ scenario: area.value, locale: form.getAttribute("data-locale") })
    }).then(function (response) {
      return response.json().catch(function () {
        return { ok: false, error: fill(out.getAttribute("data-failed"), "status", response.status) };
      });
    }).then(render, function () {
      render({ ok: false, error: fill(out.getAttribute("data-failed"), "status", "network") });
    }).then(function () {
      button.disabled = false;
      out.removeAttribute("aria-busy");
    });
  });

  area.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit() : button.click();
    }
  });
})();
