"""The report page's inline style and script (no CDN, no request: the page works offline).

The script reads the data from ``<script type="application/json" id="report-data">`` and
builds every element with ``createElement``/``textContent``; it never assigns data to
``innerHTML``. Pictures (RDKit SVG) become ``<img>`` elements from ``data:`` URLs.
"""

CSS = """
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{padding:14px 22px 4px}
h1{font-size:20px;margin:0 0 4px}
#note{margin:0;color:#5a6270}
#note.limited{color:#8a4b00}
#summary{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start;padding:8px 22px}
#counts{display:flex;gap:10px;flex-wrap:wrap}
.count{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:8px 14px;min-width:96px}
.count b{display:block;font-size:22px}
.count.bad b{color:#b3261e}.count.warn b{color:#a15c00}.count.good b{color:#1b7a3a}
#histogram{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:6px 10px}
#histogram .cap{font-size:12px;color:#5a6270}
#controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;padding:8px 22px}
#filter{width:280px;padding:5px 8px;border:1px solid #c4cad3;border-radius:6px}
select,button{padding:4px 8px;border:1px solid #c4cad3;border-radius:6px;background:#fff;cursor:pointer}
button:disabled{opacity:.4;cursor:default}
#page-info{margin:0 8px;color:#5a6270}
main{display:flex;gap:14px;padding:0 22px 22px;align-items:flex-start}
#table-wrap{flex:1 1 0;min-width:0;overflow-x:auto}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e7;width:100%}
th,td{padding:4px 8px;border-bottom:1px solid #eceff3;text-align:left;vertical-align:middle}
th{position:sticky;top:0;background:#eef1f5;font-weight:600;white-space:nowrap;font-size:13px}
th.sortable{cursor:pointer}
th.sortable:hover{background:#e2e7ee}
th .unit{display:block;font-weight:400;color:#5a6270;font-size:11px}
th[aria-sort=ascending]::after{content:" \\25B2";font-size:10px}
th[aria-sort=descending]::after{content:" \\25BC";font-size:10px}
tbody tr{cursor:pointer}
tbody tr:hover{background:#f3f6fb}
tbody tr.selected{background:#e4ecfa}
td.structure{width:150px;padding:2px}
td.structure img{display:block;width:150px;height:110px}
td.smiles{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;max-width:220px;word-break:break-all}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
td.reason{max-width:260px;color:#5a6270;font-size:12px}
.val{display:block}
.bar{display:block}
.tag{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;background:#e8ebef}
.tag.in,.tag.ok{background:#dff3e4;color:#1b5e30}.tag.out{background:#fde9cf;color:#7a4300}
.tag.bad{background:#fadcd9;color:#8c1d18}
#detail{position:sticky;top:8px;width:360px;flex:0 0 360px;background:#fff;border:1px solid #dde1e7;border-radius:8px;
padding:12px 14px;max-height:calc(100vh - 16px);overflow:auto}
#close{float:right;font-size:16px;line-height:1}
#detail h2{font-size:16px;margin:0 0 6px;word-break:break-word}
#detail h3{font-size:13px;margin:14px 0 6px;color:#3b4452;text-transform:uppercase;letter-spacing:.04em}
#detail .big{display:block;width:240px;height:176px}
#detail dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:6px 0}
#detail dt{color:#5a6270}#detail dd{margin:0;word-break:break-word}
.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;word-break:break-all}
.neighbour{display:flex;gap:8px;border-top:1px solid #eceff3;padding:6px 0}
.neighbour img{width:120px;height:88px;flex:0 0 120px}
.map{display:block;width:320px;height:260px}
.legend{font-size:12px;color:#5a6270}
.empty{padding:18px;color:#5a6270}
"""

