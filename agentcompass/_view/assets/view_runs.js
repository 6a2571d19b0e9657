/* agentcompass viewer: the Runs page (every run under the given directories; sortable, filterable, live). */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;
  const state = {sort: "started_at", dir: "desc", text: "", status: "", selected: new Set()};

  function errors(r) {
    const by = r.errors_by_class || {};
    const parts = Object.keys(by).filter((k) => by[k]).map((k) => k + " " + by[k]);
    return parts.length ? parts.join(", ") : r.n_errors ? String(r.n_errors) : "0";
  }

  /* A running run shows the figures of its samples finished so far (marked), or a dash before the first. */
  const live = (cell) => (r) => {
    if (r.partial && !r.n_samples) return h("span", {class: "muted", title: "no sample finished yet", text: "–"});
    const el = cell(r);
    return r.partial ? h("span", {class: "partial", title: "so far: " + samples(r.n_samples) + " finished"}, el) : el;
  };
  // a run id as agentcompass makes them (UTC time, then a random suffix): the suffix (the time is in Started)
  const shortId = (id) => { const m = /^\d{8}T[\d.]+Z-(\w+)$/.exec(id || ""); return m ? m[1] : id || "–"; };
  const samples = (n) => f.int(n) + (n === 1 ? " sample" : " samples");
  function tasks(r) {
    const k = r.samples_per_task || 1;
    if (r.status === "running") return f.int(r.n_finished) + "/" + f.int(r.n_samples_total) + " samples";
    return h("span", {title: f.int(r.n_tasks) + " tasks × " + samples(k) + " each"}, f.int(r.n_tasks) + (k > 1 ? " × " + k : ""));
  }

  const COLS = [
    {key: "sel", w: 24, label: "", cell: (r) => h("input", {type: "checkbox", class: "pick", checked: state.selected.has(r.key),
      title: "select for Compare", onchange: (e) => { e.target.checked ? state.selected.add(r.key) : state.selected.delete(r.key); syncCompare(); }})},
    {key: "run_name", w: "11%", label: "Run", sort: (r) => r.run_name, cell: (r) => h("a", {href: AC.route.run(r.key), class: "runlink", text: r.run_name})},
    {key: "run_id", w: 60, label: "Id", sort: (r) => r.run_id, cell: (r) => h("span", {class: "mono small", title: r.run_id, text: shortId(r.run_id)})},
    {key: "status", w: 80, label: "Status", sort: (r) => r.status, cell: (r) => AC.badge(r.status || "?", r.status)},
    {key: "benchmark", label: "Benchmark", sort: (r) => r.benchmark, cell: (r) => r.benchmark || "–"},
    {key: "harness", label: "Harness", sort: (r) => r.harness, cell: (r) => r.harness || "–"},
    {key: "model", label: "Model", sort: (r) => r.model, cell: (r) => r.model || "–"},
    {key: "n_tasks", w: 76, label: "Tasks × samples", title: "tasks, times the samples run of each (-k)", sort: (r) => r.n_tasks, cell: tasks},
    {key: "mean_reward", w: 84, label: "Mean reward / samples", title: "the mean over samples (errors count 0) / how many samples", sort: (r) => r.mean_reward,
      cell: live((r) => h("span", {title: "mean over " + samples(r.mean_reward_denominator) + " of " + f.int(r.n_tasks) + " tasks, errors count 0"}, f.num(r.mean_reward),
        h("span", {class: "muted", text: " /" + (r.mean_reward_denominator === undefined ? "–" : r.mean_reward_denominator)})))},
    {key: "pass_rate", w: 60, label: "Pass rate", title: "share of samples with reward >= 1", sort: (r) => r.pass_rate, cell: live((r) => f.pct(r.pass_rate))},
    {key: "resolved", w: 80, label: "Resolved / samples", title: "samples resolved / finished samples", sort: (r) => r.resolved,
      cell: live((r) => (r.resolved === null || r.resolved === undefined ? "–" : f.int(r.resolved) + "/" + f.int(r.n_samples)))},
    {key: "n_errors", w: 80, label: "Errored samples", title: "samples that ended in an error, by class", sort: (r) => r.n_errors, cell: live((r) => h("span", {class: r.n_errors ? "bad" : "muted", text: errors(r)}))},
    {key: "tokens", w: 82, label: "Tokens in/out", sort: (r) => (r.tokens || {}).input, cell: live((r) => f.tokens((r.tokens || {}).input) + " / " + f.tokens((r.tokens || {}).output))},
    {key: "cost_usd", w: 64, label: "Cost", sort: (r) => r.cost_usd, cell: live((r) => f.cost(r.cost_usd))},
    {key: "duration_s", w: 76, label: "Duration", sort: (r) => r.duration_s, cell: (r) => (r.status === "running" ? h("span", {class: "muted", text: "running"}) : f.dur(r.duration_s))},
    {key: "started_at", w: 90, label: "Started", sort: (r) => r.started_at, cell: (r) => h("span", {title: f.time(r.started_at), text: f.shortTime(r.started_at)})},
  ];

  function matches(r) {
    if (state.status && r.status !== state.status) return false;
    if (!state.text) return true;
    const hay = [r.run_name, r.run_id, r.benchmark, r.harness, r.model, r.status, r.key].join(" ").toLowerCase();
    return state.text.toLowerCase().split(/\s+/).every((w) => hay.includes(w));
  }

  let compareBtn = null;
  function syncCompare() {
    if (!compareBtn) return;
    const sel = Array.from(state.selected);
    compareBtn.disabled = sel.length !== 2;
    compareBtn.textContent = sel.length === 2 ? "Compare the 2 selected runs" : "Compare (select 2 runs)";
  }

  function cell(c, r) {
    const td = h("td", {class: "c-" + c.key}, c.cell(r));
    const own = td.querySelector("[title]");  // a cell's own tooltip, else its whole text
    if (c.key !== "sel") td.title = own ? own.title : td.textContent;
    return td;
  }

  function table(el, runs) {
    const rows = AC.sortRows(runs.filter(matches), (COLS.find((c) => c.key === state.sort) || COLS[15]).sort, state.dir);
    const tbody = h("tbody");
    for (const r of rows) {
      tbody.appendChild(h("tr", {dataset: {key: r.key, status: r.status || ""}}, COLS.map((c) => cell(c, r))));
    }
    /* Fixed column widths (the names share what is left), one line per row: a cell cut short shows its whole
       text as a tooltip. */
    const cols = h("colgroup", null, COLS.map((c) => h("col", {class: "c-" + c.key, attrs: c.w ? {style: "width: " + (typeof c.w === "number" ? c.w + "px" : c.w)} : {}})));
    const t = h("table", {class: "grid runs", id: "runs-table"}, cols,
      AC.thead(COLS, state, (k) => { AC.toggleSort(state, k); table(el, runs); }), tbody);
    AC.clear(el).appendChild(h("div", {class: "scrollx"}, t));
    el.appendChild(h("p", {class: "muted count", text: rows.length + " of " + runs.length + " runs"}));
  }

  AC.views = AC.views || {};
  AC.views.runs = async function (main, ctx) {
    const data = await AC.data.runs();
    const runs = data.runs;
    ctx.crumbs([["Runs", "#/"]]);
    const tableBox = h("div", {id: "runs"});
    const statuses = Array.from(new Set(runs.map((r) => r.status).filter(Boolean))).sort();
    compareBtn = h("button", {id: "compare-btn", class: "primary", disabled: true, onclick: () => {
      const started = (k) => (runs.find((r) => r.key === k) || {}).started_at || "";
      const [a, b] = Array.from(state.selected).sort((x, y) => started(x).localeCompare(started(y)));  // A: the older
      location.hash = AC.route.compare(a, b);
    }});
    const bar = h("div", {class: "toolbar"},
      h("input", {type: "search", id: "runs-filter", placeholder: "filter: name, id, benchmark, harness, model",
        value: state.text, oninput: (e) => { state.text = e.target.value; table(tableBox, runs); }}),
      h("select", {id: "runs-status", onchange: (e) => { state.status = e.target.value; table(tableBox, runs); }},
        h("option", {value: "", text: "any status"}), statuses.map((s) => h("option", {value: s, text: s, selected: state.status === s}))),
      compareBtn);
    AC.clear(main).appendChild(h("h1", {text: "Runs"}));
    main.appendChild(bar);
    main.appendChild(tableBox);
    if (!runs.length) main.appendChild(h("p", {class: "note", text: "No run directories (with a run.json) were found."}));
    for (const k of Array.from(state.selected)) if (!runs.some((r) => r.key === k)) state.selected.delete(k);
    table(tableBox, runs);
    syncCompare();
    ctx.watch({}, data.stamp);
  };
})(window.AC);
