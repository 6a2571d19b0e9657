/* agentcompass viewer: a unified diff, coloured, one block per file. */
"use strict";
(function (AC) {
  const MAX_LINES = 4000;

  function splitFiles(text) {
    const lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const files = [];
    let cur = null, inHunk = false;
    const open = () => { cur = {header: [], body: [], add: 0, del: 0, name: ""}; files.push(cur); inHunk = false; };
    for (const line of lines) {
      if (line.startsWith("diff --git ") || (line.startsWith("--- ") && (!cur || inHunk))) open();
      if (!cur) open();
      if (line.startsWith("@@")) inHunk = true;
      if (!inHunk) {
        cur.header.push(line);
        const m = line.match(/^\+\+\+ (?:b\/)?(.*)$/) || line.match(/^diff --git a\/\S+ b\/(.*)$/);
        if (m && m[1] !== "/dev/null") cur.name = m[1];
        continue;
      }
      cur.body.push(line);
      if (line.startsWith("+")) cur.add++;
      else if (line.startsWith("-")) cur.del++;
    }
    return files;
  }

  function lineClass(line) {
    if (line.startsWith("@@")) return "hunk";
    if (line.startsWith("+")) return "add";
    if (line.startsWith("-")) return "del";
    if (line.startsWith("\\")) return "meta";
    return "ctx";
  }

  function renderLines(pre, lines, from, to) {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      frag.appendChild(AC.h("span", {class: "dl " + lineClass(lines[i]), text: lines[i] || " "}));
    }
    pre.appendChild(frag);
  }

  AC.renderDiff = function (text) {
    const root = AC.h("div", {class: "diff"});
    const files = splitFiles(String(text || ""));
    for (const f of files) {
      const head = AC.h("div", {class: "diff-file"},
        AC.h("span", {class: "diff-name", text: f.name || "(patch)"}),
        AC.h("span", {class: "diff-stat"}, AC.h("span", {class: "add", text: "+" + f.add}), " ",
          AC.h("span", {class: "del", text: "−" + f.del})));
      const pre = AC.h("pre", {class: "diff-body"});
      for (const line of f.header) pre.appendChild(AC.h("span", {class: "dl meta", text: line || " "}));
      const upto = Math.min(f.body.length, MAX_LINES);
      renderLines(pre, f.body, 0, upto);
      if (f.body.length > upto) {
        const more = AC.h("button", {class: "more", text: "show " + (f.body.length - upto) + " more lines",
          onclick: () => { more.remove(); renderLines(pre, f.body, upto, f.body.length); }});
        root.appendChild(AC.h("div", {class: "diff-block"}, head, pre, more));
      } else {
        root.appendChild(AC.h("div", {class: "diff-block"}, head, pre));
      }
    }
    return root;
  };
})(window.AC);
