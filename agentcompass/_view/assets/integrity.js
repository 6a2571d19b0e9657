/* agentcompass viewer: the integrity scan's verdicts (docs/integrity.md): the task table's badge and the Attempt
   page's evidence (detector, trajectory step, command, path, excerpt) and LLM review. */
"use strict";
(function (AC) {
  const h = AC.h, f = AC.fmt;

  AC.flagged = function (integrity) {
    const v = (integrity || {}).verdict;
    return v === "hack" || v === "suspect";
  };

  /* The task table's cell: a badge for a flagged sample (its detectors in the title), the review's verdict beside. */
  AC.integrityBadge = function (r) {
    const i = r.integrity;
    if (!i) return h("span", {class: "muted", text: "–"});
    const rv = i.review;  // a row's verdict (a task row: its samples' verdicts), or an attempt's whole review
    const review = Array.isArray(rv) ? rv.join("/") : rv && typeof rv === "object" ? rv.verdict || "error" : rv;
    if (!AC.flagged(i)) return h("span", {class: "muted small", text: review ? "clean · review " + review : "clean"});
    return h("span", null, h("span", {class: "badge b-int-" + i.verdict, title: (i.detectors || []).join(", "),
      dataset: {integrity: i.verdict}, text: i.verdict}),
      review ? h("span", {class: "small muted", text: " review " + review}) : null);
  };

  function flagRow(fl) {
    const where = fl.source ? "step " + fl.step + " of " + fl.source : "verifier record";
    const evidence = fl.command || fl.path || "";
    return h("tr", {class: "int-flag", dataset: {detector: fl.detector, step: String(fl.step === undefined ? "" : fl.step)}},
      h("td", null, h("span", {class: "badge b-int-" + fl.severity, text: fl.severity})),
      h("td", {class: "mono", text: fl.detector}), h("td", {text: fl.reason || ""}), h("td", {class: "small", text: where}),
      h("td", null, evidence ? h("code", {class: "int-evidence", text: evidence}) : null,
        fl.excerpt ? h("pre", {class: "int-excerpt", text: fl.excerpt}) : null));
  }

  function reviewBox(rv) {
    const u = rv.usage || {};
    return h("div", {id: "integrity-review", class: "int-review"},
      h("p", null, h("strong", {text: "LLM review: "}),
        rv.error ? h("span", {class: "bad", text: "error: " + rv.error})
          : [h("span", {class: "badge b-int-" + rv.verdict, text: rv.verdict}), " ", h("span", {text: rv.reason || ""})]),
      h("p", {class: "muted small", text: (rv.model || "?") + " · " + f.int(u.calls) + " call(s) · in " + f.tokens(u.input) +
        " · out " + f.tokens(u.output) + " · " + f.cost(u.cost_usd)}));
  }

  /* The Attempt page's Integrity section: the verdict, every flag with its evidence, the review. */
  AC.integrityBox = function (integrity) {
    const flags = integrity.flags || [];
    const more = (integrity.n_flags || flags.length) > flags.length ? " (" + flags.length + " of " + integrity.n_flags + " kept)" : "";
    return h("div", {id: "integrity"},
      h("p", null, "verdict ", h("span", {class: "badge b-int-" + integrity.verdict, id: "integrity-verdict", text: integrity.verdict}),
        h("span", {class: "muted", text: " · " + flags.length + " flag(s)" + more})),
      flags.length ? h("table", {class: "grid", id: "integrity-flags"},
        h("thead", null, h("tr", null, ["severity", "detector", "reason", "where", "evidence"].map((t) => h("th", {text: t})))),
        h("tbody", null, flags.map(flagRow))) : null,
      integrity.review ? reviewBox(integrity.review) : null);
  };
})(window.AC);
