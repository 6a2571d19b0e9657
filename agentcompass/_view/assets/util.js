/* agentcompass viewer: DOM and formatting helpers. Data is only ever put into the page as text nodes. */
"use strict";
window.AC = window.AC || {};
(function (AC) {
  AC.timings = {};
  AC.mark = function (name) {
    const ms = Math.round(performance.now());
    AC.timings[name] = ms;
    document.documentElement.dataset[name] = String(ms);
    return ms;
  };

  /* h("div", {class: "x", text: "y", onclick: fn, attrs: {...}, dataset: {...}}, child, [children]) */
  AC.h = function (tag, props, ...kids) {
    const el = document.createElement(tag);
    const p = props || {};
    for (const k of Object.keys(p)) {
      const v = p[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = String(v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k === "attrs") for (const a of Object.keys(v)) el.setAttribute(a, v[a]);
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el[k] = v;
    }
    AC.append(el, kids);
    return el;
  };
  AC.append = function (el, kids) {
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  };
  AC.clear = function (el) { while (el.firstChild) el.removeChild(el.firstChild); return el; };

  const isNum = (v) => typeof v === "number" && isFinite(v);
  AC.fmt = {
    num: (v, d) => (isNum(v) ? v.toFixed(d === undefined ? 3 : d) : "–"),
    pct: (v) => (isNum(v) ? (100 * v).toFixed(1) + "%" : "–"),
    int: (v) => (isNum(v) ? Math.round(v).toLocaleString("en-US") : "–"),
    tokens: (v) => (!isNum(v) ? "–" : v >= 1e6 ? (v / 1e6).toFixed(2) + "M" : v >= 1e4 ? (v / 1e3).toFixed(1) + "k"
      : String(Math.round(v))),
    // null: a price was unknown (never shown as $0); undefined: no cost recorded
    cost: (v) => (isNum(v) ? "$" + (v >= 1 ? v.toFixed(2) : v.toFixed(4)) : v === null ? "unknown" : "–"),
    dur: function (s) {
      if (!isNum(s)) return "–";
      if (s < 1) return (s * 1000).toFixed(0) + " ms";
      if (s < 120) return s.toFixed(s < 10 ? 2 : 1) + " s";
      if (s < 7200) return (s / 60).toFixed(1) + " min";
      return (s / 3600).toFixed(1) + " h";
    },
    bytes: (n) => (!isNum(n) ? "–" : n >= 1 << 20 ? (n / (1 << 20)).toFixed(1) + " MiB"
      : n >= 1024 ? (n / 1024).toFixed(1) + " KiB" : n + " B"),
    // "MM-DD HH:MM" (UTC) in the current year, else "YYYY-MM-DD": for tables (the whole time as a tooltip)
    shortTime: function (iso) {
      if (!iso) return "–";
      const d = new Date(iso);
      if (isNaN(d)) return String(iso);
      const t = d.toISOString();
      return d.getUTCFullYear() === new Date().getUTCFullYear() ? t.slice(5, 10) + " " + t.slice(11, 16) : t.slice(0, 10);
    },
    time: function (iso) {
      if (!iso) return "–";
      const d = new Date(iso);
      return isNaN(d) ? String(iso) : d.toISOString().replace("T", " ").slice(0, 19) + "Z";
    },
  };

  AC.badge = function (text, kind) {
    return AC.h("span", {class: "badge b-" + String(kind || text).replace(/[^a-z0-9_-]/gi, "_"), text: text});
  };
  AC.statusBadge = function (row) {
    const o = row.outcome || row.status;
    return AC.badge(o === "error" && row.error_class ? "error:" + row.error_class : o, o);
  };

  /* A <pre> showing at most `limit` characters, with a button for the rest. */
  AC.longText = function (text, cls, limit) {
    const s = text === null || text === undefined ? "" : String(text);
    const max = limit || 20000;
    const pre = AC.h("pre", {class: cls || "text"});
    if (s.length <= max) { pre.textContent = s; return pre; }
    const head = Math.floor(max * 0.6), tail = max - head;
    pre.textContent = s.slice(0, head);
    const more = AC.h("button", {class: "more", text: "show " + (s.length - max).toLocaleString("en-US") +
      " more characters", onclick: () => { pre.textContent = s; }});
    pre.appendChild(AC.h("span", {class: "cut"}, "\n", more, "\n"));
    pre.appendChild(document.createTextNode(s.slice(s.length - tail)));
    return pre;
  };

  AC.kv = function (pairs) {
    const dl = AC.h("dl", {class: "kv"});
    for (const [k, v] of pairs) {
      if (v === undefined || v === null || v === "") continue;
      dl.appendChild(AC.h("dt", {text: k}));
      dl.appendChild(AC.h("dd", null, v instanceof Node ? v : String(v)));
    }
    return dl;
  };

  AC.section = function (title, id, body, open) {
    const d = AC.h("details", {class: "section", id: id, open: open !== false},
      AC.h("summary", null, AC.h("h2", {text: title})));
    AC.append(d, [body]);
    return d;
  };

  AC.text = function (content) {
    /* message content: a string, or a list of parts ({type: text, text}, images...) */
    if (content === null || content === undefined) return "";
    if (typeof content === "string") return content;
    if (Array.isArray(content)) {
      return content.map((p) => (typeof p === "string" ? p : p && typeof p.text === "string" ? p.text
        : p && p.type ? "[" + p.type + "]" : JSON.stringify(p))).join("\n");
    }
    return JSON.stringify(content, null, 2);
  };

  AC.route = {
    run: (key) => "#/run/" + encodeURIComponent(key),
    attempt: (key, path) => "#/attempt/" + encodeURIComponent(key) + "/" + encodeURIComponent(path),
    compare: (a, b) => "#/compare/" + encodeURIComponent(a || "") + "/" + encodeURIComponent(b || ""),
  };

  /* Sort rows by a key function; nulls last. */
  AC.sortRows = function (rows, keyFn, dir) {
    const sign = dir === "desc" ? -1 : 1;
    return rows.slice().sort((a, b) => {
      const x = keyFn(a), y = keyFn(b);
      const xn = x === null || x === undefined || x === "", yn = y === null || y === undefined || y === "";
      if (xn || yn) return xn && yn ? 0 : xn ? 1 : -1;
      if (typeof x === "number" && typeof y === "number") return sign * (x - y);
      return sign * String(x).localeCompare(String(y), "en", {numeric: true});
    });
  };

  /* A sortable table head: cols = [{key, label, sort: fn}], state = {sort, dir}; onSort(key). */
  AC.thead = function (cols, state, onSort) {
    const tr = AC.h("tr");
    for (const c of cols) {
      const mark = state.sort === c.key ? (state.dir === "desc" ? " ▼" : " ▲") : "";
      tr.appendChild(AC.h("th", {class: c.sort ? "sortable" : "", text: c.label + mark, title: c.title || c.label, dataset: {col: c.key},
        onclick: c.sort ? () => onSort(c.key) : null}));
    }
    return AC.h("thead", null, tr);
  };
  AC.toggleSort = function (state, key) {
    if (state.sort === key) state.dir = state.dir === "asc" ? "desc" : "asc";
    else { state.sort = key; state.dir = "asc"; }
  };
})(window.AC);
