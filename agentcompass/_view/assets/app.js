/* agentcompass viewer: the router (#/, #/run/K, #/attempt/K/P, #/compare/A/B) and live refresh: a page that
   shows something still running polls a change marker (file mtimes) and re-renders when it changes. */
"use strict";
(function (AC) {
  const POLL_MS = 2000;
  const main = document.getElementById("main");
  const crumbs = document.getElementById("crumbs");
  const live = document.getElementById("live");
  let generation = 0;
  let timer = null;

  function setCrumbs(list) {
    AC.clear(crumbs);
    list.forEach(([label, href], i) => {
      if (i) crumbs.appendChild(document.createTextNode(" › "));
      crumbs.appendChild(AC.h("a", {href: href, text: label}));
    });
    document.title = "agentcompass · " + list.map((c) => c[0]).slice(-1)[0];
  }

  function stopWatch() {
    if (timer) clearInterval(timer);
    timer = null;
    live.textContent = "";
  }

  function watch(gen, params, stamp) {
    stopWatch();
    if (AC.data.report || stamp === null || stamp === undefined) return;
    live.textContent = "● live";
    live.title = "the page refreshes when the run's files change";
    let busy = false;
    timer = setInterval(async () => {
      if (busy || gen !== generation) return;
      busy = true;
      try {
        const now = await AC.data.stamp(params);
        if (gen === generation && now !== stamp) { stamp = now; await render(true); }
      } catch (e) { /* the server went away: keep the page */ }
      busy = false;
    }, POLL_MS);
  }

  function parse() {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    return {view: parts[0] || "", args: parts.slice(1)};
  }

  async function render(refresh) {
    const gen = ++generation;
    const scroll = refresh ? window.scrollY : 0;
    const ctx = {crumbs: setCrumbs, watch: (params, stamp) => { if (gen === generation) watch(gen, params, stamp); }};
    let {view, args} = parse();
    const several = AC.data.report && AC.data.boot.compare;  // a report of several runs: Runs list and Compare too
    if (AC.data.report && !several && (view === "" || view === "compare")) { view = "run"; args = [AC.data.boot.run.key]; }
    const target = refresh ? document.createElement("main") : main;
    if (!refresh) stopWatch();
    try {
      if (view === "run") await AC.views.run(target, ctx, args[0]);
      else if (view === "attempt") await AC.views.attempt(target, ctx, args[0], args.slice(1).join("/"));
      else if (view === "compare") await AC.views.compare(target, ctx, args[0], args[1]);
      else await AC.views.runs(target, ctx);
    } catch (e) {
      if (gen !== generation) return;
      AC.clear(target).appendChild(AC.h("p", {class: "bad", text: "Error: " + e.message}));
    }
    if (gen !== generation) return;
    if (refresh) {             // swap in the refreshed page at once, where the reader was
      AC.clear(main);
      while (target.firstChild) main.appendChild(target.firstChild);
      window.scrollTo(0, scroll);
    } else {
      window.scrollTo(0, 0);
    }
    document.documentElement.dataset.view = view || "runs";
    document.documentElement.dataset.renders = String(Number(document.documentElement.dataset.renders || 0) + 1);
    AC.mark("rendered");
  }

  window.addEventListener("hashchange", () => render(false));
  AC.render = render;
  render(false);
})(window.AC);
