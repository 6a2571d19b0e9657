/* agentcompass viewer: a tool-use conversation (result.json's agent.transcript) on the Attempt page: the agent's,
   the user's and the tools' turns, the user's own tool calls marked as the user's; BFCL's turns with the checker's
   verdict on each and each call's state effect (transcript.info.effects); AgentDojo's tool results that carry the
   attack's injection; the grade broken into its components (reward_info of tool-use benchmarks); usage per model
   role. The per-benchmark verdicts (BFCL's checker, AgentDojo's utility / security) are in view_verdict.js. */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;

  function calls(list, who) {
    return (list || []).map((c) => h("div", {class: "toolcall conv-call"},
      h("span", {class: "fn", text: (who === "user" ? "user calls" : "calls")}),
      h("pre", {class: "text mono", text: c.name + "(" + JSON.stringify(c.arguments || {}) + ")"})));
  }

  function effect(changes) {
    if (!changes) return null;
    const box = h("div", {class: "conv-effect"}, h("span", {class: "fn", text: "state effect"}));
    if (!changes.length) return AC.append(box, [h("span", {class: "muted", text: " no change"})]);
    box.appendChild(h("ul", {class: "mono small"}, changes.map((c) => h("li", null, h("strong", {text: c.path}), ": ",
      JSON.stringify(c.before), " → ", JSON.stringify(c.after)))));
    return box;
  }

  /* whitespace runs as one space: an environment file read back may lay the injected text out otherwise */
  function squash(text) { return String(text).replace(/\s+/g, " ").trim(); }

  function turnHead(k, verdict) {
    const word = verdict === true ? "passed" : verdict === false ? "failed" : "not checked";
    return h("div", {class: "conv-turn", dataset: {turn: String(k + 1), verdict: word}},
      h("strong", {text: "Turn " + (k + 1)}), " ", AC.badge("checker: " + word, verdict === true ? "passed" : verdict === false ? "failed" : "pending"));
  }

  function message(m, idx, ctx) {
    const who = m.role === "tool" ? "tool" : m.role;
    const tag = m.role === "tool" ? "result for " + (m.requestor === "user" ? "the user" : "the agent") : m.role;
    const head = h("div", {class: "step-head"},
      h("span", {class: "idx", text: "#" + (m.turn === undefined || m.turn === null ? "" : m.turn)}),
      AC.badge(tag, m.role === "tool" && m.error ? "failed" : who),
      m.usage ? h("span", {class: "metrics", text: "in " + f.tokens(m.usage.input) + " · out " + f.tokens(m.usage.output)}) : null);
    const card = h("div", {class: "step msg conv-msg role-" + who + (m.requestor === "user" ? " by-user" : ""),
      dataset: {role: m.role, requestor: m.requestor || ""}}, head);
    const turn = ctx.turns.indexOf(idx);
    if (turn >= 0) card.insertBefore(turnHead(turn, ctx.verdicts ? ctx.verdicts[turn] : undefined), head);
    const injected = m.role === "tool" && typeof m.content === "string" && ctx.injections.length &&
      ctx.injections.some((x) => x && squash(m.content).includes(x));
    if (injected) { head.appendChild(AC.badge("injection", "failed")); card.dataset.injection = "yes"; }
    if (m.content !== null && m.content !== undefined && m.content !== "") card.appendChild(AC.longText(m.content, "text", 20000));
    AC.append(card, calls(m.tool_calls, m.role));
    if (m.role === "tool" && m.tool_call_id) AC.append(card, [effect(ctx.effects[m.tool_call_id])]);
    return card;
  }

  AC.renderConversation = function (t, grade) {
    const msgs = t.messages || [], info = t.info || {}, details = (grade || {}).details || {};
    const bfclTurns = "bfcl_id" in info && Array.isArray(info.turns) ? info.turns : [];  // BFCL's turn starts
    const ctx = {turns: bfclTurns, verdicts: (details.checker || {}).turns,
      effects: info.effects && typeof info.effects === "object" ? info.effects : {},
      injections: Object.values(details.injections || {}).map(squash)};
    const box = h("div", {class: "conversation"});
    box.appendChild(AC.kv([["messages", String(msgs.length)], ["ended by", t.termination],
      ["user calls", String(msgs.filter((m) => m.role === "user" && (m.tool_calls || []).length).length)],
      ["agent calls", String(msgs.reduce((n, m) => n + (m.role === "assistant" ? (m.tool_calls || []).length : 0), 0))]]));
    const list = h("div", {class: "steps"});
    AC.incremental(list, msgs, (m, i) => message(m, i, ctx), "messages");
    box.appendChild(list);
    return box;
  };

  function checks(title, rows, label) {
    if (!rows || !rows.length) return null;
    return h("div", null, h("h3", {text: title}), h("table", {class: "grid conv-checks"},
      h("tbody", null, rows.map((r) => h("tr", null,
        h("td", null, AC.badge(r.met || r.action_match ? "met" : "not met", r.met || r.action_match ? "passed" : "failed")),
        h("td", {class: "mono small", text: label(r)}))))));
  }

  AC.renderGradeBreakdown = function (info) {
    const parts = Object.entries(info.reward_breakdown || {});
    const db = info.db_check;
    return h("div", {class: "grade-breakdown"},
      AC.kv([["reward", f.num(info.reward, 4)], ["reward basis", (info.reward_basis || []).join(" × ")],
        ["components", parts.map(([k, v]) => k + " " + f.num(v, 2)).join(" · ")],
        ["database", db ? (db.db_match ? "matches the gold" : "differs from the gold") : null],
        ["note", (info.info || {}).note]]),
      checks("Actions", info.action_checks, (r) => (r.action || {}).name + "(" + JSON.stringify((r.action || {}).arguments || {}) + ")"),
      checks("Communicated", info.communicate_checks, (r) => r.info),
      checks("Environment assertions", info.env_assertions, (r) => (r.env_assertion || {}).func_name + " " + JSON.stringify((r.env_assertion || {}).arguments || {})),
      checks("NL assertions (judge)", info.nl_assertions, (r) => r.nl_assertion + (r.justification ? " — " + r.justification : "")));
  };

  AC.roleUsage = function (byRole) {
    const rows = Object.entries(byRole || {});
    if (!rows.length) return null;
    return h("table", {class: "grid role-usage"},
      h("thead", null, h("tr", null, ["role", "calls", "tokens in", "tokens out", "cost"].map((t) => h("th", {text: t})))),
      h("tbody", null, rows.map(([role, u]) => h("tr", {dataset: {role: role}}, h("td", {text: role}),
        h("td", {class: "num", text: String(u.calls || 0)}), h("td", {class: "num", text: f.tokens(u.input)}),
        h("td", {class: "num", text: f.tokens(u.output)}), h("td", {class: "num", text: f.cost(u.cost_usd)})))));
  };
})(window.AC);
