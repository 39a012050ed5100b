// Small enhancements only: every page works without this script.
(function () {
  "use strict";

  // Yawgatog-style anchors (#R1173a) never reach the server: send them to /r/117.3a, the
  // dotted number a static export has a page for too (it can't resolve /r/R1173a itself).
  var map = document.getElementById("anchor-map");
  var anchor = map && /^#R(\d{3})(\d{0,3})([a-z]?)$/i.exec(location.hash);
  if (anchor) {
    var number = anchor[1] + (anchor[2] ? "." + anchor[2] : "") + anchor[3].toLowerCase();
    location.replace(map.dataset.target + encodeURIComponent(number) +
      "?lang=" + encodeURIComponent(map.dataset.lang));
    return;
  }

  // "Copy link": the absolute permalink to the clipboard.
  document.querySelectorAll("button.copy-link").forEach(function (btn) {
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var url = new URL(btn.dataset.href, location.href).href;
      var done = function () { btn.textContent = btn.dataset.done; };
      if (navigator.clipboard) { navigator.clipboard.writeText(url).then(done, done); } else { done(); }
    });
  });

  // Hover previews of references and glossary terms, from the lists on the page (else fetched JSON).
  var previews = {};
  document.querySelectorAll("[data-preview]").forEach(function (li) {
    var text = li.querySelector(".preview-text");
    var title = li.querySelector("a");
    previews[li.dataset.preview] = (title ? title.textContent.trim() + " — " : "") + (text ? text.textContent : "");
  });
  var terms = {};
  document.querySelectorAll("dl.terms dt[data-term]").forEach(function (dt) {
    var dd = dt.nextElementSibling;
    terms[dt.dataset.term] = dt.textContent.trim() + ": " + (dd ? dd.textContent : "");
  });
  var pop = null;
  function hide() { if (pop) { pop.remove(); pop = null; } }
  function show(link, text) {
    hide();
    pop = document.createElement("div");
    pop.className = "popover";
    pop.setAttribute("role", "tooltip");
    pop.id = "popover";
    pop.textContent = text;
    document.body.appendChild(pop);
    var r = link.getBoundingClientRect();
    pop.style.left = Math.max(4, Math.min(r.left + scrollX, scrollX + document.documentElement.clientWidth - pop.offsetWidth - 4)) + "px";
    pop.style.top = (r.bottom + scrollY + 6) + "px";
    link.setAttribute("aria-describedby", "popover");
  }
  function lookup(link) {
    var isTerm = link.classList.contains("term");
    var path = link.getAttribute("href").split("#")[0];
    var known = isTerm ? terms[link.dataset.term] : previews[path];
    if (known) { show(link, known); return; }
    if (path.charAt(0) !== "/") { return; }
    // Not listed on the page: ask the page's JSON twin (same origin, so it works offline).
    fetch(path + ".json", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        var text = null;
        if (data && data.rule) {
          text = data.rule.number + " " + (data.rule.title || "") + " — " + data.rule.text.slice(0, 280);
          previews[path] = text;
        } else if (data && data.entry) {
          text = data.entry.term + ": " + data.entry.definition.slice(0, 280);
          terms[link.dataset.term] = text;
        } else if (data && data.card) {
          // A card named in a rule (a build with cards): its type line and Oracle text.
          text = data.card.name + " — " + data.card.faces.map(function (f) {
            return f.type_line + ": " + f.text;
          }).join(" // ").slice(0, 280);
          terms[link.dataset.term] = text;
        }
        if (text) { show(link, text); }
      })
      .catch(function () {});
  }
  function onEnter(ev) {
    var link = ev.target.closest && ev.target.closest("a.ref, a.term");
    if (link) { lookup(link); }
  }
  function onLeave(ev) {
    var link = ev.target.closest && ev.target.closest("a.ref, a.term");
    if (link) { link.removeAttribute("aria-describedby"); hide(); }
  }
  document.addEventListener("mouseover", onEnter);
  document.addEventListener("focusin", onEnter);
  document.addEventListener("mouseout", onLeave);
  document.addEventListener("focusout", onLeave);
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { hide(); } });

  // The trace player: one step at a time (all steps stay visible without the script).
  document.querySelectorAll(".trace-player").forEach(function (box) {
    var steps = Array.prototype.slice.call(box.querySelectorAll(".trace .step"));
    var controls = box.querySelector(".player-controls");
    if (!steps.length || !controls) { return; }
    var pos = box.querySelector(".trace-pos");
    // -1: every step shown (how the page opens); 0..n-1: stepping, later steps hidden.
    var at = -1;
    function render() {
      steps.forEach(function (s, i) {
        s.classList.toggle("future", at >= 0 && i > at);
        s.classList.toggle("current", i === at);
      });
      pos.textContent = at >= 0 ? pos.dataset.label + " " + (at + 1) + " / " + steps.length : pos.dataset.all;
    }
    controls.hidden = false;
    box.querySelector(".trace-next").addEventListener("click", function () { at = Math.min(at + 1, steps.length - 1); render(); });
    box.querySelector(".trace-prev").addEventListener("click", function () { at = at < 0 ? -1 : Math.max(at - 1, 0); render(); });
    box.querySelector(".trace-all").addEventListener("click", function () { at = -1; render(); });
    render();
  });
  // Search-box suggestions: the completions the site's OpenSearch description declares
  // (application/x-suggestions+json, /<locale>/suggest), shown as a datalist under each search
  // box. A site without that service (a static export) declares none: nothing is fetched.
  var searchLink = document.querySelector('link[rel="search"]');
  var boxes = document.querySelectorAll('form[role="search"] input[type="search"][name="q"]');
  if (searchLink && boxes.length && window.fetch && window.DOMParser) {
    var template = null;
    var asked = null;
    var learn = function () {
      if (!asked) {
        asked = fetch(searchLink.href).then(function (r) { return r.ok ? r.text() : ""; }).then(function (xml) {
          var doc = new DOMParser().parseFromString(xml, "application/xml");
          var url = doc.querySelector('Url[type="application/x-suggestions+json"]');
          var found = url && url.getAttribute("template");
          if (found && new URL(found.replace("{searchTerms}", ""), location.href).origin === location.origin) {
            template = found;
          }
        }).catch(function () { template = null; });
      }
      return asked;
    };
    boxes.forEach(function (input, n) {
      var list = document.createElement("datalist");
      list.id = "kb-suggest-" + n;
      input.after(list);
      input.setAttribute("list", list.id);
      var timer = null;
      var seq = 0;
      input.addEventListener("focus", learn);
      input.addEventListener("input", function () {
        clearTimeout(timer);
        var q = input.value;
        timer = setTimeout(function () {
          learn().then(function () {
            if (!template || !q.trim()) { list.textContent = ""; return; }
            var mine = ++seq;
            fetch(template.replace("{searchTerms}", encodeURIComponent(q))).then(function (r) {
              return r.ok ? r.json() : [q, []];
            }).then(function (answer) {
              if (mine !== seq) { return; }
              list.textContent = "";
              (answer[1] || []).forEach(function (word) {
                var option = document.createElement("option");
                option.value = word;
                list.appendChild(option);
              });
            }).catch(function () {});
          });
        }, 150);
      });
    });
  }
})();
