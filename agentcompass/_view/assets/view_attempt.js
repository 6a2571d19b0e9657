/* agentcompass viewer: the Attempt page (trajectory, verifier log, patch, error, model calls, artifacts, phases,
   usage). */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;

  function siblings(key, att) {
    const list = att.siblings || [];
    if (list.length < 2) return null;
    return h("div", {class: "tabs", id: "attempt-tabs"}, list.map((s) => h("a", {
      href: AC.route.attempt(key, s.path), class: "tab" + (s.path === att.path ? " on" : ""),
      text: (s.sample !== null && s.sample !== undefined ? "sample " + s.sample + " · " : "") + "attempt " + s.attempt +
        " (" + (s.status === "completed" ? "reward " + f.num(s.reward) : s.status) + ")"})));
  }

  function summary(att) {
    const u = att.usage || {}, a = att.agent || {}, env = att.environment || {};
    return h("div", {class: "cards"},
      AC.kv([["status", AC.badge(att.status, att.status === "completed" ? ((att.reward || 0) >= 1 ? "passed" : "failed") : att.status)],
        ["reward", f.num(att.reward, 4)], ["rewards", Object.entries(att.rewards || {}).map(([k, v]) => k + "=" + v).join(" ")],
        ["resolved", att.resolved === null || att.resolved === undefined ? null : String(att.resolved)],
        ["duration", f.dur(att.duration_s)], ["resumed from checkpoint", att.resumed_from_checkpoint ? "yes" : null]]),
      AC.kv([["exit status", a.exit_status], ["turns", a.n_turns], ["limit hit", a.limit_hit],
        ["format errors", a.n_format_errors || null],
        ["model calls", u.calls], ["tokens", "in " + f.tokens(u.input) + " · out " + f.tokens(u.output) + " · cached " + f.tokens(u.cached)],
        ["model retries", u.retries || null], ["cost", f.cost(u.cost_usd)],
        ["cache hits", u.cache_hits ? u.cache_hits + " (saved " + f.cost(u.cost_saved_usd) + ")" : null],
        ["environment", [env.provider, env.container_id || env.workspace || env.id].filter(Boolean).join(" ")]]));
  }

  function errorBox(err) {
    return h("div", {class: "error-box"},
      h("p", null, AC.badge(err.class || "error", "error"), " ", h("strong", {text: err.type || "error"}),
        err.retryable ? h("span", {class: "muted", text: " (retryable)"}) : null),
      err.message ? h("p", {class: "mono", text: err.message}) : null,
      err.traceback ? AC.longText(err.traceback, "terminal exc", 40000) : null);
  }

  function logBox(key, log) {
    const full = AC.data.fileUrl(key, log.path);
    return h("div", null,
      h("p", {class: "muted"}, log.name + " · " + f.bytes(log.size) + (log.truncated ? " · head and tail shown" : ""),
        full ? [" · ", h("a", {href: full, target: "_blank", rel: "noopener", text: "raw"})] : null),
      AC.longText(log.text, "terminal log", 200000));
  }

  function artifacts(key, att) {
    const m = att.artifacts;
    const rows = (m.files || []).map((e) => {
      const saved = e.status !== "skipped";
      const rel = att.path + "/artifacts/" + String(e.path).replace(/^\/+/, "");
      const url = saved ? AC.data.fileUrl(key, rel) : null;
      return h("tr", null, h("td", {class: "mono"}, url ? h("a", {href: url, target: "_blank", rel: "noopener", text: e.path}) : e.path),
        h("td", {class: "num", text: f.bytes(e.size)}), h("td", {class: "num", text: f.bytes(e.bytes)}),
        h("td", null, AC.badge(e.status, e.status === "saved" ? "passed" : e.status === "truncated" ? "failed" : "pending")),
        h("td", {class: "small", text: e.reason || ""}));
    });
    return h("div", null, AC.kv([["patterns", (m.patterns || []).join(" ")], ["budgets", JSON.stringify(m.budgets || {})],
      ["totals", JSON.stringify(m.totals || m.counts || {})]]),
      h("table", {class: "grid"}, h("thead", null, h("tr", null, ["file", "size", "saved", "status", "reason"].map((t) => h("th", {text: t})))),
        h("tbody", null, rows)),
      (m.errors || []).length ? h("ul", {class: "warn"}, m.errors.map((e) => h("li", {class: "mono",
        text: (e.pattern || "") + ": " + (e.error || JSON.stringify(e))}))) : null);
  }

  function fileList(key, att) {
    return h("ul", {class: "files"}, (att.files || []).map((x) => {
      const url = AC.data.fileUrl(key, att.path + "/" + x.name);
      return h("li", null, url ? h("a", {href: url, target: "_blank", rel: "noopener", text: x.name}) : h("span", {class: "mono", text: x.name}),
        h("span", {class: "muted", text: " " + f.bytes(x.size)}));
    }));
  }

  async function trajectory(box, key, att) {
    const t = att.trajectory;
    const t0 = performance.now();
    box.appendChild(h("p", {class: "muted", text: t.name + " · " + f.bytes(t.size)}));
    const slot = h("div", {class: "traj-slot", text: "Loading the trajectory…"});
    box.appendChild(slot);
    try {
      const data = await AC.data.trajectory(key, att);
      AC.clear(slot).appendChild(AC.renderTrajectory(data, t));
      AC.mark("trajRendered");
      document.documentElement.dataset.trajMs = String(Math.round(performance.now() - t0));
    } catch (e) {
      AC.clear(slot).appendChild(h("p", {class: "bad", text: "Cannot show the trajectory: " + e.message}));
    }
  }

  AC.views = AC.views || {};
  AC.views.attempt = async function (main, ctx, key, path) {
    let att;
    if (!/\/attempt-\d+$/.test(path)) {        // a task folder: open its last attempt
      const list = (await AC.data.task(key, path)).attempts || [];
      if (!list.length) {
        AC.clear(main).appendChild(h("p", {class: "note", text: "No attempt has started for " + path + " yet."}));
        return ctx.watch({run: key}, null);
      }
      return AC.views.attempt(main, ctx, key, list[list.length - 1].path);
    }
    att = await AC.data.attempt(key, path);
    const taskId = att.task_id || path.split("/")[1];
    ctx.crumbs([["Runs", "#/"], [key.split("/").slice(-2).join(" / "), AC.route.run(key)],
      [taskId + " · attempt " + att.attempt + (att.sample !== null && att.sample !== undefined ? " · sample " + att.sample : ""), AC.route.attempt(key, path)]]);
    AC.clear(main).appendChild(h("h1", null, h("span", {class: "mono", text: taskId}), " ",
      h("span", {class: "muted", text: "attempt " + att.attempt}), " ", AC.badge(att.running ? "running" : att.status, att.running ? "running" : att.status),
      AC.flagged(att.integrity) ? [" ", AC.integrityBadge({integrity: att.integrity})] : null));
    AC.append(main, [siblings(key, att), summary(att)]);
    if (Object.keys(att.phases || {}).length) main.appendChild(AC.section("Phases", "phases", AC.phaseBar(att.phases)));
    if (att.integrity && (AC.flagged(att.integrity) || att.integrity.review)) main.appendChild(AC.section("Integrity", "integrity-section", AC.integrityBox(att.integrity)));
    if (att.error) main.appendChild(AC.section("Error", "error", errorBox(att.error)));
    if (att.patch) main.appendChild(AC.section("Patch (" + att.patch.source + ")", "patch", AC.renderDiff(att.patch.text)));
    if (att.verifier_log) main.appendChild(AC.section("Verifier log", "verifier", logBox(key, {...att.verifier_log, path: path + "/verifier.log"})));
    if ((att.agent || {}).submission) main.appendChild(AC.section("Submission", "submission", AC.longText(att.agent.submission, "text")));
    const verdict = AC.renderVerdict(att.grade);
    if (verdict) main.appendChild(AC.section("Verdict", "verdict", verdict));
    if (att.transcript) main.appendChild(AC.section("Conversation", "conversation", AC.renderConversation(att.transcript, att.grade)));
    const info = ((att.grade || {}).details || {}).reward_info;
    if (info) main.appendChild(AC.section("Grade", "grade-breakdown", AC.renderGradeBreakdown(info)));
    const roles = AC.roleUsage(att.usage_by_role);
    if (roles) main.appendChild(AC.section("Usage per model role", "role-usage", roles));
    const trajBox = h("div");
    if (att.trajectory) main.appendChild(AC.section("Trajectory", "trajectory", trajBox));
    if (att.model_calls) main.appendChild(AC.section("Model calls (" + att.model_calls.totals.calls + ")", "calls", AC.modelCalls(key, att)));
    if (att.artifacts) main.appendChild(AC.section("Artifacts", "artifacts", artifacts(key, att), false));
    if (att.grade && (att.grade.details || att.grade.error)) main.appendChild(AC.section("Grade details", "grade", AC.jsonTree(att.grade, undefined, true), false));
    main.appendChild(AC.section("Files", "files", fileList(key, att), false));
    if (att.trajectory) await trajectory(trajBox, key, att);
    ctx.watch(att.running ? {run: key, path: path} : {}, att.running ? att.stamp : null);
  };
})(window.AC);
