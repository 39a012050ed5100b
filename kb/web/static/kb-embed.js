/* kb-embed.js: links the rule references of any page to a kb instance, with previews.
 *
 *   <script src="https://RULES-SITE/static/kb-embed.js" defer></script>
 *
 * Finds "rule 117.3b", "CR 704.5j", "rules 601.2f–h", « règle 117.3b », 「ルール117.3b」 in the
 * page's text (never inside a, code, pre, textarea, form fields or contenteditable), links each
 * to the rule's page and shows a preview on hover, focus or tap, fetched from the site's oEmbed
 * JSON (CORS) in the language of the text (its lang attribute: en, fr or ja, else English).
 * Options on the script tag: data-kb-base (the kb site; default: where the script comes from),
 * data-kb-lang (force a language), data-kb-root (a CSS selector: scan only there).
 * Content added later is linked as it arrives (or call window.kbEmbed.scan(element)).
 * Style hooks: a.kb-ref, .kb-preview.
 *
 * The reference finder is kb.link.find_refs ported line by line (same patterns, ASCII \d \s \b
 * on a text whose other spaces are folded to " "); tests/test_embed_js.py runs both on one
 * table of cases. Change one, change the other.
 */
(function () {
  "use strict";

  // ---- the finder (kb/link.py) ---------------------------------------------------------------
  var S = "[\\t-\\r ]"; // Python's \s under re.ASCII
  function rx(source, flags) {
    return new RegExp(source.replace(/~S/g, S), flags || "y");
  }
  var NUM = rx("(\\d{1,3})(?:\\.(\\d{1,3})([a-zA-Z])?)?(?![0-9A-Za-z])");
  var RANGE = rx("(?:[-–‐‑~〜]|~S+à~S+)(\\d{1,3}(?:\\.\\d{1,3}[a-z]?)?|[a-z])(?![0-9A-Za-z])");
  var TITLE = rx(",?~S*(?:[“\"«]~S*([^”\"»\\n]{1,120}?)~S*[”\"»]|〔([^〕\\n]{0,80})〕|「([^」\\n]{0,80})」)");
  var SEP = rx("~S*,~S*(?:(?:and|or|et|ou)~S+)?|~S+(?:and|or|et|ou)~S+|~S*(?:、|・|と|および|及び|または|又は)~S*");
  var SEP_AFTER_COMMA = rx("~S+(?:(?:and|or|et|ou)~S+)?");
  var LIST_END = rx("~S*(?:[,.;:)\\]）」〕〔”\"»、・参と]|$|(?:and|or|et|ou)\\b)");
  var LETTER = rx("([a-z])(?![0-9A-Za-z'’\\-])");
  var WORDS = "\\b(?<rule>rules?|r[èÈe]gles?)~S+|\\bCR~S*(?<cr>)(?=\\d{3}(?!\\d))" +
    "|\\b(?<section>sections?)~S+|\\b(?:see|cf\\.|voir)~S+(?<see>)(?=\\d{3}(?!\\d))" +
    "|(?<![0-9A-Za-z.,$€£/])(?=\\d{3}\\.\\d{1,3}[a-z]?(?![0-9A-Za-z])(?!\\.\\d))";
  var ANCHOR = rx("(?=[rscv0-9])(?:" + WORDS + ")", "gi");
  var ANCHOR_JA = rx("(?=[rscv0-9第ル])(?:" + WORDS + "|ルール~S*(?=\\d{3}(?!\\d))" +
    "|(?<dai>第)(?=\\d{3}(?!\\d))|(?<![0-9A-Za-z.])(?<bare>)(?=\\d{3}(?!\\d)))", "gi");
  var SANSHO = rx("~S*参照");
  var DAI_END = rx("~S*[項条]");
  var SPACES = /[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
  var LETTERS = "abcdefghijkmnpqrstuvwxyz"; // no l, no o

  function at(re, s, pos) {
    re.lastIndex = pos;
    return re.exec(s);
  }
  function end(m) {
    return m.index + m[0].length;
  }

  // One character for one (so offsets index the original): widths, then spaces.
  function scanForm(text) {
    return text.replace(/[\uff01-\uffee]/g, function (c) {
      var n = c.normalize("NFKC");
      return n.length === 1 ? n : c;
    }).replace(SPACES, " ");
  }

  // A rule number: [major, minor or null, letter or null], as kb.rulenum.RuleNumber.
  function num(major, minor, letter) {
    return [major, minor, letter];
  }
  function str(n) {
    return n[1] == null ? String(n[0]) : n[0] + "." + n[1] + (n[2] || "");
  }
  function depth(n) {
    return n[0] < 10 ? 0 : n[1] == null ? 1 : n[2] == null ? 2 : 3;
  }
  function parent(n) {
    if (n[2] != null) return str(num(n[0], n[1], null));
    if (n[1] != null) return String(n[0]);
    return n[0] < 10 ? "" : String(Math.floor(n[0] / 100));
  }
  // RuleNumber.sort_key as one number (minor < 1000, 26 letters): sections before their rules.
  function rank(n) {
    return (n[0] < 10 ? n[0] * 100 : n[0]) * 1e6 + (n[1] == null ? 0 : n[1] + 1) * 100 +
      (n[2] == null ? 0 : n[2].charCodeAt(0) - 96);
  }
  // kb.rulenum.parse for what RANGE captures ("5", "117", "903.11", "601.2h").
  function parse(t) {
    var m = /^(\d{1,3})(?:\.(\d{1,3})([a-z])?)?$/.exec(t);
    var major = m ? +m[1] : 0;
    if (!(major >= 1 && major <= 9 || major >= 100)) return null;
    if (major < 10 && m[2] != null) return null;
    return num(major, m[2] == null ? null : +m[2], m[3] || null);
  }

  // kb.link.expand_range: every number from a to the tail, or null (no range).
  function expandRange(a, tail) {
    var b, out = [], i;
    if (/^[a-z]$/.test(tail)) {
      if (a[2] == null) return null;
      b = num(a[0], a[1], tail);
    } else if (/^\d{1,3}$/.test(tail)) {
      if (a[2] != null) return null;
      b = a[1] != null ? num(a[0], +tail, null) : parse(tail);
    } else {
      b = parse(tail);
    }
    if (!b || depth(a) !== depth(b) || parent(a) !== parent(b) || rank(a) >= rank(b)) return null;
    if (a[2] != null) {
      for (i = a[2].charCodeAt(0); i <= b[2].charCodeAt(0); i++) {
        var c = String.fromCharCode(i);
        if (LETTERS.indexOf(c) >= 0 || c === a[2] || c === b[2]) out.push(num(a[0], a[1], c));
      }
    } else if (a[1] != null) {
      for (i = a[1]; i <= b[1]; i++) out.push(num(a[0], i, null));
    } else {
      for (i = a[0]; i <= b[0]; i++) out.push(num(i, null, null));
    }
    return out.length > 60 ? null : out.map(str); // kb.link.MAX_RANGE
  }

  function valid(m, sec) {
    var major = m[1];
    if (sec) return major.length !== 1 || major === "0" || m[2] != null ? null : num(+major, null, null);
    if (major.length !== 3 || major[0] === "0") return null;
    return num(+major, m[2] == null ? null : +m[2], m[3] ? m[3].toLowerCase() : null);
  }
  function ref(number, t, start, stop) {
    return { number: number, label: t.slice(start, stop), start: start, end: stop };
  }
  function item(t, f, n, start, stop) {
    var rng = at(RANGE, f, stop);
    var nums = rng && expandRange(n, rng[1]);
    if (nums && nums.length) {
      return { refs: nums.map(function (x) { return ref(x, t, start, end(rng)); }), end: end(rng) };
    }
    return { refs: [ref(str(n), t, start, stop)], end: stop };
  }

  function scan(t, f, pos, sec) {
    var m = at(NUM, f, pos);
    var n = m && valid(m, sec);
    if (!n) return { refs: [], end: pos, tail: pos };
    var refs = [], it = item(t, f, n, m.index, end(m));
    for (;;) {
      refs = refs.concat(it.refs);
      var stop = it.end, tail = stop, title = at(TITLE, f, stop);
      var done = { refs: refs, end: stop, tail: tail };
      if (title) {
        tail = done.tail = end(title);
        var inner = title[1];
        if (inner != null && inner.slice(-1) !== "," && f.charAt(tail) !== ",") return done;
      }
      var sep = at(SEP, f, tail);
      if (!sep && title && title[1] != null) sep = at(SEP_AFTER_COMMA, f, tail);
      if (!sep) return done;
      var nxt = at(NUM, f, end(sep));
      var cand = nxt && valid(nxt, sec);
      if (cand) {
        if (!sec && cand[1] == null && n[1] != null) {
          var rng = at(RANGE, f, end(nxt));
          if (!at(LIST_END, f, rng ? end(rng) : end(nxt))) return done;
        }
        n = cand;
        it = item(t, f, cand, nxt.index, end(nxt));
        continue;
      }
      var let_ = at(LETTER, f, end(sep));
      if (let_ && n[2] != null && let_[1] > n[2]) {
        n = num(n[0], n[1], let_[1]);
        it = { refs: [ref(str(n), t, let_.index, end(let_))], end: end(let_) };
        continue;
      }
      return done;
    }
  }

  /** Every rule reference of a t: [{number, label, start, end}], a range giving one per number. */
  function findRefs(t, lang) {
    var f = scanForm(t);
    if (!/\d/.test(f)) return [];
    var re = lang === "ja" ? ANCHOR_JA : ANCHOR, refs = [], consumed = 0, a;
    re.lastIndex = 0;
    while ((a = re.exec(f))) {
      if (!a[0]) re.lastIndex++;
      if (a.index < consumed) continue;
      var g = a.groups, found = scan(t, f, end(a), g.section != null);
      if (!found.refs.length) continue;
      var first = found.refs[0];
      if (g.see != null && first.number.indexOf(".") < 0 && !at(LIST_END, f, first.end)) continue;
      if (lang === "ja") {
        if (g.bare != null && !at(SANSHO, f, found.tail)) continue;
        if (g.dai != null && !at(DAI_END, f, found.end)) continue;
      }
      refs = refs.concat(found.refs);
      consumed = found.end;
    }
    return refs;
  }

  if (typeof document === "undefined") {
    if (typeof module === "object") module.exports = { findRefs: findRefs, scanForm: scanForm };
    return;
  }

  // ---- the page ------------------------------------------------------------------------------
  var d = document, script = d.currentScript;
  function on(type, fn, capture) {
    d.addEventListener(type, fn, capture);
  }
  function option(name) {
    return script ? script.getAttribute("data-kb-" + name) : null;
  }
  // The kb site: data-kb-base, else the folder above the script's /static/ (a site under a path works).
  var base = (option("base") || (script && script.src ? new URL("..", script.src).href : location.origin)).replace(/\/+$/, "");
  var SKIP = "a,code,pre,kbd,samp,textarea,input,select,button,script,style,noscript,svg,[contenteditable],.kb-preview,[data-kb-skip]";

  function langOf(el) {
    var forced = option("lang"), host = el.closest("[lang]");
    var tag = (forced || (host ? host.getAttribute("lang") : "") || "").slice(0, 2).toLowerCase();
    return /^(en|fr|ja)$/.test(tag) ? tag : "en";
  }

  function scope() {
    return d.querySelector(option("root") || "body");
  }
  /** Link the references under root (default: the page, or data-kb-root). */
  function linkAll(root) {
    root = root || scope();
    if (!root) return;
    var walker = d.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var el = node.parentElement;
        return el && /\d/.test(node.data) && !el.closest(SKIP) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
      }
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach(linkNode);
  }

  function linkNode(node) {
    var text = node.data, lang = langOf(node.parentElement), refs = findRefs(text, lang);
    if (!refs.length) return;
    var frag = d.createDocumentFragment(), pos = 0, i = 0;
    while (i < refs.length) {
      var r = refs[i], numbers = [];
      while (i < refs.length && refs[i].start === r.start && refs[i].end === r.end) numbers.push(refs[i++].number);
      if (r.start < pos) continue;
      frag.appendChild(d.createTextNode(text.slice(pos, r.start)));
      var a = d.createElement("a");
      a.className = "kb-ref";
      a.href = base + "/" + lang + "/rules/" + encodeURIComponent(numbers[0]);
      a.setAttribute("data-rule", numbers[0]);
      if (numbers.length > 1) a.setAttribute("data-rules", numbers.join(" "));
      a.textContent = r.label;
      frag.appendChild(a);
      pos = r.end;
    }
    frag.appendChild(d.createTextNode(text.slice(pos)));
    node.parentNode.replaceChild(frag, node);
  }

  // ---- previews ------------------------------------------------------------------------------
  var pop = null, current = null, tapped = null, cache = {}, pointer = "", timer = 0;

  function sheet() {
    // Constructed sheets pass the host's CSP (no <style> element); :where() keeps every rule at
    // zero specificity, so any rule of the host page wins. Without them, the host styles it.
    if (!d.adoptedStyleSheets) return;
    var css = new CSSStyleSheet();
    css.replaceSync(":where(.kb-preview){position:absolute;z-index:99999;max-width:min(28rem,90vw);" +
      "padding:.5em .7em;border:1px solid #888;background:#fff;color:#222;font:14px/1.4 sans-serif}" +
      ":where(.kb-preview strong){display:block}");
    d.adoptedStyleSheets = d.adoptedStyleSheets.concat([css]);
  }


  function popover() {
    if (!pop) {
      pop = d.createElement("div");
      pop.id = "kb-preview";
      pop.className = "kb-preview";
      pop.setAttribute("role", "tooltip");
      pop.hidden = true;
      pop.addEventListener("mouseenter", function () { clearTimeout(timer); });
      pop.addEventListener("mouseleave", hideSoon);
      d.body.appendChild(pop);
    }
    return pop;
  }

  function fill(link, data) {
    var box = popover(), title = d.createElement("strong"), body = d.createElement("span");
    title.textContent = data ? data.title : link.textContent;
    body.textContent = data ? data.description : "";
    if (data && data.lang) body.lang = data.lang;
    box.replaceChildren(title, body);
    var r = link.getBoundingClientRect(), width = d.documentElement.clientWidth;
    box.hidden = false;
    box.style.left = Math.max(4, Math.min(r.left, width - box.offsetWidth - 4)) + scrollX + "px";
    box.style.top = r.bottom + scrollY + 6 + "px";
  }

  function show(link) {
    clearTimeout(timer);
    if (current === link) return;
    hide();
    current = link;
    link.setAttribute("aria-describedby", "kb-preview");
    var url = link.href;
    if (!cache[url]) {
      cache[url] = fetch(base + "/api/oembed?format=json&url=" + encodeURIComponent(url), { credentials: "omit" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .catch(function () { return null; });
    }
    fill(link, null);
    cache[url].then(function (data) {
      if (current === link) fill(link, data);
    });
  }

  function hide() {
    clearTimeout(timer);
    if (current) current.removeAttribute("aria-describedby");
    current = tapped = null;
    if (pop) pop.hidden = true;
  }
  function hideSoon() {
    clearTimeout(timer);
    timer = setTimeout(hide, 200);
  }
  function refLink(target) {
    return target && target.closest ? target.closest("a.kb-ref") : null;
  }

  function listen() {
    // Pointer events tell a mouse from a finger: a tap is handled on click, below.
    on("pointerover", function (e) {
      var a = refLink(e.target);
      if (a && e.pointerType !== "touch") show(a);
    });
    on("pointerout", function (e) {
      if (refLink(e.target) && !refLink(e.relatedTarget)) hideSoon();
    });
    on("focusin", function (e) {
      var a = refLink(e.target);
      if (a) show(a); else hide();
    });
    on("focusout", function (e) {
      if (refLink(e.target)) hideSoon();
    });
    on("keydown", function (e) {
      if (e.key === "Escape" && current) hide();
    });
    // A tap shows the preview first; a second tap on the same link follows it.
    on("pointerdown", function (e) { pointer = e.pointerType; }, true);
    on("click", function (e) {
      var a = refLink(e.target);
      if (a && pointer === "touch" && tapped !== a) {
        e.preventDefault();
        show(a);
        tapped = a;
      }
    });
  }

  // What the host adds later (a forum loading posts) is linked as it arrives. Only elements are
  // watched: the script's own changes add text and a.kb-ref, which this skips.
  function watch() {
    var root = scope();
    if (root) new MutationObserver(function (records) {
      records.forEach(function (r) {
        r.addedNodes.forEach(function (n) {
          if (n.nodeType === 1 && !n.closest(SKIP)) linkAll(n);
        });
      });
    }).observe(root, { childList: true, subtree: true });
  }

  function start() {
    sheet();
    linkAll();
    listen();
    watch();
  }
  window.kbEmbed = { scan: linkAll, findRefs: findRefs };
  if (d.readyState === "loading") on("DOMContentLoaded", start);
  else start();
})();
