/* agentcompass viewer: trajectories. Detects the format (mini-swe-agent messages, ATIF steps, anything else as
   a JSON tree) and renders steps incrementally: the first chunk at once, the next ones as the reader scrolls. */
"use strict";
(function (AC) {
  const CHUNK = 40;

  AC.trajFormat = function (data) {
    if (data && typeof data === "object" && !Array.isArray(data)) {
      if (Array.isArray(data.steps) && (String(data.schema_version || "").startsWith("ATIF") ||
          data.steps.some((s) => s && typeof s === "object" && "source" in s))) return "atif";
      if (Array.isArray(data.messages) && (String(data.trajectory_format || "").startsWith("mini-swe-agent") ||
          data.messages.some((m) => m && typeof m === "object" && ("role" in m || m.object === "response")))) {
        return "mini-swe-agent";
      }
    }
    if (Array.isArray(data) && data.length && data.every((m) => m && typeof m === "object" && "role" in m)) {
      return "mini-swe-agent";
    }
    return "json";
  };

  /* Render items[i] with renderItem into list, CHUNK at a time; more when the sentinel scrolls into view. */
  AC.incremental = function (list, items, renderItem, label) {
    let done = 0;
    const status = AC.h("div", {class: "sentinel"});
    const observer = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.unobserve(status);          // observed again after the chunk: fires again while still in view
      requestAnimationFrame(() => { step(CHUNK); if (done < items.length) observer.observe(status); });
    }, {rootMargin: "1200px"}) : null;
    function all() {                       // the rest, in frames of a few hundred items (no long freeze)
      step(400);
      if (done < items.length) requestAnimationFrame(all);
    }
    function step(n) {
      const frag = document.createDocumentFragment();
      const upto = Math.min(items.length, done + n);
      for (; done < upto; done++) frag.appendChild(renderItem(items[done], done));
      list.appendChild(frag);
      list.dataset.rendered = String(done);
      AC.clear(status);
      if (done >= items.length) {
        if (observer) observer.disconnect();
        status.remove();
        return;
      }
      status.appendChild(document.createTextNode("Showing " + done + " of " + items.length + " " + label + ". "));
      status.appendChild(AC.h("button", {class: "more", text: "show all", onclick: () => {
        if (observer) observer.disconnect();
        all();
      }}));
      if (!status.isConnected) list.after(status);
    }
    step(CHUNK);
    if (observer && done < items.length) observer.observe(status);
    return list;
  };

  AC.elided = function (item) {
    return AC.h("div", {class: "step elided", text: item.content || item.message || item.note ||
      "[" + item.agentcompass_elided + " items not included in the report]"});
  };

  /* A lazily expanded JSON tree (children are built when their node is opened). */
  AC.jsonTree = function (value, label, open) {
    if (value === null || typeof value !== "object") {
      const text = typeof value === "string" ? JSON.stringify(value) : String(value);
      return AC.h("div", {class: "jt leaf"}, label !== undefined ? AC.h("span", {class: "jk", text: label + ": "}) : null,
        text.length > 2000 ? AC.longText(value, "jv", 2000) : AC.h("span", {class: "jv t-" + typeof value, text: text}));
    }
    const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    const summary = AC.h("summary", null, label !== undefined ? AC.h("span", {class: "jk", text: label + ": "}) : null,
      AC.h("span", {class: "muted", text: Array.isArray(value) ? "[" + keys.length + "]" : "{" + keys.length + "}"}));
    const node = AC.h("details", {class: "jt"}, summary);
    let built = false;
    node.addEventListener("toggle", () => {
      if (!node.open || built) return;
      built = true;
      const box = AC.h("div", {class: "jc"});
      node.appendChild(box);
      AC.incremental(box, keys, (k) => AC.jsonTree(value[k], k, false), "entries");
    });
    if (open) node.open = true;
    return node;
  };

  AC.renderTrajectory = function (data, meta) {
    const fmt = AC.trajFormat(data);
    const box = AC.h("div", {class: "traj", dataset: {format: fmt}});
    if (meta && meta.trimmed) {
      box.appendChild(AC.h("p", {class: "note", text: "Trimmed for the report: long texts keep their head and " +
        "tail, long step lists their first and last steps. The full trajectory is " + (meta.name || "") +
        " in the run directory."}));
    }
    if (fmt === "atif") AC.renderAtif(box, data);
    else if (fmt === "mini-swe-agent") AC.renderMsa(box, Array.isArray(data) ? {messages: data} : data);
    else if (typeof data === "string") box.appendChild(AC.longText(data, "text", 200000));
    else box.appendChild(AC.jsonTree(data, undefined, true));
    return box;
  };

  /* Keystrokes made visible: a newline is shown as ⏎, a tab as ⇥, a lone tmux key name as a key cap. */
  AC.keys = function (keystrokes) {
    const k = String(keystrokes === undefined || keystrokes === null ? "" : keystrokes);
    if (/^(C-[a-z\\\]]|M-[a-z]|Escape|Enter|Tab|BSpace|Up|Down|Left|Right|Home|End|PageUp|PageDown|F\d+)$/i.test(k)) {
      return AC.h("kbd", {class: "key", text: k});
    }
    const pre = AC.h("pre", {class: "keys"});
    if (k === "") { pre.appendChild(AC.h("span", {class: "muted", text: "(no keys: wait)"})); return pre; }
    const parts = k.split(/(\n|\t)/);
    for (const part of parts) {
      if (part === "\n") pre.appendChild(AC.h("span", {class: "ctl", text: "⏎\n"}));
      else if (part === "\t") pre.appendChild(AC.h("span", {class: "ctl", text: "⇥"}));
      else if (part) pre.appendChild(document.createTextNode(part));
    }
    return pre;
  };

  AC.metricsLine = function (m) {
    if (!m || typeof m !== "object") return null;
    const bits = [];
    const pick = (a, b) => (m[a] !== undefined ? m[a] : m[b]);
    const inT = pick("prompt_tokens", "input"), outT = pick("completion_tokens", "output");
    const cached = pick("cached_tokens", "cached"), cost = pick("cost_usd", "cost");
    if (inT !== undefined) bits.push("in " + AC.fmt.tokens(inT));
    if (outT !== undefined) bits.push("out " + AC.fmt.tokens(outT));
    if (cached) bits.push("cached " + AC.fmt.tokens(cached));
    if (typeof cost === "number" && cost > 0) bits.push(AC.fmt.cost(cost));
    return bits.length ? AC.h("span", {class: "metrics", text: bits.join(" · ")}) : null;
  };
})(window.AC);
