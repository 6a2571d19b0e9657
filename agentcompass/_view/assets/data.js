/* agentcompass viewer: where the data comes from. Server mode: the read-only /api of `agentcompass view`.
   Report mode: the data embedded in the page by `agentcompass report` (attempts gzip + base64, unpacked on
   demand). Both return the same shapes. */
"use strict";
(function (AC) {
  const boot = JSON.parse(document.getElementById("ac-boot").textContent);
  const report = boot.mode === "report";
  const unpacked = new Map();

  async function api(path, params) {
    const qs = new URLSearchParams(params || {}).toString();
    const res = await fetch("/api/" + path + (qs ? "?" + qs : ""), {cache: "no-store"});
    const body = await res.json();
    if (!res.ok) throw new Error(body.error || res.status + " " + res.statusText);
    return body;
  }

  async function unpack(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // a report of several runs keeps each run's part under boot.more[key]; one run's is the top level
  const part = (key) => (boot.more && boot.more[key]) || boot;

  async function reportAttempt(key, path) {
    const id = key + "|" + path;
    if (!unpacked.has(id)) {
      const blob = part(key).attempts[path];
      if (!blob) throw new Error("attempt " + path + " is not in this report");
      unpacked.set(id, await unpack(blob));
    }
    return unpacked.get(id);
  }

  function reportAttempts(key, dir) {
    return Object.keys(part(key).attempts).filter((p) => p.startsWith(dir + "/"));
  }

  function reportCompare(a, b) {
    const c = (boot.compare || {})[a + "|" + b];
    if (!c) throw new Error("this report holds no comparison of these two runs");
    return c;
  }

  AC.data = {
    boot: boot,
    report: report,
    runs: async () => (report ? {runs: boot.runs} : api("runs")),
    run: async (key) => (report ? part(key).run : api("run", {run: key})),
    tasks: async (key) => (report ? {key: key, tasks: part(key).tasks} : api("tasks", {run: key})),
    task: async function (key, dir) {
      if (!report) return api("task", {run: key, dir: dir});
      const list = [];
      for (const p of reportAttempts(key, dir)) {
        const a = await reportAttempt(key, p);
        list.push({path: p, sample: a.sample, attempt: a.attempt, status: a.status, reward: a.reward});
      }
      return {key: key, attempts: list};
    },
    attempt: async (key, path) => (report ? reportAttempt(key, path) : api("attempt", {run: key, path: path})),
    trajectory: async function (key, att) {
      if (report) return att.trajectory ? att.trajectory.data : null;
      const res = await fetch(AC.data.fileUrl(key, att.trajectory.path), {cache: "no-store"});
      if (!res.ok) throw new Error("trajectory: " + res.status + " " + res.statusText);
      const text = await res.text();
      AC.mark("trajFetched");
      try { return JSON.parse(text); } catch (e) { return text; }
    },
    call: async function (key, path, row) {
      if (!report) return api("call", {run: key, path: path, index: row.index});
      return {...row, note: "the report holds each call's summary; the whole call is in model_calls.jsonl"};
    },
    fileUrl: (key, path) => (report ? null
      : "/api/file?" + new URLSearchParams({run: key, path: path}).toString()),
    compare: async (a, b) => (report ? reportCompare(a, b) : api("compare", {a: a, b: b})),
    stamp: async (params) => (report ? null : (await api("stamp", params)).stamp),
  };
})(window.AC);
