/* agentcompass viewer: the Run page (metrics, metadata, charts, and the task table: filtered, sorted, paged). */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;
  const PAGE = 100;
  const states = new Map();

  function stateOf(key) {
    if (!states.has(key)) states.set(key, {sort: "id", dir: "asc", page: 0, status: "", errclass: "", integrity: "", min: "", max: "", text: ""});
    return states.get(key);
  }

  function sub(r) {
    return Object.entries(r.sub || {}).map(([k, v]) => k + "=" + (typeof v === "number" ? +v.toFixed(3) : v)).join(" ");
  }

  const INTEGRITY_RANK = {hack: 2, suspect: 1, clean: 0};

  function cols(hasSample, scanned) {
    const c = [
      {key: "id", label: "Task", sort: (r) => r.id, cell: (r) => h("span", {class: "mono", text: r.id})},
      hasSample ? {key: "sample", label: "Sample", sort: (r) => r.sample, cell: (r) => (r.sample === null ? "–" : String(r.sample))} : null,
      {key: "status", label: "Status", sort: (r) => r.outcome, cell: (r) => AC.statusBadge(r)},
      {key: "reward", label: "Reward", sort: (r) => r.reward, cell: (r) => f.num(r.reward)},
      {key: "sub", label: "Sub-rewards", sort: (r) => sub(r), cell: (r) => h("span", {class: "small mono", text: sub(r)})},
      {key: "resolved", label: "Resolved", sort: (r) => (r.resolved === null || r.resolved === undefined ? null : r.resolved ? 1 : 0),
        cell: (r) => (r.resolved === true ? "yes" : r.resolved === false ? "no" : "–")},
      scanned ? {key: "integrity", label: "Integrity", sort: (r) => (r.integrity ? INTEGRITY_RANK[r.integrity.verdict] : null),
        cell: (r) => AC.integrityBadge(r)} : null,
      {key: "attempts", label: "Attempts", sort: (r) => r.attempts, cell: (r) => f.int(r.attempts)},
      {key: "error_type", label: "Error", sort: (r) => r.error_type, cell: (r) => (r.error_type ? h("span", {class: "bad", text: r.error_type}) : "")},
      {key: "error", label: "Message", sort: (r) => r.error, cell: (r) => h("span", {class: "small", title: r.error || "",
        text: r.error ? (r.error.length > 120 ? r.error.slice(0, 120) + "…" : r.error) : ""})},
      {key: "duration_s", label: "Duration", sort: (r) => r.duration_s, cell: (r) => f.dur(r.duration_s)},
      {key: "tokens", label: "Tokens in/out", sort: (r) => r.tokens_in, cell: (r) => f.tokens(r.tokens_in) + " / " + f.tokens(r.tokens_out)},
      {key: "cost_usd", label: "Cost", sort: (r) => r.cost_usd, cell: (r) => f.cost(r.cost_usd)},
    ];
    return c.filter(Boolean);
  }

  function filtered(rows, st) {
    const min = st.min === "" ? null : Number(st.min), max = st.max === "" ? null : Number(st.max);
    const words = st.text.toLowerCase().split(/\s+/).filter(Boolean);
    return rows.filter((r) => {
      if (st.status && r.outcome !== st.status) return false;
      if (st.errclass && r.error_class !== st.errclass) return false;
      if (st.integrity === "flagged" && !AC.flagged(r.integrity)) return false;
      if (st.integrity && st.integrity !== "flagged" && (r.integrity || {}).verdict !== st.integrity) return false;
      if (min !== null && !(typeof r.reward === "number" && r.reward >= min)) return false;
      if (max !== null && !(typeof r.reward === "number" && r.reward <= max)) return false;
      if (!words.length) return true;
      const hay = (r.id + " " + (r.error || "") + " " + (r.error_type || "") + " " + (r.exit_status || "")).toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  function renderTable(box, key, rows, st) {
    const columns = cols(rows.some((r) => r.sample !== null && r.sample !== undefined), rows.some((r) => r.integrity));
    const shown = AC.sortRows(filtered(rows, st), (columns.find((c) => c.key === st.sort) || columns[0]).sort, st.dir);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    st.page = Math.min(st.page, pages - 1);
    const tbody = h("tbody");
    for (const r of shown.slice(st.page * PAGE, (st.page + 1) * PAGE)) {
      const target = r.path || r.dir;
      tbody.appendChild(h("tr", {class: "click" + (AC.flagged(r.integrity) ? " int-flagged" : ""),
        dataset: {task: r.id, outcome: r.outcome, path: target || "", integrity: (r.integrity || {}).verdict || ""},
        onclick: () => { if (target) location.hash = AC.route.attempt(key, target); }},
        columns.map((c) => h("td", {class: "c-" + c.key}, c.cell(r)))));
    }
    const rerender = () => renderTable(box, key, rows, st);
    const pager = h("div", {class: "pager"},
      h("button", {text: "‹ prev", id: "page-prev", disabled: st.page === 0, onclick: () => { st.page--; rerender(); }}),
      h("span", {id: "page-info", text: " page " + (st.page + 1) + " of " + pages + " · " + shown.length + " of " + rows.length + " tasks "}),
      h("button", {text: "next ›", id: "page-next", disabled: st.page >= pages - 1, onclick: () => { st.page++; rerender(); }}));
    AC.clear(box).appendChild(h("div", {class: "scrollx"}, h("table", {class: "grid tasks", id: "tasks-table"},
      AC.thead(columns, st, (k) => { AC.toggleSort(st, k); rerender(); }), tbody)));
    box.appendChild(pager);
    AC.mark("tasksRendered");
  }

  function filters(key, rows, st, box) {
    const go = () => { st.page = 0; renderTable(box, key, rows, st); };
    const outcomes = ["passed", "failed", "error", "running", "pending", "cancelled", "not_started"].filter((o) => rows.some((r) => r.outcome === o));
    const classes = Array.from(new Set(rows.map((r) => r.error_class).filter(Boolean))).sort();
    const num = (id, ph, prop) => h("input", {type: "number", id: id, placeholder: ph, step: "0.1", value: st[prop],
      class: "narrow", oninput: (e) => { st[prop] = e.target.value; go(); }});
    return h("div", {class: "toolbar"},
      h("input", {type: "search", id: "task-filter", placeholder: "filter: task id, error text", value: st.text,
        oninput: (e) => { st.text = e.target.value; go(); }}),
      h("select", {id: "status-filter", onchange: (e) => { st.status = e.target.value; go(); }},
        h("option", {value: "", text: "any status"}), outcomes.map((o) => h("option", {value: o, text: o, selected: st.status === o}))),
      h("select", {id: "class-filter", onchange: (e) => { st.errclass = e.target.value; go(); }},
        h("option", {value: "", text: "any error class"}), classes.map((c) => h("option", {value: c, text: c, selected: st.errclass === c}))),
      rows.some((r) => r.integrity) ? h("select", {id: "integrity-filter", onchange: (e) => { st.integrity = e.target.value; go(); }},
        [["", "any integrity"], ["flagged", "flagged (suspect or hack)"], ["hack", "hack"], ["suspect", "suspect"], ["clean", "clean"]]
          .map(([v, t]) => h("option", {value: v, text: t, selected: st.integrity === v}))) : null,
      h("label", {class: "muted"}, "reward ", num("reward-min", "min", "min"), " – ", num("reward-max", "max", "max")));
  }

  /* Every count names what it counts: tasks, samples (a task's independent runs, -k) or tries (attempts, retries
     included); the intervals are over tasks (`n` of each `_ci`), the means over samples. */
  function counts(m) {
    const nS = m.n_samples === undefined ? m.n_tasks : m.n_samples;
    const samples = (n) => f.int(n) + (n === 1 ? " sample" : " samples");
    const iv = (x) => !x || x.low === null || x.low === undefined ? "" : "  [" + f.num(x.low, 4) + ", " + f.num(x.high, 4) + "] " + x.method + " over " + f.int(x.n) + " tasks";
    const over = nS === m.n_tasks ? f.int(m.n_tasks) + " tasks" : samples(nS) + " of " + f.int(m.n_tasks) + " tasks";
    return {nS, samples, iv, over};
  }

  /* A run continued by --reuse: each session's start, duration, samples run and status (null for one session). */
  function sessionList(sessions) {
    if (!sessions || sessions.length < 2) return null;
    return h("ol", {id: "sessions", class: "sessions"}, sessions.map((s, i) => h("li", {text: f.time(s.started_at) + " · " +
      (s.finished_at ? f.dur(s.duration_s) : "running") + " · " + f.int(s.samples_run) + (s.samples_run === 1 ? " sample" : " samples") + " run · " +
      (s.status || "?") + (i ? " (--reuse)" : " (first)")})));
  }

  function reviewNote(rv) {
    if (!rv) return "";
    if (rv.error) return "; review failed: " + rv.error;
    return "; LLM review of " + f.int(rv.n_selected) + ": hack " + f.int((rv.verdicts || {}).hack) + ", suspect " +
      f.int((rv.verdicts || {}).suspect) + ", clean " + f.int((rv.verdicts || {}).clean) + ", errors " + f.int(rv.n_errors) + " (" + f.cost(rv.cost_usd) + ")";
  }

  function metricsBox(d) {
    const m = d.metrics || {}, c = d.components || {}, run = d.run || {};
    const by = m.errors_by_class || {};
    const {nS, samples, iv, over} = counts(m);
    const perK = (name, sign) => m[name] ? Object.entries(m[name]).map(([k, v]) => "pass" + sign + k + " " + f.num(v) + iv((m[name + "_ci"] || {})[k])).join(" · ") : null;
    const passk = perK("pass_at_k", "@"), passhat = perK("pass_hat_k", "^");
    const dur = m.duration_s || {};
    const perTask = m.samples_per_task > 1 ? " × " + f.int(m.samples_per_task) + " samples = " + samples(nS) : "";
    return h("div", {class: "cards"},
      AC.kv([["benchmark", c.benchmark], ["harness", c.harness], ["model", c.model], ["environment", c.environment],
        ["status", AC.badge(run.status || "?", run.status)], ["started", f.time(run.started_at)],
        ["finished", f.time((d.metadata || {}).finished_at)], ["time running", f.dur((d.metadata || {}).duration_s)],
        ["sessions", sessionList((d.metadata || {}).sessions || run.sessions)],
        ["version", run.agentcompass_version]]),
      AC.kv([["mean reward", h("span", {id: "mean-reward", text: f.num(m.mean_reward, 4) + " over " + (m.mean_reward_denominator === nS ? over : samples(m.mean_reward_denominator)) + " (errors as 0)" + iv(m.mean_reward_ci)})],
        ["mean reward (valid)", m.mean_reward_valid === null ? "–" : f.num(m.mean_reward_valid, 4) + " over " + samples(m.n_valid_rewards) + iv(m.mean_reward_valid_ci)],
        ["pass rate", h("span", {id: "pass-rate", text: f.pct(m.pass_rate) + " of " + samples(nS) + iv(m.pass_rate_ci)})],
        ["resolved", m.resolved === undefined ? null : h("span", {id: "resolved", text: f.int(m.resolved) + " of " + samples(nS) + " (" + f.pct(m.resolved_rate) + ")" + iv(m.resolved_rate_ci)})],
        ["resolved (clean)", m.resolved_rate_clean === undefined ? null : h("span", {id: "resolved-clean", text: f.pct(m.resolved_rate_clean) + " of " + samples(nS) + iv(m.resolved_rate_clean_ci)})],
        ["integrity", m.integrity_flagged === undefined ? null : h("span", {id: "integrity-flagged", text: samples(m.integrity_flagged) + " flagged (hack " +
          f.int((m.integrity_verdicts || {}).hack) + ", suspect " + f.int((m.integrity_verdicts || {}).suspect) + ")" + reviewNote(m.integrity_review)})],
        ["pass@k", passk], ["pass^k", passhat],
        ["tasks", h("span", {id: "n-tasks", text: d.partial ? f.int(m.n_tasks) + " of " + f.int(run.n_tasks) + " tasks begun; " + samples(nS) + " of " + f.int(run.n_samples || run.n_tasks) + " finished" : f.int(m.n_tasks) + " tasks" + perTask})],
        ["tries", h("span", {id: "n-tries", text: f.int(m.n_tries === undefined ? m.n_attempts : m.n_tries) + " tries (" + f.int(m.n_retries) + " retries)"})],
        ["errors", h("span", {id: "n-errors", text: samples(m.n_errors) + (m.n_errors ? " (" + Object.keys(by).filter((k) => by[k]).map((k) => k + " " + by[k]).join(", ") + ")" : "")})],
        ["tokens", "in " + f.tokens((m.tokens || {}).input) + " · out " + f.tokens((m.tokens || {}).output) + " · cached " + f.tokens((m.tokens || {}).cached)],
        ["cost", f.cost(m.cost_usd)],
        ["model roles", Object.entries(m.usage_by_role || {}).map(([r, u]) => r + ": " + f.int(u.calls) + " calls, in " +
          f.tokens(u.input) + " · out " + f.tokens(u.output) + ", " + f.cost(u.cost_usd)).join("; ") || null],
        ["cache hits", m.cache_hits ? f.int(m.cache_hits) + " (saved " + f.cost(m.cost_saved_usd) + ")" : null],
        ["sample duration", "p50 " + f.dur(dur.p50) + " · p90 " + f.dur(dur.p90) + " · max " + f.dur(dur.max)]]));
  }

  function extras(key, d) {
    const box = h("div", {class: "extras"});
    const boot = AC.data.boot, mine = boot.more && boot.more[key];
    const a = AC.data.report ? ((mine ? mine.analysis : boot.analysis) || {}) : null;
    const links = [];
    for (const name of ["analysis.md", "analysis.json"]) {
      const href = a ? (a.links || {})[name] : d.analysis && d.analysis[name] ? AC.data.fileUrl(key, name) : null;
      if (href) links.push(h("a", {href: href, class: "analysis-link", text: name, target: "_blank", rel: "noopener"}));
    }
    if (links.length) box.appendChild(h("p", null, "Analysis: ", links.map((l, i) => [i ? " · " : "", l])));
    if (a && a.md) box.appendChild(AC.section("Analysis", "analysis", AC.longText(a.md, "text"), false));
    if (!AC.data.report && d.files && d.files.length) {
      box.appendChild(h("p", {class: "files"}, "Run files: ", d.files.map((n, i) => [i ? " · " : "",
        h("a", {href: AC.data.fileUrl(key, n), target: "_blank", rel: "noopener", text: n})])));
    }
    if (d.config) box.appendChild(AC.section("Config (resolved, secrets redacted)", "config", AC.jsonTree(d.config, undefined, true), false));
    return box;
  }

  function compareLink(key, d) {
    if (AC.data.report) return null;
    const sel = h("select", {id: "compare-with"}, h("option", {value: "", text: "compare with…"}));
    AC.data.runs().then((data) => {
      for (const r of data.runs) {
        if (r.key === key || r.benchmark !== (d.components || {}).benchmark) continue;
        sel.appendChild(h("option", {value: r.key, text: r.run_name + " / " + r.run_id}));
      }
    });
    sel.addEventListener("change", () => { if (sel.value) location.hash = AC.route.compare(key, sel.value); });
    return sel;
  }

  AC.views = AC.views || {};
  AC.views.run = async function (main, ctx, key) {
    const [d, t] = await Promise.all([AC.data.run(key), AC.data.tasks(key)]);
    const rows = t.tasks, st = stateOf(key), run = d.run || {};
    ctx.crumbs([["Runs", "#/"], [(run.run_name || key) + " / " + (run.run_id || ""), AC.route.run(key)]]);
    const box = h("div", {id: "tasks"});
    AC.clear(main).appendChild(h("h1", null, run.run_name || key, " ", h("span", {class: "muted mono small", text: run.run_id || ""}),
      " ", compareLink(key, d)));
    if (d.partial) main.appendChild(h("p", {class: "note", id: "partial-note", text: run.status === "running"
      ? "Running: metrics so far (" + f.int(run.n_finished) + " of " + f.int(run.n_tasks) + " tasks finished); the page refreshes as files change."
      : "No summary.json: metrics computed from results.jsonl."}));
    main.appendChild(metricsBox(d));
    main.appendChild(h("div", {class: "charts"}, AC.rewardHistogram(rows), AC.durationHistogram(rows)));
    main.appendChild(extras(key, d));
    main.appendChild(h("h2", {text: "Tasks"}));
    main.appendChild(filters(key, rows, st, box));
    main.appendChild(box);
    renderTable(box, key, rows, st);
    ctx.watch({run: key}, d.stamp);
  };
})(window.AC);
