/* agentcompass viewer: a tool-use benchmark's own verdict on the Attempt page, from result.json's grade details:
   BFCL multi-turn's checker (valid, the verdict per turn, the error it reported) and AgentDojo's utility and
   security (the suite, the user task, the injection task with its goal, the attack and the defense). */
"use strict";
(function (AC) {
  const h = AC.h;

  function verdictBadge(ok, yes, no) {
    return ok === null || ok === undefined ? null : AC.badge(ok ? yes : no, ok ? "passed" : "failed");
  }

  function bfcl(d) {
    const c = d.checker || {}, err = c.error || {};
    const turns = (c.turns || []).map((v, k) => h("span", {class: "verdict-turn", dataset: {turn: String(k + 1)}},
      "turn " + (k + 1) + " ", AC.badge(v === true ? "passed" : v === false ? "failed" : "not checked",
        v === true ? "passed" : v === false ? "failed" : "pending"), " "));
    return h("div", {class: "verdict verdict-bfcl"}, AC.kv([["benchmark", "BFCL multi-turn"], ["category", d.category],
      ["checker", verdictBadge(c.valid, "valid", "invalid")], ["per turn", turns.length ? h("span", null, turns) : null],
      ["error", err.error_type], ["message", err.error_message]]));
  }

  function agentdojo(d) {
    const attacked = d.injection_task !== null && d.injection_task !== undefined;
    return h("div", {class: "verdict verdict-agentdojo"}, AC.kv([["benchmark", "AgentDojo " + (d.benchmark_version || "")],
      ["suite", d.suite], ["user task", d.user_task], ["utility", verdictBadge(d.utility, "utility: yes", "utility: no")],
      ["injection task", attacked ? d.injection_task : "none (no attack)"], ["attack", d.attack],
      ["security", attacked ? verdictBadge(d.security, "attack succeeded", "attack failed") : null],
      ["injection goal", d.injection_goal], ["defense", d.defense || (attacked ? "none" : null)],
      ["live run", d.live_result ? "utility " + d.live_result.utility + " · security " + d.live_result.security : null]]));
  }

  /* The verdict section's body, or null when the grade is not a BFCL or AgentDojo one. */
  AC.renderVerdict = function (grade) {
    const d = (grade || {}).details || {};
    if (d.checker && Array.isArray(d.checker.turns)) return bfcl(d);
    if (d.suite && "utility" in d && "security" in d) return agentdojo(d);
    return null;
  };
})(window.AC);
