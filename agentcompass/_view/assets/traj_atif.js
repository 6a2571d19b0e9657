/* agentcompass viewer: ATIF trajectories (Terminus-2 and other Harbor agents): steps with source, message,
   tool calls (bash_command keystrokes and durations, mark_task_complete), observations, metrics, timestamps. */
"use strict";
(function (AC) {
  function parseReply(text) {
    /* a Terminus-2 reply is a JSON object; show analysis / plan when it parses */
    if (typeof text !== "string" || text.indexOf("{") < 0) return null;
    const start = text.indexOf("{"), end = text.lastIndexOf("}");
    try {
      const obj = JSON.parse(text.slice(start, end + 1));
      return obj && typeof obj === "object" && ("analysis" in obj || "plan" in obj) ? obj : null;
    } catch (e) { return null; }
  }

  function toolCall(c) {
    const args = c.arguments || {};
    if (c.function_name === "bash_command") {
      return AC.h("div", {class: "toolcall keystrokes"}, AC.h("span", {class: "fn", text: "keys"}), AC.keys(args.keystrokes),
        args.duration !== undefined ? AC.h("span", {class: "wait", text: "wait " + args.duration + " s"}) : null);
    }
    if (c.function_name === "mark_task_complete") return AC.h("div", {class: "toolcall"}, AC.badge("task_complete", "passed"));
    return AC.h("div", {class: "toolcall"}, AC.h("span", {class: "fn", text: (c.function_name || "tool") + "()"}),
      AC.longText(typeof args === "string" ? args : JSON.stringify(args, null, 2), "args", 8000));
  }

  function observation(obs) {
    const results = (obs && obs.results) || [];
    return results.map((r) => AC.h("div", {class: "obs"},
      r.source_call_id ? AC.h("div", {class: "obs-head muted", text: "→ " + r.source_call_id}) : null,
      AC.longText(AC.text(r.content), "terminal", 20000)));
  }

  function delta(prev, cur) {
    const a = Date.parse(prev), b = Date.parse(cur);
    return isNaN(a) || isNaN(b) ? null : (b - a) / 1000;
  }

  function step(s, i, steps) {
    if (s && s.agentcompass_elided) return AC.elided(s);
    const src = s.source || "?";
    const dt = i > 0 && steps[i - 1] ? delta(steps[i - 1].timestamp, s.timestamp) : null;
    const head = AC.h("div", {class: "step-head"},
      AC.h("span", {class: "idx", text: "#" + (s.step_id !== undefined ? s.step_id : i + 1)}), AC.badge(src, "role-" + src),
      s.timestamp ? AC.h("span", {class: "muted", text: AC.fmt.time(s.timestamp)}) : null,
      dt !== null ? AC.h("span", {class: "dt", text: "+" + AC.fmt.dur(dt)}) : null,
      s.model_name ? AC.h("span", {class: "muted", text: s.model_name}) : null, AC.metricsLine(s.metrics));
    const card = AC.h("div", {class: "step atif src-" + src, dataset: {source: src, step: String(s.step_id)}}, head);
    const text = AC.text(s.message);
    const reply = src === "agent" ? parseReply(text) : null;
    if (reply) {
      card.appendChild(AC.kv([["analysis", reply.analysis], ["plan", reply.plan]]));
      card.appendChild(AC.h("details", {class: "raw"}, AC.h("summary", {text: "raw reply"}), AC.longText(text, "text")));
    } else if (src === "user" && i === 0) {
      card.appendChild(AC.h("details", null, AC.h("summary", {text: "first prompt (" + text.length + " chars)"}),
        AC.longText(text, "text")));
    } else if (text) {
      card.appendChild(AC.longText(text, "text"));
    }
    if (s.reasoning_content) card.appendChild(AC.h("details", {class: "reasoning"}, AC.h("summary", {text: "reasoning"}),
      AC.longText(s.reasoning_content, "text")));
    const ex = s.extra || {};
    for (const w of ex.warnings || []) card.appendChild(AC.h("div", {class: "warn", text: "warning: " + w}));
    if (ex.error) card.appendChild(AC.h("div", {class: "warn bad", text: "error: " + ex.error}));
    for (const c of s.tool_calls || []) card.appendChild(toolCall(c));
    if (s.observation) AC.append(card, [observation(s.observation)]);
    return card;
  }

  AC.renderAtif = function (box, data) {
    const agent = data.agent || {};
    const fm = data.final_metrics || {};
    const ex = data.extra || {};
    const steps = data.steps || [];
    box.appendChild(AC.h("div", {class: "traj-head"}, AC.kv([
      ["format", data.schema_version || "ATIF"], ["agent", [agent.name, agent.version].filter(Boolean).join(" ")],
      ["model", agent.model_name], ["steps", String(steps.length)],
      ["agent steps", String(steps.filter((s) => s && s.source === "agent").length)],
      ["episodes", ex.n_episodes], ["summarizations", ex.summarization_count], ["exit status", ex.exit_status],
      ["tokens", fm.total_prompt_tokens !== undefined ? "in " + AC.fmt.tokens(fm.total_prompt_tokens) + " · out " +
        AC.fmt.tokens(fm.total_completion_tokens) + (fm.total_cached_tokens ? " · cached " + AC.fmt.tokens(fm.total_cached_tokens) : "") : null],
      ["cost", typeof fm.total_cost_usd === "number" ? AC.fmt.cost(fm.total_cost_usd) : null],
      ["session", data.session_id]])));
    const list = AC.h("div", {class: "steps"});
    box.appendChild(list);
    AC.incremental(list, steps, (s, i) => step(s, i, steps), "steps");
  };
})(window.AC);
