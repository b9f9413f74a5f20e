/* papermath reader: renders the page's formulas with the bundled KaTeX, shows symbol definitions on hover,
 * search, keyboard navigation and copy buttons. Paper content only ever reaches the DOM as text nodes
 * (textContent) or through KaTeX, whose `trust` admits nothing but papermath's own \htmlData{pm=N} tags. */
(function () {
  "use strict";

  var dataNode = document.getElementById("pm-data");
  var DATA = dataNode ? JSON.parse(dataNode.textContent) : { symbols: [], macros: {}, equations: [] };
  var SYMBOLS = DATA.symbols || [];
  var MACROS = DATA.macros || {};
  var tagFallbacks = 0;

  function trust(context) {
    if (context.command !== "\\htmlData") return false;
    var keys = Object.keys(context.attributes || {});
    return keys.length === 1 && keys[0] === "data-pm" && /^[0-9]+$/.test(context.attributes["data-pm"]);
  }

  function katexOptions(display) {
    return {
      displayMode: display, throwOnError: true, strict: "ignore", trust: trust, output: "htmlAndMathml",
      macros: Object.assign({}, MACROS), maxExpand: 2000, maxSize: 50
    };
  }

  /* Render one formula; on failure fall back to the untagged formula, then to the LaTeX source as text. */
  function renderMath(el) {
    var source = el.textContent;
    var display = el.classList.contains("pm-display-math");
    var attempts = [];
    if (el.dataset.tex) attempts.push(el.dataset.tex);
    if (el.dataset.plain) attempts.push(el.dataset.plain);
    var lastError = null;
    for (var i = 0; i < attempts.length; i++) {
      try {
        window.katex.render(attempts[i], el, katexOptions(display));
        el.classList.add("pm-rendered");
        if (i > 0 && el.dataset.tex) tagFallbacks += 1;
        return true;
      } catch (err) {
        lastError = err;
      }
    }
    el.textContent = source;
    el.classList.add("pm-math-error");
    el.title = "KaTeX could not render this formula" + (lastError ? ": " + lastError.message : "");
    return false;
  }

  function mathSpan(latex, display) {
    var span = document.createElement("span");
    span.className = display ? "pm-math pm-display-math" : "pm-math";
    span.textContent = latex;
    span.dataset.plain = latex;
    renderMath(span);
    return span;
  }

  /* Running text with $…$ math: text as text nodes, math through KaTeX. */
  function appendProse(parent, text) {
    var re = /\$([^$]+)\$/g;
    var pos = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > pos) parent.appendChild(document.createTextNode(cleanText(text.slice(pos, m.index))));
      parent.appendChild(mathSpan(m[1], false));
      pos = re.lastIndex;
    }
    if (pos < text.length) parent.appendChild(document.createTextNode(cleanText(text.slice(pos))));
  }

  function cleanText(text) {
    return text.replace(/~/g, " ").replace(/\\citep?\{[^}]*\}/g, "").replace(/[{}]/g, "");
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  var STATUS_LABEL = { bound: " (bound variable)", undefined: " (not defined in the paper)",
    conventional: " (standard notation, not defined in the paper)", equation: " (defined by another equation)",
    here: " (defined by this equation)", unquoted: " (no defining sentence found)" };

  function shapeText(entry) {
    if (entry.shape === null || entry.shape === undefined) return null;
    if (entry.shape.length === 0) return "scalar";
    return entry.shape.join(" \u00d7 ");
  }

  /* ------------------------------------------------------------------------------------- tooltip */
  var tooltip = document.getElementById("pm-tooltip");
  var pinned = false;
  var hideTimer = null;
  var current = null;

  function fillTooltip(entry) {
    tooltip.textContent = "";
    var head = el("div", "pm-tt-head");
    head.appendChild(mathSpan(entry.latex, false));
    var role = el("span", "pm-tt-role", entry.role || "unknown");
    head.appendChild(role);
    var shape = shapeText(entry);
    if (shape) {
      var shapeNode = el("span", "pm-tt-shape", "shape ");
      if (entry.shape.length) shapeNode.appendChild(mathSpan(entry.shape.join(" \\times "), false));
      else shapeNode.appendChild(document.createTextNode(shape));
      head.appendChild(shapeNode);
    }
    tooltip.appendChild(head);
    var body = el("div", "pm-tt-body");
    if (entry.bound) {
      var bound = el("div", "pm-tt-bound", "Bound variable of ");
      bound.appendChild(mathSpan(entry.bound, false));
      bound.appendChild(document.createTextNode(": it runs over the range written there, inside this equation only."));
      body.appendChild(bound);
    } else if (entry.definition) {
      var quote = el("blockquote", "pm-tt-quote");
      if (entry.quote_parts) {
        entry.quote_parts.forEach(function (part) {
          quote.appendChild(part[0] === "math" ? mathSpan(part[1], false) : document.createTextNode(part[1]));
        });
      } else {
        appendProse(quote, entry.definition.quote);
      }
      body.appendChild(quote);
      var where = el("div", "pm-tt-where");
      var link = el("a", "pm-tt-link",
        "defined " + (entry.definition.section ? "in \u00a7" + entry.definition.section + ", " : "") +
        entry.definition.file + ":" + entry.definition.line);
      link.href = "#" + (entry.definition.paragraph || entry.equation);
      where.appendChild(link);
      body.appendChild(where);
    } else if (entry.status === "undefined") {
      body.appendChild(el("div", "pm-tt-undef", "Not defined in the paper \u2014 do not guess."));
    } else if (entry.status === "conventional") {
      body.appendChild(el("div", "pm-tt-conv", "Not defined in the paper; standard notation."));
      body.appendChild(el("div", "pm-tt-conventional", "Conventional meaning (not a definition): " +
        entry.conventional));
    } else if (entry.status === "equation") {
      var by = el("div", "pm-tt-by", "Defined by equation ");
      var byLink = el("a", "pm-tt-link", entry.defined_by_number ? "(" + entry.defined_by_number + ")"
        : entry.defined_by);
      byLink.href = "#" + entry.defined_by;
      by.appendChild(byLink);
      body.appendChild(by);
    } else if (entry.status === "here") {
      body.appendChild(el("div", "pm-tt-here", "What this equation defines (its left-hand side)."));
    } else {
      body.appendChild(el("div", "pm-tt-unquoted", "No defining sentence found in the paper."));
    }
    if (entry.shape_cue) body.appendChild(el("div", "pm-tt-cue", "shape from: " + entry.shape_cue));
    if (entry.equation) {
      var eqName = entry.equation_number ? "(" + entry.equation_number + ")" : entry.equation;
      var eqLink = el("a", "pm-tt-eq", entry.bound ? "the reading of equation " + eqName
        : "its row in the reading of equation " + eqName);
      eqLink.href = "#" + (entry.bound ? entry.equation : entry.id);
      body.appendChild(eqLink);
    }
    var find = el("button", "pm-tt-find", "Highlight its uses in the paper");
    find.type = "button";
    find.dataset.family = familyOf(entry);
    body.appendChild(find);
    tooltip.appendChild(body);
  }

  function showTooltip(target, pin) {
    var entry = SYMBOLS[Number(target.dataset.pm)];
    if (!entry) return;
    clearTimeout(hideTimer);
    if (current !== target) {
      fillTooltip(entry);
      current = target;
    }
    pinned = pinned || !!pin;
    tooltip.hidden = false;
    var rect = target.getBoundingClientRect();
    var top = window.scrollY + rect.bottom + 8;
    var left = window.scrollX + Math.max(8, Math.min(rect.left, window.innerWidth - tooltip.offsetWidth - 16));
    tooltip.style.top = top + "px";
    tooltip.style.left = left + "px";
  }

  function hideTooltip(force) {
    if (pinned && !force) return;
    pinned = false;
    current = null;
    tooltip.hidden = true;
  }

  function symbolTarget(node) {
    return node && node.closest ? node.closest("[data-pm]") : null;
  }

  document.addEventListener("mouseover", function (event) {
    var target = symbolTarget(event.target);
    if (target) { showTooltip(target, false); return; }
    if (tooltip.contains(event.target)) { clearTimeout(hideTimer); return; }
    if (!pinned && !tooltip.hidden) {
      clearTimeout(hideTimer);
      hideTimer = setTimeout(function () { hideTooltip(false); }, 400);
    }
  });

  document.addEventListener("click", function (event) {
    var target = symbolTarget(event.target);
    if (target) { pinned = false; current = null; showTooltip(target, true); return; }
    if (!tooltip.contains(event.target)) hideTooltip(true);
  });

  document.addEventListener("focusin", function (event) {
    var target = symbolTarget(event.target);
    if (target) showTooltip(target, false);
  });

  /* ------------------------------------------------------------------------------------- search */
  var search = document.getElementById("pm-search");
  /* The text as the page was written (formulas as LaTeX), taken before KaTeX replaces the formulas. */
  var textIndex = Array.prototype.map.call(document.querySelectorAll(".pm-p, .pm-section"), function (node) {
    return [node.id, node.textContent.replace(/\s+/g, " ").trim()];
  });
  var results = document.getElementById("pm-results");

  /* A window of text around a hit that never cuts a $…$ formula in two (so it renders as maths). */
  function snippet(text, at) {
    var start = Math.max(0, at - 40), end = Math.min(text.length, at + 80);
    var dollars = [], re = /(?:^|[^\\])\$/g, m;
    while ((m = re.exec(text)) !== null) dollars.push(m.index + m[0].length - 1);
    for (var i = 0; i + 1 < dollars.length; i += 2) {
      var a = dollars[i], b = dollars[i + 1];
      if (a < start && b >= start) start = a;
      if (a < end && b >= end) end = b + 1;
    }
    return (start > 0 ? "\u2026" : "") + text.slice(start, end) + (end < text.length ? "\u2026" : "");
  }

  function runSearch() {
    var q = search.value.trim().toLowerCase();
    var rows = document.querySelectorAll(".pm-glossary tbody tr");
    rows.forEach(function (row) {
      row.hidden = q !== "" && (row.dataset.search || "").toLowerCase().indexOf(q) < 0;
    });
    results.textContent = "";
    if (q === "") { results.hidden = true; return; }
    var hits = [];
    document.querySelectorAll(".pm-equation").forEach(function (eq) {
      var m = eq.querySelector(".pm-display-math");
      var tex = m ? (m.dataset.plain || "") : "";
      if (tex.toLowerCase().indexOf(q) >= 0) hits.push([eq.id, "(" + (eq.dataset.number || eq.id) + ")", tex]);
    });
    textIndex.forEach(function (item) {
      var at = item[1].toLowerCase().indexOf(q);
      if (at >= 0) hits.push([item[0], snippet(item[1], at)]);
    });
    results.appendChild(el("div", "pm-results-count", hits.length + " matches"));
    hits.slice(0, 40).forEach(function (hit) {
      var a = el("a", "pm-result");
      if (hit[2] !== undefined) {
        a.appendChild(document.createTextNode(hit[1] + " "));
        a.appendChild(mathSpan(hit[2], false));
      } else {
        appendProse(a, hit[1]);
      }
      a.href = "#" + hit[0];
      results.appendChild(a);
    });
    results.hidden = false;
  }
  if (search) {
    search.addEventListener("input", runSearch);
    search.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { search.value = ""; runSearch(); search.blur(); }
    });
  }
  if (results) results.addEventListener("click", function (event) {
    if (event.target.closest(".pm-result")) results.hidden = true;
  });

  /* ------------------------------------------------------------------------------------- keyboard */
  var equations = Array.prototype.slice.call(document.querySelectorAll(".pm-equation"));

  function currentEquationIndex() {
    var hash = decodeURIComponent(location.hash.slice(1));
    for (var i = 0; i < equations.length; i++) if (equations[i].id === hash) return i;
    for (var j = 0; j < equations.length; j++) {
      if (equations[j].getBoundingClientRect().top > 4) return j - 1;
    }
    return equations.length - 1;
  }

  function goToEquation(i) {
    if (!equations.length) return;
    i = Math.max(0, Math.min(equations.length - 1, i));
    var target = equations[i];
    history.replaceState(null, "", "#" + target.id);
    target.scrollIntoView({ block: "center" });
    target.focus({ preventScroll: true });
    equations.forEach(function (e) { e.classList.remove("pm-current"); });
    target.classList.add("pm-current");
  }

  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "j") { goToEquation(currentEquationIndex() + 1); event.preventDefault(); }
    else if (event.key === "k") { goToEquation(currentEquationIndex() - 1); event.preventDefault(); }
    else if (event.key === "/") { if (search) { search.focus(); event.preventDefault(); } }
    else if (event.key === "Escape") { hideTooltip(true); preview.hidden = true; clearFound(); }
    else if (event.key === "Enter" && symbolTarget(event.target)) { showTooltip(event.target, true); }
  });

  /* ------------------------------------------------------------------------------------- copy */
  function copyText(text, button, label) {
    function done() { button.textContent = "Copied"; setTimeout(function () { button.textContent = label; }, 1500); }
    function fallback() {
      var area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      try { document.execCommand("copy"); done(); } catch (e) { button.textContent = "Select and copy"; }
      document.body.removeChild(area);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".pm-copy") : null;
    if (button) { copyText(button.closest(".pm-code").querySelector("code").textContent, button, "Copy"); return; }
    var tex = event.target.closest ? event.target.closest(".pm-copy-tex") : null;
    if (tex) copyText(tex.dataset.latex, tex, "TeX");
  });

  /* ------------------------------------------------------------------------------------- theme */
  /* System (prefers-color-scheme), dark or light; the choice is kept for the next visit when storage allows. */
  var THEMES = ["system", "dark", "light"];
  var themeButton = document.getElementById("pm-theme");
  function storedTheme() { try { return localStorage.getItem("papermath-theme") || "system"; } catch (e) { return "system"; } }
  function applyTheme(theme) {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    if (themeButton) themeButton.setAttribute("aria-label", "colour theme: " +
      (theme === "system" ? "follows the system" : theme) + " (click to change)");
  }
  applyTheme(storedTheme());
  if (themeButton) themeButton.addEventListener("click", function () {
    var next = THEMES[(THEMES.indexOf(document.documentElement.dataset.theme || "system") + 1) % THEMES.length];
    applyTheme(next);
    try { localStorage.setItem("papermath-theme", next); } catch (e) { /* storage may be off for file:// */ }
  });

  /* ------------------------------------------------------------------------------------- references */
  /* Hovering \ref/\eqref shows its target: the equation as rendered, a heading, a caption, a paragraph. */
  var preview = el("div", "pm-preview");
  preview.setAttribute("role", "tooltip");
  preview.id = "pm-preview";
  preview.hidden = true;
  document.body.appendChild(preview);
  var previewTimer = null;

  function fillPreview(target) {
    preview.textContent = "";
    var equation = target.classList.contains("pm-equation") ? target : null;
    if (equation) {
      var math = equation.querySelector(".pm-eqrow .pm-display-math");
      if (math && !math.dataset.done) renderPending([math]);
      preview.appendChild(el("div", "pm-preview-head", "Equation " + (equation.dataset.number ?
        "(" + equation.dataset.number + ")" : equation.id)));
      if (math) {
        var copy = math.cloneNode(true);
        copy.querySelectorAll("[data-pm]").forEach(function (n) { n.removeAttribute("data-pm"); n.removeAttribute("tabindex"); });
        preview.appendChild(copy);
      }
      return;
    }
    var heading = /^H[1-6]$/.test(target.tagName);
    var kind = target.dataset.kind || (target.classList.contains("pm-algorithm") ? "algorithm" : "");
    var number = target.dataset.number ? " " + target.dataset.number : "";
    preview.appendChild(el("div", "pm-preview-head", heading ? "Section" : kind ?
      kind.charAt(0).toUpperCase() + kind.slice(1) + number : "Text"));
    var copy2 = target.cloneNode(true);
    copy2.removeAttribute("id");
    copy2.querySelectorAll("[id]").forEach(function (n) { n.removeAttribute("id"); });
    copy2.querySelectorAll(".pm-anchor").forEach(function (n) { n.parentNode.removeChild(n); });
    copy2.querySelectorAll("[data-pm]").forEach(function (n) { n.removeAttribute("data-pm"); n.removeAttribute("tabindex"); });
    preview.appendChild(copy2);
  }

  function showPreview(link) {
    var target = document.getElementById(link.dataset.ref);
    if (!target) return;
    clearTimeout(previewTimer);
    fillPreview(target);
    preview.hidden = false;
    var rect = link.getBoundingClientRect();
    preview.style.top = (window.scrollY + rect.bottom + 6) + "px";
    preview.style.left = (window.scrollX + Math.max(8, Math.min(rect.left, window.innerWidth - preview.offsetWidth - 16))) + "px";
  }

  document.addEventListener("mouseover", function (event) {
    var link = event.target.closest ? event.target.closest("a.pm-ref[data-ref]") : null;
    if (link) { showPreview(link); return; }
    if (preview.contains(event.target)) { clearTimeout(previewTimer); return; }
    if (!preview.hidden) { clearTimeout(previewTimer); previewTimer = setTimeout(function () { preview.hidden = true; }, 300); }
  });
  document.addEventListener("focusin", function (event) {
    var link = event.target.closest ? event.target.closest("a.pm-ref[data-ref]") : null;
    if (link) showPreview(link); else preview.hidden = true;
  });

  /* ------------------------------------------------------------------------------------- find a symbol */
  /* "Highlight its uses": every occurrence of the symbol in the paper's equations and text (any index, any
   * equation; not the panels and glossary, which repeat them), counted; "Next" steps through them; Escape
   * clears. */
  function familyOf(entry) {
    return String(entry.symbol || entry.latex || "").replace(/\s+/g, "").replace(/[{}]/g, "");
  }
  var foundBar = null, found = [], foundAt = -1;

  function clearFound() {
    found.forEach(function (n) { n.classList.remove("pm-found"); });
    found = []; foundAt = -1;
    if (foundBar) { foundBar.parentNode.removeChild(foundBar); foundBar = null; }
  }

  function stepFound() {
    if (!found.length) return;
    foundAt = (foundAt + 1) % found.length;
    found[foundAt].scrollIntoView({ block: "center" });
    foundBar.firstChild.textContent = found.length + " uses highlighted (" + (foundAt + 1) + "/" + found.length + ")";
  }

  function highlightFamily(family) {
    clearFound();
    document.querySelectorAll("[data-pm]").forEach(function (node) {
      var entry = SYMBOLS[Number(node.dataset.pm)];
      if (entry && familyOf(entry) === family && !node.closest(".pm-preview, #pm-tooltip, .pm-panel, .pm-glossary")) {
        node.classList.add("pm-found");
        found.push(node);
      }
    });
    foundBar = el("div", "pm-found-bar");
    foundBar.id = "pm-found";
    foundBar.appendChild(el("span", null, found.length + " uses highlighted"));
    var next = el("button", null, "Next");
    next.type = "button";
    next.addEventListener("click", stepFound);
    var clear = el("button", null, "Clear");
    clear.type = "button";
    clear.addEventListener("click", clearFound);
    foundBar.appendChild(next);
    foundBar.appendChild(clear);
    document.body.appendChild(foundBar);
    document.body.dataset.found = String(found.length);
    return found.length;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".pm-tt-find") : null;
    if (!button) return;
    highlightFamily(button.dataset.family);
    hideTooltip(true);
  });

  /* ------------------------------------------------------------------------------------- start */
  /* The paper's text is rendered at once; the formulas in equation panels when a panel opens, and the
   * glossary's in small batches afterwards, so a long paper is readable in well under a second. */
  var failures = 0, count = 0;

  function decorate(root) {
    root.querySelectorAll("[data-pm]").forEach(function (node) {
      if (node.classList.contains("pm-sym")) return;
      var entry = SYMBOLS[Number(node.dataset.pm)];
      if (!entry) return;
      node.classList.add("pm-sym");
      node.classList.add("pm-" + (entry.status || "defined"));
      node.tabIndex = 0;
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", (entry.latex || "symbol") + (STATUS_LABEL[entry.status] || ""));
    });
  }

  function renderPending(nodes) {
    nodes.forEach(function (node) {
      if (node.dataset.done) return;
      node.dataset.done = "1";
      count += 1;
      if (!renderMath(node)) failures += 1;
      decorate(node);
    });
    document.body.dataset.rendered = count + "";
    document.body.dataset.renderFailures = failures + "";
    document.body.dataset.tagFallbacks = tagFallbacks + "";
  }

  function pendingIn(root) {
    return Array.prototype.slice.call(root.querySelectorAll(".pm-math:not([data-done])"));
  }

  function deferred(node) {
    return node.closest("details.pm-panel") || node.closest(".pm-glossary");
  }

  renderPending(pendingIn(document).filter(function (node) { return !deferred(node); }));

  document.querySelectorAll("details.pm-panel").forEach(function (panel) {
    panel.addEventListener("toggle", function () { if (panel.open) renderPending(pendingIn(panel)); });
  });

  var glossary = pendingIn(document).filter(function (node) { return !node.closest("details.pm-panel"); });
  (function batch() {
    var chunk = glossary.splice(0, 60);
    if (!chunk.length) return;
    renderPending(chunk);
    setTimeout(batch, 0);
  })();

  /* An anchor (#eq:15, #eq:15/sym:s_{i,t}, #p:33): open the panel it is in or belongs to, and show it. */
  function showTarget() {
    if (!location.hash) return;
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    var panel = target.classList.contains("pm-equation") ? target.querySelector("details.pm-panel")
      : target.closest("details.pm-panel");
    if (panel) { panel.open = true; renderPending(pendingIn(panel)); }
    var equation = target.closest(".pm-equation");
    equations.forEach(function (e) { e.classList.toggle("pm-current", e === equation); });
    target.scrollIntoView({ block: "center" });
  }
  showTarget();
  window.addEventListener("hashchange", function () { hideTooltip(true); showTarget(); });

  /* For tests and for printing: render everything now; returns the counts. */
  window.papermath = Object.freeze({
    renderAll: function () {
      renderPending(pendingIn(document));
      return { rendered: count, failures: failures, tagFallbacks: tagFallbacks };
    },
    highlight: function (latex) {
      var entry = SYMBOLS.filter(function (e) { return e.latex === latex || e.symbol === latex; })[0];
      return entry ? highlightFamily(familyOf(entry)) : 0;
    }
  });
  window.addEventListener("beforeprint", function () { window.papermath.renderAll(); });
  document.body.classList.add("pm-ready");
})();
