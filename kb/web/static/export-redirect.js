// Static export only: redirect pages (/r/<number>, old numbers, aliases, /) and the /r/ form.
// The server answers these with HTTP redirects; a static host cannot, so this script does what
// the server would: the visitor's language, ?lang=, ?edition= (old numbers) and #R1173a anchors.
(function () {
  "use strict";

  // "117.3a", "rule 117.3a", "１１７．３ａ", "R1173a" -> "117.3a" (null when not a rule number).
  function ruleNumber(text) {
    var t = String(text || "").normalize("NFKC").trim().toLowerCase();
    t = t.replace(/^(rules?|règles?|regles?|ルール|総合ルール)\s*/, "").replace(/\s+/g, "");
    var m = /^#?r(\d)(\d\d)(\d{0,3})([a-z]?)$/.exec(t);
    if (m) { return m[1] + m[2] + (m[3] ? "." + m[3] + m[4] : ""); }
    m = /^(\d{1,3})(?:\.(\d{1,3})([a-z]?))?\.?$/.exec(t);
    if (!m || (m[1].length === 2)) { return null; }
    return m[1] + (m[2] ? "." + m[2] + (m[3] || "") : "");
  }

  function visitorLanguage(langs, params) {
    var wanted = params.get("lang");
    if (langs.indexOf(wanted) >= 0) { return wanted; }
    var prefs = navigator.languages || [navigator.language || "en"];
    for (var i = 0; i < prefs.length; i++) {
      var code = String(prefs[i]).slice(0, 2).toLowerCase();
      if (langs.indexOf(code) >= 0) { return code; }
    }
    return langs.indexOf("en") >= 0 ? "en" : langs[0];
  }

  function editionKey(spec, data) {
    var editions = data.editions || {}, dates = data.dates || {};
    if (editions[spec]) { return spec; }
    if (editions["en-" + spec]) { return "en-" + spec; }
    var found = null;
    Object.keys(dates).forEach(function (id) {
      if (dates[id] && dates[id].indexOf(spec) === 0) { found = id; }
    });
    return found;
  }

  var params = new URLSearchParams(location.search);
  var meta = document.querySelector('meta[name="kb-redirect"]');
  if (meta) {
    var data = JSON.parse(meta.content);
    var target = data.target;
    if (data.permalink && data.targets) {
      var lang = visitorLanguage(Object.keys(data.targets), params);
      target = data.targets[lang] || target;
      var edition = params.get("edition");
      var key = edition ? editionKey(edition, data) : null;
      if (key) { target = "/" + lang + "/" + data.editions[key]; }
    }
    location.replace(target + location.hash);
    return;
  }

  // The /r/ page: ?number=117.3a or a Yawgatog anchor (#R1173a) goes to that rule's permalink.
  var form = document.getElementById("export-permalink");
  if (!form) { return; }
  var asked = params.get("number") || (/^#R\d/i.test(location.hash) ? location.hash : "");
  var number = ruleNumber(asked);
  if (number) {
    var lang = params.get("lang");
    location.replace("/r/" + encodeURIComponent(number) + (lang ? "?lang=" + encodeURIComponent(lang) : ""));
  }
})();
