/* agentcompass viewer: mini-swe-agent trajectories (`mini-swe-agent-1` and `mini-swe-agent-1.1`): messages with
   role/content; the model's bash blocks (```bash, ```mswea_bash_command) or tool calls; observations with
   <returncode> and <output> (or <output_head>/<elided_chars>/<output_tail>); the final `exit` message. */
"use strict";
(function (AC) {
  const BLOCK = /```(?:bash|mswea_bash_command|sh|shell)?[ \t]*\n([\s\S]*?)\n```/g;
  const XML_BLOCK = /<mswea_bash_command>([\s\S]*?)<\/mswea_bash_command>/g;

  function tag(text, name) {
    const m = text.match(new RegExp("<" + name + ">\\n?([\\s\\S]*?)\\n?</" + name + ">"));
    return m ? m[1] : null;
  }

  /* An observation: {returncode, output, exception, warning} or null when the text is not one. */
  AC.parseObservation = function (text) {
    const rc = text.match(/<returncode>\s*(-?\d+)\s*<\/returncode>/);
    const output = tag(text, "output");
    const head = tag(text, "output_head"), tail = tag(text, "output_tail");
    if (!rc && output === null && head === null) return null;
    const elided = tag(text, "elided_chars");
    let out = output;
    if (out === null && head !== null) out = head + "\n[" + (elided || "characters elided").trim() + "]\n" + (tail || "");
    const warn = tag(text, "warning");
    return {returncode: rc ? Number(rc[1]) : null, output: out === null ? "" : out, exception: tag(text, "exception"),
      warning: warn};
  };

  /* 2.x observations also carry raw_output / returncode / exception_info in `extra` */
  function fromExtra(ex) {
    if (!ex || typeof ex !== "object" || typeof ex.raw_output !== "string") return null;
    return {returncode: typeof ex.returncode === "number" ? ex.returncode : null, output: ex.raw_output,
      exception: ex.exception_info || null, warning: null};
  }

  function splitBlocks(text) {
    const parts = [];
    let last = 0;
    const re = new RegExp(text.includes("<mswea_bash_command>") ? XML_BLOCK.source : BLOCK.source, "g");
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parts.push({kind: "text", text: text.slice(last, m.index)});
      parts.push({kind: "command", text: m[1]});
      last = re.lastIndex;
    }
    if (last < text.length) parts.push({kind: "text", text: text.slice(last)});
    return parts;
  }

  function command(text) {
    return AC.h("div", {class: "cmd"}, AC.h("span", {class: "prompt", text: "$"}), AC.longText(text, "command", 8000));
  }

  function toolCalls(calls) {
    return calls.map((c) => {
      const fn = c.function || c;
      let args = fn.arguments;
      if (typeof args === "string") { try { args = JSON.parse(args); } catch (e) { /* shown as text */ } }
      const cmd = args && typeof args === "object" ? args.command || args.cmd : null;
      return AC.h("div", {class: "toolcall"}, AC.h("span", {class: "fn", text: (fn.name || "tool") + "()"}),
        cmd ? command(cmd) : AC.longText(typeof args === "string" ? args : JSON.stringify(args, null, 2), "args", 8000));
    });
  }

  function observation(obs) {
    const ok = obs.returncode === 0;
    return AC.h("div", {class: "obs"},
      AC.h("div", {class: "obs-head"}, obs.returncode === null ? null
        : AC.h("span", {class: "rc " + (ok ? "ok" : "bad"), text: "returncode " + obs.returncode}),
        obs.warning ? AC.h("span", {class: "warn", text: obs.warning.trim()}) : null),
      obs.exception ? AC.longText(obs.exception, "terminal exc", 4000) : null,
      AC.longText(obs.output, "terminal", 20000));
  }

  function responseItems(msg) {
    /* a Responses-API turn (object: response): its text, reasoning and function calls */
    const out = [];
    for (const item of msg.output || []) {
      if (!item || typeof item !== "object") continue;
      if (item.type === "message") out.push(AC.h("div", {class: "thought"}, AC.longText(AC.text(item.content), "text")));
      else if (item.type === "reasoning") {
        const t = [].concat(item.summary || [], item.content || []).map((p) => (p && p.text) || "").join("\n");
        if (t) out.push(AC.h("details", {class: "reasoning"}, AC.h("summary", {text: "reasoning"}), AC.longText(t, "text")));
      } else if (item.type === "function_call") out.push(...toolCalls([{function: item}]));
    }
    return out;
  }

  function metaLine(msg) {
    const ex = msg.extra || {};
    const bits = [];
    const usage = ex.usage || (ex.response && ex.response.usage) || msg.usage;
    const m = AC.metricsLine(usage ? {input: usage.input !== undefined ? usage.input : usage.prompt_tokens,
      output: usage.output !== undefined ? usage.output : usage.completion_tokens,
      cached: usage.cached, cost: typeof ex.cost === "number" ? ex.cost : usage.cost_usd} : null);
    if (ex.timestamp) bits.push(AC.fmt.time(typeof ex.timestamp === "number" ? ex.timestamp * 1000 : ex.timestamp));
    if (typeof ex.duration_s === "number") bits.push(AC.fmt.dur(ex.duration_s));
    return AC.h("span", {class: "meta"}, m, bits.length ? " " + bits.join(" · ") : null);
  }

  function body(msg, role) {
    const text = AC.text(msg.content);
    if (role === "assistant") {
      const nodes = splitBlocks(text).map((p) => (p.kind === "command" ? command(p.text)
        : p.text.trim() ? AC.h("div", {class: "thought"}, AC.longText(p.text.trim(), "text")) : null));
      if (msg.reasoning_content) nodes.unshift(AC.h("details", {class: "reasoning"},
        AC.h("summary", {text: "reasoning"}), AC.longText(msg.reasoning_content, "text")));
      if (Array.isArray(msg.tool_calls)) nodes.push(...toolCalls(msg.tool_calls));
      return nodes;
    }
    if (msg.object === "response") return responseItems(msg);
    if (msg.type === "function_call_output") {
      const raw = typeof msg.output === "string" ? msg.output : AC.text(msg.output);
      const obs = AC.parseObservation(raw);
      return obs ? observation(obs) : AC.longText(raw, "terminal");
    }
    if (role === "exit") {
      const ex = msg.extra || {};
      const sub = typeof ex.submission === "string" ? ex.submission : text;
      const shown = !sub ? null : /^(diff --git|--- )/.test(sub) || sub.includes("\n@@ -") ? AC.renderDiff(sub) : AC.longText(sub, "text");
      return [AC.kv([["exit status", ex.exit_status]]), shown ? AC.h("div", {class: "submission"}, shown) : null,
        text && text !== sub ? AC.longText(text, "text") : null];
    }
    const obs = (role === "user" || role === "tool") ? AC.parseObservation(text) || fromExtra(msg.extra) : null;
    return obs ? observation(obs) : AC.longText(text, "text", role === "system" ? 4000 : 20000);
  }

  function message(msg, i, stepNo) {
    if (msg && msg.agentcompass_elided) return AC.elided(msg);
    const role = msg.role || (msg.object === "response" ? "assistant" : msg.type === "function_call_output" ? "tool" : "?");
    const head = AC.h("div", {class: "step-head"},
      AC.h("span", {class: "idx", text: "#" + i}), AC.badge(role, "role-" + role),
      stepNo ? AC.h("span", {class: "stepno", text: "step " + stepNo}) : null,
      msg.tool_call_id ? AC.h("span", {class: "muted", text: msg.tool_call_id}) : null, metaLine(msg));
    const card = AC.h("div", {class: "step msg role-" + role, dataset: {role: role, index: String(i)}}, head);
    const content = body(msg, role);
    if (role === "system") card.appendChild(AC.h("details", null, AC.h("summary", {text: "system prompt"}), content));
    else AC.append(card, [content]);
    return card;
  }

  AC.renderMsa = function (box, data) {
    const info = data.info || {};
    const stats = info.model_stats || {};
    const msgs = data.messages || [];
    const isStep = (m) => m && (m.role === "assistant" || m.object === "response");
    const nSteps = msgs.filter(isStep).length;
    const cfg = info.config || {};
    box.appendChild(AC.h("div", {class: "traj-head"}, AC.kv([
      ["format", data.trajectory_format || "mini-swe-agent messages"], ["instance", data.instance_id],
      ["exit status", info.exit_status], ["steps", String(nSteps)], ["messages", String(msgs.length)],
      ["api calls", stats.api_calls], ["cost", typeof stats.instance_cost === "number" ? AC.fmt.cost(stats.instance_cost) : null],
      ["model", cfg.model && cfg.model.model_name], ["version", info.mini_version],
      ["exception", info.exception_str]])));
    if (info.traceback) box.appendChild(AC.h("details", null, AC.h("summary", {text: "traceback"}), AC.longText(info.traceback, "terminal exc")));
    const list = AC.h("div", {class: "steps"});
    box.appendChild(list);
    const stepNos = [];
    let n = 0;
    for (const m of msgs) stepNos.push(isStep(m) ? ++n : 0);
    AC.incremental(list, msgs, (m, i) => message(m, i, stepNos[i]), "messages");
  };
})(window.AC);
