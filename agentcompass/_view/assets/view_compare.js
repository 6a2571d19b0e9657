/* agentcompass viewer: Compare two runs of one benchmark (flipped tasks linked to their attempts; the numbers of `agentcompass compare`). */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;
  const state = {show: ""};

  function picker(runs, a, b) {
    const sel = (id, cur) => h("select", {id: id}, h("option", {value: "", text: "choose a run"}),
      runs.map((r) => h("option", {value: r.key, selected: r.key === cur, text: r.run_name + " / " + r.run_id + " (" + (r.benchmark || "?") + ")"})));
    const sa = sel("compare-a", a), sb = sel("compare-b", b);
    const go = () => { if (sa.value && sb.value) location.hash = AC.route.compare(sa.value, sb.value); };
    sa.addEventListener("change", go);
    sb.addEventListener("change", go);
    return h("div", {class: "toolbar"}, "A ", sa, " B ", sb);
  }

  function cell(key, side) {
    if (!side) return h("span", {class: "muted", text: "–"});
    const link = side.path ? h("a", {href: AC.route.attempt(key, side.path), text: f.num(side.reward)}) : f.num(side.reward);
    return h("span", null, link, " ", AC.badge(side.outcome, side.outcome), side.n > 1 ? h("span", {class: "muted", text: " ×" + side.n}) : null);
  }

  const ci = (x) => !x || x.low === null || x.low === undefined ? "–" : "[" + f.num(x.low, 4) + ", " + f.num(x.high, 4) + "]";
  const pv = (p) => p === null || p === undefined ? "–" : p < 1e-4 ? p.toExponential(2) : f.num(p, 4);

  function statsRows(c) {
    const s = c.stats, all = c.comparison;
    if (!s) return [["statistics", h("span", {class: "bad", text: "runs of different benchmarks: no paired statistics"})]];
    const t = all.tasks, errored = Array.from(new Set([].concat(t.errored.A, t.errored.B))).sort();
    const pw = s.power || {}, test = s.test || {}, perm = test.permutation;
    return [
      ["tasks analysed", h("span", {id: "n-analysed", text: String(s.n) + (errored.length ? "  (" + errored.length + " errored, left out: " + errored.join(", ") + ")" : "  (no errors)")})],
      ["mean A · B", f.num(s.mean_a, 4) + " · " + f.num(s.mean_b, 4)],
      ["mean difference B − A", h("span", {id: "mean-diff", text: (s.mean_diff > 0 ? "+" : "") + f.num(s.mean_diff, 4) + "  95% CI " + ci(s.ci) + " (" + s.ci.method + ")"})],
      ["paired bootstrap", h("span", {id: "bootstrap", text: ci(s.bootstrap) + " (seed " + (s.bootstrap || {}).seed + ", " + (s.bootstrap || {}).n_resamples + " resamples)"})],
      ["test", h("span", {id: "p-value", text: test.name + " p = " + pv(test.p_value) + (s.significant ? " (significant at " + all.alpha + ")" : " (not significant)") +
        (perm ? " · sign-flip permutation p = " + pv(perm.p_value) : "")})],
      ["power", h("span", {id: "power", text: pw.mde === null || pw.mde === undefined ? "–" : "80% to detect " + f.num(pw.mde, 4) + " with " + s.n + " tasks"})],
    ];
  }

  function summary(c) {
    const s = c.stats || {};
    return h("div", {class: "cards", id: "compare-summary"},
      AC.kv([["A", c.a.run_name + " / " + c.a.run_id], ["B", c.b.run_name + " / " + c.b.run_id],
        ["benchmark", c.same_benchmark ? c.a.benchmark : h("span", {class: "bad", text: c.a.benchmark + " vs " + c.b.benchmark + " (not the same benchmark)"})],
        ["tasks in both", String(c.tasks.length - c.only_a.length - c.only_b.length)], ["only in A", String(c.only_a.length)], ["only in B", String(c.only_b.length)],
        ["flipped", h("span", {id: "flips"}, h("span", {class: "good", text: c.n_gained + " gained"}), " · ", h("span", {class: "bad", text: c.n_lost + " lost"}))]]),
      AC.kv(statsRows(c)));
  }

  function table(box, c) {
    const rows = c.tasks.filter((r) => !state.show || (state.show === "flipped" ? r.flip : r.flip === state.show));
    AC.clear(box).appendChild(h("table", {class: "grid", id: "compare-table"},
      h("thead", null, h("tr", null, ["Task", "A", "B", "Δ", "Flip"].map((t) => h("th", {text: t})))),
      h("tbody", null, rows.map((r) => h("tr", {dataset: {task: r.id, flip: r.flip || ""}},
        h("td", {class: "mono", text: r.id}), h("td", null, cell(c.a.key, r.a)), h("td", null, cell(c.b.key, r.b)),
        h("td", {class: "num " + (r.delta > 0 ? "good" : r.delta < 0 ? "bad" : ""), text: r.delta === null ? "–" : (r.delta > 0 ? "+" : "") + f.num(r.delta)}),
        h("td", null, r.flip ? AC.badge(r.flip, r.flip === "gained" ? "passed" : "error") : ""))))));
    box.appendChild(h("p", {class: "muted", text: rows.length + " of " + c.tasks.length + " tasks"}));
  }

  AC.views = AC.views || {};
  AC.views.compare = async function (main, ctx, a, b) {
    ctx.crumbs([["Runs", "#/"], ["Compare", AC.route.compare(a, b)]]);
    const runs = (await AC.data.runs()).runs;
    AC.clear(main).appendChild(h("h1", {text: "Compare runs"}));
    main.appendChild(picker(runs, a, b));
    if (!a || !b) { main.appendChild(h("p", {class: "note", text: "Choose two runs of the same benchmark."})); return; }
    const c = await AC.data.compare(a, b);
    main.appendChild(summary(c));
    main.appendChild(h("p", {class: "muted small", text: "Per task: the final reward (an error counts 0; with samples, their mean). " +
      "Difference over the tasks finished in both runs and errored in neither; 95% CI = mean ± t(n−1) · sd(B − A) / √n (task-clustered); " +
      "the same numbers as `agentcompass compare A B` (docs/statistics.md). Gained / lost: B's task outcome higher / lower than A's."}));
    const box = h("div", {id: "compare-rows"});
    main.appendChild(h("div", {class: "toolbar"}, h("select", {id: "flip-filter", onchange: (e) => { state.show = e.target.value; table(box, c); }},
      [["", "all tasks"], ["flipped", "flipped only"], ["gained", "gained (B passes, A not)"], ["lost", "lost (A passes, B not)"]]
        .map(([v, t]) => h("option", {value: v, text: t, selected: state.show === v})))));
    main.appendChild(box);
    table(box, c);
    ctx.watch({}, null);
  };
})(window.AC);