SCRIPT = r"""
(function () {
"use strict";
var D = JSON.parse(document.getElementById("report-data").textContent);
var PAGE = 50, SVGNS = "http://www.w3.org/2000/svg";
var state = {sort: null, dir: 1, page: 0, text: "", domain: "", status: "", view: []};

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function sv(tag, attrs) {
  var e = document.createElementNS(SVGNS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
function fmt(v, d) { return v === null || v === undefined ? "" : v.toFixed(d === undefined ? 2 : d); }
function pct(v) { return v === null || v === undefined ? "" : (100 * v).toFixed(v < 0.01 || v > 0.99 ? 1 : 0) + " %"; }
function picture(k, cls, alt) {  /* structure k of D.pics, an SVG drawn by RDKit */
  var i = el("img", cls);
  i.alt = alt || "";
  i.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(D.pics[k]);
  return i;
}
function hasPic(k) { return k !== null && k !== undefined; }
function pictureUrl(url, cls, alt) {
  var i = el("img", cls);
  i.alt = alt || "";
  if (/^data:image\/png;base64,[A-Za-z0-9+\/=]*$/.test(url)) i.src = url;  /* only a PNG of our own making */
  return i;
}
function statusTag(s) { return el("span", "tag " + (s === "ok" ? "ok" : "bad"), s); }
function domainTag(s) { return s ? el("span", "tag " + (s === "out" ? "out" : "in"), s) : el("span"); }

/* a yes/no task's probability of its positive class as a filled bar on 0..1, 0.5 marked */
function probBar(t, v) {
  var task = D.tasks[t], W = 140, H = 14, s = sv("svg", {width: W, height: H, "class": "bar prob"});
  if (v[0] === null) return s;
  s.appendChild(sv("rect", {x: 0, y: 3, width: W, height: H - 6, rx: 3, fill: "#e1e5ea"}));
  s.appendChild(sv("rect", {x: 0, y: 3, width: Math.max(1, v[0] * W), height: H - 6, rx: 3,
    fill: v[0] >= 0.5 ? "#1f4e99" : "#9bb7e0"}));
  s.appendChild(sv("line", {x1: W / 2, x2: W / 2, y1: 0, y2: H, stroke: "#5a6270", "stroke-dasharray": "2,2"}));
  var tip = sv("title", {});
  tip.textContent = "P(" + task.label + ") " + pct(v[0]);
  s.appendChild(tip);
  return s;
}
function probText(task, r, v) {
  var set = r.set && r.set[task.label] ? "  set " + r.set[task.label] : "";
  return v[0] === null ? "" : pct(v[0]) + set;
}

/* the interval bar of task t: lo..hi on the task's shared axis, the prediction as a dot */
function bar(t, v) {
  var task = D.tasks[t], W = 140, H = 14, s = sv("svg", {width: W, height: H, "class": "bar"});
  if (task.kind === "classification") return probBar(t, v);
  if (!task.axis || v[0] === null) return s;
  var a = task.axis[0], b = task.axis[1];
  function x(u) { return Math.max(0, Math.min(W, (u - a) / (b - a) * W)); }
  s.appendChild(sv("line", {x1: 0, x2: W, y1: H / 2, y2: H / 2, stroke: "#e1e5ea"}));
  if (v[2] !== null && v[3] !== null) {
    s.appendChild(sv("rect", {x: x(v[2]), y: 3, width: Math.max(1, x(v[3]) - x(v[2])), height: H - 6,
      rx: 3, fill: "#9bb7e0"}));
  }
  if (task.threshold !== null) {
    s.appendChild(sv("line", {x1: x(task.threshold), x2: x(task.threshold), y1: 0, y2: H, stroke: "#c0392b",
      "stroke-dasharray": "2,2"}));
  }
  s.appendChild(sv("circle", {cx: x(v[0]), cy: H / 2, r: 3.2, fill: "#1f4e99"}));
  var tip = sv("title", {});
  tip.textContent = task.label + " " + fmt(v[0]) + (v[2] !== null ? " [" + fmt(v[2]) + ", " + fmt(v[3]) + "]" : "");
  s.appendChild(tip);
  return s;
}

/* columns: title, unit, sort key (null: not sortable), cell */
var columns = [
  {title: "#", key: function (r) { return r.r; },
    cell: function (r, td) { td.className = "num"; td.textContent = r.r; }},
  {title: "Structure", key: null, cell: function (r, td) {
    td.className = "structure";
    if (hasPic(r.pic)) td.appendChild(picture(r.pic, "", r.smiles));
  }},
  {title: "Name", key: function (r) { return r.name; }, cell: function (r, td) { td.textContent = r.name; }},
  {title: "SMILES", key: function (r) { return r.smiles; },
    cell: function (r, td) { td.className = "smiles"; td.textContent = r.smiles; }}
];
D.tasks.forEach(function (task, t) {
  columns.push({title: task.label, unit: task.unit, tip: task.description, key: function (r) { return r.v[t][0]; },
    cell: function (r, td) {
      td.className = "num";
      var v = r.v[t];
      td.appendChild(el("span", "val", task.kind === "classification" ? probText(task, r, v) :
        v[0] === null ? "" : fmt(v[0]) + (v[2] !== null ? "  [" + fmt(v[2]) + ", " + fmt(v[3]) + "]" : "")));
      td.appendChild(bar(t, v));
    }});
  if (task.has_p) {
    columns.push({title: "P(" + task.label + " < " + fmt(task.threshold) + ")", key: function (r) { return r.v[t][4]; },
      cell: function (r, td) { td.className = "num"; td.textContent = pct(r.v[t][4]); }});
  }
});
D.extra.forEach(function (name, k) {
  columns.push({title: name, key: function (r) { return r.x[k]; },
    cell: function (r, td) { td.textContent = r.x[k]; }});
});
columns.push(
  {title: "Similarity", key: function (r) { return r.sim; },
    cell: function (r, td) { td.className = "num"; td.textContent = fmt(r.sim); }},
  {title: "Domain", key: function (r) { return r.domain; },
    cell: function (r, td) { td.appendChild(domainTag(r.domain)); }},
  {title: "Status", key: function (r) { return r.status; },
    cell: function (r, td) { td.appendChild(statusTag(r.status)); }},
  {title: "Reason", key: function (r) { return r.reason; },
    cell: function (r, td) { td.className = "reason"; td.textContent = r.reason; }}
);

D.rows.forEach(function (r) {
  r._q = [r.name, r.smiles, r.reason, r.status].concat(r.x).join("\u0001").toLowerCase();
});

function compare(a, b) {
  var ka = columns[state.sort].key(a), kb = columns[state.sort].key(b);
  var na = ka === null || ka === undefined || ka === "", nb = kb === null || kb === undefined || kb === "";
  if (na || nb) return na === nb ? a.r - b.r : (na ? 1 : -1);  /* missing values last, either way */
  if (typeof ka === "number" && typeof kb === "number") return state.dir * (ka - kb) || a.r - b.r;
  return state.dir * String(ka).localeCompare(String(kb), undefined, {numeric: true}) || a.r - b.r;
}

function refresh() {
  var q = state.text.toLowerCase();
  state.view = D.rows.filter(function (r) {
    return (!q || r._q.indexOf(q) >= 0) && (!state.domain || r.domain === state.domain) &&
      (!state.status || r.status === state.status);
  });
  if (state.sort !== null) state.view.sort(compare);
  var pages = Math.max(1, Math.ceil(state.view.length / PAGE));
  state.page = Math.min(state.page, pages - 1);
  draw(pages);
}

function draw(pages) {
  var body = document.getElementById("body");
  body.textContent = "";
  var start = state.page * PAGE, part = state.view.slice(start, start + PAGE);
  part.forEach(function (r) {
    var tr = el("tr", "row");
    tr.dataset.row = r.r;
    columns.forEach(function (c) { var td = el("td"); c.cell(r, td); tr.appendChild(td); });
    tr.addEventListener("click", function () { show(r, tr); });
    body.appendChild(tr);
  });
  if (!part.length) {
    var tr = el("tr"), td = el("td", "empty", "No row matches the filters.");
    td.colSpan = columns.length;
    tr.appendChild(td);
    body.appendChild(tr);
  }
  document.getElementById("page-info").textContent = "page " + (state.page + 1) + " of " + pages + " \u00b7 " +
    state.view.length + " row" + (state.view.length === 1 ? "" : "s");
  document.getElementById("prev").disabled = state.page === 0;
  document.getElementById("next").disabled = state.page >= pages - 1;
}

function header() {
  var head = document.getElementById("head");
  columns.forEach(function (c, i) {
    var th = el("th", c.key ? "sortable" : "", c.title);
    if (c.unit) th.appendChild(el("span", "unit", c.unit));
    if (c.tip) th.title = c.tip;
    if (c.key) {
      th.addEventListener("click", function () {
        state.dir = state.sort === i ? -state.dir : 1;
        state.sort = i;
        Array.prototype.forEach.call(head.children, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending");
        refresh();
      });
    }
    head.appendChild(th);
  });
}

function pair(dl, k, v) { dl.appendChild(el("dt", "", k)); var dd = el("dd", "", v); dl.appendChild(dd); return dd; }

function show(r, tr) {
  Array.prototype.forEach.call(document.querySelectorAll("tr.selected"), function (x) {
    x.classList.remove("selected");
  });
  tr.classList.add("selected");
  var box = document.getElementById("detail-body");
  box.textContent = "";
  box.appendChild(el("h2", "", r.name || ("row " + r.r)));
  if (hasPic(r.pic) && !r.contrib) box.appendChild(picture(r.pic, "big", r.smiles));  /* the atom map shows it too */
  var dl = el("dl");
  pair(dl, "row", r.r);
  pair(dl, "SMILES", r.smiles).className = "mono";
  D.tasks.forEach(function (task, t) {
    var v = r.v[t];
    if (v[0] === null) return;
    if (task.kind === "classification") { pair(dl, "P(" + task.label + ")", probText(task, r, v)); return; }
    pair(dl, task.label, fmt(v[0]) + (v[2] !== null ? " [" + fmt(v[2]) + ", " + fmt(v[3]) + "] " : " ") + task.unit);
    if (v[4] !== null) pair(dl, "P(" + task.label + " < " + fmt(task.threshold) + ")", pct(v[4]));
  });
  if (r.sim !== null) pair(dl, "similarity", fmt(r.sim));
  if (r.domain) pair(dl, "domain", r.domain);
  pair(dl, "status", r.status);
  if (r.reason) pair(dl, "reason", r.reason);
  D.extra.forEach(function (name, k) { if (r.x[k]) pair(dl, name, r.x[k]); });
  box.appendChild(dl);
  if (r.nb && r.nb.length) {
    var sec = el("section", "neighbours");
    sec.appendChild(el("h3", "", "Nearest training molecules"));
    r.nb.forEach(function (n) {
      var card = el("div", "neighbour");
      if (hasPic(n.pic)) card.appendChild(picture(n.pic, "", n.smiles));
      var info = el("div");
      if (n.name) info.appendChild(el("div", "", n.name));
      info.appendChild(el("div", "mono", n.smiles));
      info.appendChild(el("div", "", "similarity " + fmt(n.sim)));
      n.values.forEach(function (kv) {
        if (kv[1] !== null) info.appendChild(el("div", "", "measured " + kv[0] + " " + fmt(kv[1])));
      });
      card.appendChild(info);
      sec.appendChild(card);
    });
    box.appendChild(sec);
  }
  if (r.contrib) {
    var map = el("section", "contributions");
    map.appendChild(el("h3", "", "Atom contributions" + (r.contrib.task ? " to " + r.contrib.task : "")));
    map.appendChild(pictureUrl(r.contrib.png, "map", "atom contribution map"));
    map.appendChild(el("div", "legend", "green: raises the prediction; pink: lowers it" +
      (r.contrib.method ? " (" + r.contrib.method + ")" : "")));
    var list = el("div", "legend", r.contrib.atoms.map(function (a) {
      return a[0] + " " + (a[1] > 0 ? "+" : "") + a[1];
    }).join(", "));
    map.appendChild(list);
    box.appendChild(map);
  }
  document.getElementById("detail").hidden = false;
}

function summary() {
  var S = D.summary, counts = document.getElementById("counts");
  function card(label, n, cls) {
    var c = el("div", "count " + (cls || ""));
    c.appendChild(el("b", "", n.toLocaleString("en")));
    c.appendChild(el("span", "", label));
    c.dataset.count = label;
    counts.appendChild(c);
  }
  card("rows", S.rows);
  card("ok", S.ok, "good");
  card("failed", S.failed, S.failed ? "bad" : "");
  card("out of domain", S.out, S.out ? "warn" : "");
  var note = document.getElementById("note");
  if (S.shown < S.rows) {
    note.className = "limited";
    note.textContent = "The table lists " + S.shown.toLocaleString("en") + " of " + S.rows.toLocaleString("en") +
      " rows (at most " + S.max_rows.toLocaleString("en") + "): the rows most worth a look, failed first, then out " +
      "of domain, then the lowest predicted " + (D.tasks.length ? D.tasks[0].label : "value") +
      ". The counts and the histogram cover all rows.";
  } else {
    note.textContent = S.rows.toLocaleString("en") + " rows. Click a row for its details.";
  }
  var H = S.histogram;
  if (!H || !D.tasks.length) return;
  var box = document.getElementById("histogram"), W = 380, HT = 130, L = 30, B = 20;
  var task = D.tasks[0], max = Math.max.apply(null, H.counts) || 1, n = H.counts.length;
  var lo = H.edges[0], hi = H.edges[n];
  function x(u) { return L + (u - lo) / (hi - lo) * (W - L - 6); }
  var s = sv("svg", {width: W, height: HT + B, id: "hist-svg"});
  H.counts.forEach(function (c, i) {
    var h = c / max * (HT - 10);
    var r = sv("rect", {x: x(H.edges[i]) + 0.5, y: HT - h, width: Math.max(0.5, x(H.edges[i + 1]) - x(H.edges[i]) - 1),
      height: h, fill: "#6f93c9"});
    var tip = sv("title", {});
    tip.textContent = fmt(H.edges[i]) + " to " + fmt(H.edges[i + 1]) + ": " + c;
    r.appendChild(tip);
    s.appendChild(r);
  });
  s.appendChild(sv("line", {x1: L, x2: W - 6, y1: HT, y2: HT, stroke: "#8a929e"}));
  [lo, (lo + hi) / 2, hi].forEach(function (u, i) {
    var anchor = ["start", "middle", "end"][i];
    var t = sv("text", {x: x(u), y: HT + 14, "font-size": 11, "text-anchor": anchor, fill: "#5a6270"});
    t.textContent = fmt(u, 1);
    s.appendChild(t);
  });
  var m = sv("text", {x: L - 4, y: 12, "font-size": 11, "text-anchor": "end", fill: "#5a6270"});
  m.textContent = String(max);
  s.appendChild(m);
  if (task.threshold !== null) {
    s.appendChild(sv("line", {x1: x(task.threshold), x2: x(task.threshold), y1: 0, y2: HT, stroke: "#c0392b",
      "stroke-width": 1.5, "stroke-dasharray": "4,3", id: "hist-threshold"}));
    var tt = sv("text", {x: x(task.threshold) + 3, y: 11, "font-size": 11, fill: "#c0392b"});
    tt.textContent = "T = " + fmt(task.threshold);
    s.appendChild(tt);
  }
  box.appendChild(el("div", "cap", "predicted " + task.label + (task.unit ? " (" + task.unit + ")" : "") +
    ", all " + S.rows.toLocaleString("en") + " rows"));
  box.appendChild(s);
}

document.title = D.title;
document.getElementById("title").textContent = D.title;
var statuses = {};
D.rows.forEach(function (r) { statuses[r.status] = 1; });
Object.keys(statuses).sort().forEach(function (s) {
  var o = el("option", "", s);
  o.value = s;
  document.getElementById("status-filter").appendChild(o);
});
summary();
header();
function on(id, event, key) {
  document.getElementById(id).addEventListener(event, function (e) {
    state[key] = e.target.value;
    state.page = 0;
    refresh();
  });
}
on("filter", "input", "text");
on("domain-filter", "change", "domain");
on("status-filter", "change", "status");
document.getElementById("prev").addEventListener("click", function () { state.page -= 1; refresh(); });
document.getElementById("next").addEventListener("click", function () { state.page += 1; refresh(); });
function hide() { document.getElementById("detail").hidden = true; }
document.getElementById("close").addEventListener("click", hide);
document.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(); });
refresh();
document.body.dataset.ready = "1";
})();
"""
