/* agentcompass viewer: the Attempt page's model calls (model_calls.jsonl): totals, one row per call, and a
   call's whole record (request and response bodies) when its row is opened. */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;

  function api(r) {
    if (r.source === "client") return "complete · " + (r.upstream_protocol || "");
    const up = r.upstream_protocol && r.upstream_protocol !== r.agent_protocol ? " → " + r.upstream_protocol : "";
    return (r.agent_protocol || "") + up + (r.stream && r.stream.agent ? " · stream" : "");
  }

  function reply(r) {
    const parts = [];
    if (r.text) parts.push(h("span", {text: r.text + (r.text_cut ? "…" : "")}));
    for (const c of r.tool_calls || []) parts.push(h("code", {class: "call", text: c.name + "(" + c.arguments + ")"}));
    if (r.error) parts.push(h("span", {class: "bad", text: (r.error.type || "error") + ": " + (r.error.message || "")}));
    return parts;
  }

  async function detail(cell, key, att, r) {
    if (cell.dataset.loaded) return;
    cell.dataset.loaded = "1";
    cell.appendChild(h("p", {class: "muted", text: "Loading call " + r.seq + "…"}));
    try {
      const line = await AC.data.call(key, att.path, r);
      AC.clear(cell).appendChild(AC.jsonTree(line, "call " + r.seq, true));
    } catch (e) {
      AC.clear(cell).appendChild(h("p", {class: "bad", text: "Cannot show the call: " + e.message}));
    }
  }

  function row(key, att, r, ncols) {
    const u = r.usage || {};
    const tr = h("tr", {class: "call-row", dataset: {seq: r.seq}},
      h("td", {class: "num", text: r.seq}), h("td", {class: "small", text: f.time(r.time)}),
      h("td", {class: "small", text: api(r)}), h("td", {class: "mono small", text: (r.model || "") + (r.role ? " (" + r.role + ")" : "")}),
      h("td", null, AC.badge(r.status, r.status === "ok" ? "passed" : r.status === "limit" ? "pending" : "failed"),
        r.http_status && r.http_status !== 200 ? h("span", {class: "muted", text: " " + r.http_status}) : null),
      h("td", {class: "num", text: f.tokens(u.input) + " / " + f.tokens(u.output)}),
      h("td", {class: "num", text: f.cost(u.cost_usd)}),
      h("td", {class: "num", text: f.dur(r.latency_s) + (r.ttft_s !== null && r.ttft_s !== undefined ? " (" + f.dur(r.ttft_s) + ")" : "")}),
      h("td", {class: "num", text: r.retries || ""}),
      h("td", {class: "reply small"}, reply(r),
        (r.warnings || []).map((w) => h("div", {class: "warn", text: "⚠ " + w}))));
    const cell = h("td", {attrs: {colspan: String(ncols)}, class: "call-detail"});
    const more = h("tr", {class: "call-more", hidden: true}, cell);
    tr.addEventListener("click", () => {
      more.hidden = !more.hidden;
      if (!more.hidden) detail(cell, key, att, r);
    });
    return [tr, more];
  }

  AC.modelCalls = function (key, att) {
    const m = att.model_calls, t = m.totals || {};
    const statuses = Object.entries(t.by_status || {}).map(([k, v]) => k + " " + v).join(" · ");
    const cols = ["#", "time", "API", "model", "status", "tokens in / out", "cost", "latency (first byte)", "retries", "reply"];
    const url = AC.data.fileUrl(key, att.path + "/" + m.file);
    return h("div", {id: "model-calls"},
      AC.kv([["calls", t.calls], ["tokens", "in " + f.tokens(t.input) + " · out " + f.tokens(t.output) + " · cached " + f.tokens(t.cached)],
        ["cost", f.cost(t.cost_usd)], ["retries", t.retries || null], ["status", statuses]]),
      h("p", {class: "muted"}, "Open a row for the whole call (request and response bodies).",
        m.truncated ? " Only the first " + m.rows.length + " calls are listed." : "",
        url ? [" ", h("a", {href: url, target: "_blank", rel: "noopener", text: m.file})] : null),
      h("table", {class: "grid calls"}, h("thead", null, h("tr", null, cols.map((c) => h("th", {text: c})))),
        h("tbody", null, m.rows.map((r) => row(key, att, r, cols.length)))));
  };
})(window.AC);
