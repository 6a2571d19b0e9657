/* agentcompass viewer: small SVG charts (histograms, a phase bar). No library. */
"use strict";
(function (AC) {
  const NS = "http://www.w3.org/2000/svg";
  function s(tag, attrs, text) {
    const el = document.createElementNS(NS, tag);
    for (const k of Object.keys(attrs || {})) el.setAttribute(k, attrs[k]);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  /* bins: [{label, count, title}] -> a bar chart */
  AC.barChart = function (bins, opts) {
    const o = opts || {};
    const W = o.width || 520, H = o.height || 110, pad = 22, top = 14;
    const max = Math.max(1, ...bins.map((b) => b.count));
    const bw = (W - pad) / Math.max(1, bins.length);
    const svg = s("svg", {viewBox: "0 0 " + W + " " + (H + pad), class: "chart", role: "img",
      "aria-label": o.title || "chart"});
    bins.forEach((b, i) => {
      const h = Math.round((H - top) * b.count / max);
      const x = pad + i * bw;
      const rect = s("rect", {x: x + 1, y: H - h, width: Math.max(1, bw - 2), height: h,
        class: "bar " + (b.cls || "")});
      rect.appendChild(s("title", {}, (b.title || b.label) + ": " + b.count));
      svg.appendChild(rect);
      if (b.count) svg.appendChild(s("text", {x: x + bw / 2, y: H - h - 3, class: "count"}, String(b.count)));
      if (bins.length <= 13 && !o.sparseTicks || i % Math.ceil(bins.length / 6) === 0) {
        svg.appendChild(s("text", {x: x + bw / 2, y: H + 14, class: "tick"}, b.label));
      }
    });
    svg.appendChild(s("line", {x1: pad, y1: H, x2: W, y2: H, class: "axis"}));
    svg.appendChild(s("text", {x: 2, y: 10, class: "tick left"}, String(max)));
    return AC.h("figure", {class: "figure"}, svg, AC.h("figcaption", {text: o.title || ""}));
  };

  AC.rewardHistogram = function (rows) {
    const bins = [];
    for (let i = 0; i < 10; i++) bins.push({label: i ? "." + i : "0", count: 0, title: "reward in [" +
      (i / 10).toFixed(1) + ", " + ((i + 1) / 10).toFixed(1) + ")"});
    bins.push({label: "1", count: 0, title: "reward 1", cls: "one"});
    const errors = {label: "error", count: 0, cls: "err", title: "ended in an error"};
    let other = 0;
    for (const r of rows) {
      if (r.status === "error") { errors.count++; continue; }
      if (typeof r.reward !== "number") continue;
      if (r.reward < 0 || r.reward > 1) { other++; continue; }
      bins[r.reward === 1 ? 10 : Math.floor(r.reward * 10)].count++;
    }
    bins.push(errors);
    if (other) bins.push({label: "other", count: other, title: "reward outside [0, 1]"});
    return AC.barChart(bins, {title: "Reward (" + rows.filter((r) => r.status === "completed" || r.status === "error").length +
      " finished tasks)"});
  };

  AC.durationHistogram = function (rows) {
    const vals = rows.map((r) => r.duration_s).filter((v) => typeof v === "number" && v >= 0);
    const max = Math.max(0, ...vals);
    const n = 12, step = max > 0 ? max / n : 1;
    const bins = [];
    for (let i = 0; i < n; i++) bins.push({label: AC.fmt.dur(i * step), count: 0,
      title: AC.fmt.dur(i * step) + " – " + AC.fmt.dur((i + 1) * step)});
    for (const v of vals) bins[Math.min(n - 1, Math.floor(v / step))].count++;
    return AC.barChart(bins, {sparseTicks: true, title: "Duration (" + vals.length + " tasks, max " + AC.fmt.dur(max) + ")"});
  };

  /* phases: {name: seconds} -> one stacked bar with a legend */
  AC.phaseBar = function (phases) {
    const entries = Object.entries(phases || {}).filter(([, v]) => typeof v === "number");
    const total = entries.reduce((a, [, v]) => a + v, 0) || 1;
    const bar = AC.h("div", {class: "phasebar"});
    const legend = AC.h("table", {class: "phases"});
    entries.forEach(([name, v], i) => {
      bar.appendChild(AC.h("span", {class: "ph ph" + (i % 6), title: name + ": " + AC.fmt.dur(v),
        attrs: {style: "width:" + Math.max(0.5, 100 * v / total).toFixed(2) + "%"}}));
      legend.appendChild(AC.h("tr", null, AC.h("td", null, AC.h("span", {class: "sw ph" + (i % 6)}), name),
        AC.h("td", {class: "num", text: AC.fmt.dur(v)}), AC.h("td", {class: "num muted", text: AC.fmt.pct(v / total)})));
    });
    return AC.h("div", {class: "phasewrap"}, bar, legend);
  };
})(window.AC);
