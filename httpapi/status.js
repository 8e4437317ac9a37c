"use strict";
// The status page's script (status.go inlines it into status.html): it reads ./api/v1/* every REFRESH_MS and
// draws problems first; the search box and "only problems" filter every table and live in the URL (?q=&only=).
const REFRESH_MS = 5000;
const SEVERITY = { critical: 3, warning: 2, info: 1 };
const $ = (id) => document.getElementById(id);
let loaded = false;
document.documentElement.classList.add("js");

// el builds an element; text always goes through textContent, never HTML.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, String(v));
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
function instant(s) { const t = Date.parse(s); return Number.isNaN(t) || t < 86400000 ? null : t; }
function utc(t) { return new Date(t).toISOString().replace("T", " ").slice(0, 19) + " UTC"; }
function age(ms) {
  if (!(ms >= 0)) return "—";
  const s = Math.floor(ms / 1000), m = Math.floor(s / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
  if (s < 60) return s + "s";
  if (m < 60) return m + "m " + (s % 60) + "s";
  if (h < 24) return h + "h " + (m % 60) + "m";
  return d + "d " + (h % 24) + "h";
}
function ageCell(now, since, title) {
  const t = instant(since);
  if (t === null) return el("td", { text: "—" });
  return el("td", { "data-age-seconds": Math.floor((now - t) / 1000), title: title + " " + utc(t) }, age(now - t));
}
function empty(tbody, cols, text) { tbody.replaceChildren(el("tr", {}, el("td", { colspan: cols, class: "empty", text }))); }
function chip(prefix, status, title) { return el("span", { class: "chip " + status, "data-status": status, title }, prefix); }
// Links go to rows of this page, or to URLs the API gave (runbooks, Alertmanager) when they are web URLs.
function nodeLink(name) { return el("a", { href: "#node-" + name, "data-link": "node", text: name }); }
function peerLink(addr) { return el("a", { href: "#peer-" + addr, "data-link": "peer", text: addr }); }
function webLink(url, text, rel) { return /^https?:\/\//.test(url || "") ? el("a", { href: url, rel, text }) : null; }
// row marks a body row with what the filters read: the text the search matches, and whether it is a problem.
function row(attrs, problem, words, ...cells) {
  return el("tr", { ...attrs, "data-problem": String(problem), "data-search": words.filter(Boolean).join(" ").toLowerCase() },
    ...cells);
}

function renderFindings(findings, now) {
  const tbody = $("findings").tBodies[0];
  if (!findings.length) return empty(tbody, 7, "No findings: the routes match the cluster.");
  const sorted = [...findings].sort((a, b) => (SEVERITY[b.severity] || 0) - (SEVERITY[a.severity] || 0) || (b.firing - a.firing));
  tbody.replaceChildren(...sorted.map((f) => {
    const owner = f.owner && (f.owner.includes("/") ? "Service " : "allocated to ") + f.owner;
    const since = instant(f.firingSince);
    return row({ "data-rule": f.rule, "data-severity": f.severity, "data-firing": String(!!f.firing), "data-node": f.node || "",
      "data-prefix": f.prefix }, true, [f.rule, f.severity, f.prefix, f.node, f.peer, f.nextHop, f.owner, f.message],
      el("td", {}, el("span", { class: "badge " + f.severity, text: f.severity })),
      el("th", { scope: "row" }, el("code", { text: f.rule }), el("span", { class: "note", text: f.firing ? "firing" : "pending (hold-down)" })),
      el("td", {}, el("code", { text: f.prefix }),
        el("span", { class: "note" }, ...(f.node ? ["node ", nodeLink(f.node)] : ["no node"]),
          ...(f.peer ? [" · peer ", peerLink(f.peer)] : []), owner ? " · " + owner : "",
          since === null ? "" : " · firing since " + utc(since))),
      ageCell(now, f.firstSeen, "first seen"),
      el("td", { class: "msg", text: f.message }), el("td", { class: "hint", text: f.hint || "" }),
      el("td", { class: "links" }, webLink(f.runbookUrl, "runbook", "noopener"),
        webLink(f.silenceUrl, "silence", "noopener"), el("a", { href: findingAPI(f), text: "JSON" })));
  }));
}
function findingAPI(f) {
  const q = new URLSearchParams({ rule: f.rule, prefix: f.prefix });
  if (f.node) q.set("node", f.node);
  return "api/v1/findings?" + q;
}

const NODE_ORDER = { wrong: 0, missing: 1, ok: 2 };
function renderNodes(nodes, findings, peers) {
  const tbody = $("nodes").tBodies[0];
  if (!Array.isArray(nodes)) return empty(tbody, 6, "Cluster inventory unavailable: " + ((nodes && nodes.error) || "no answer"));
  if (!nodes.length) return empty(tbody, 6, "No node in the cluster.");
  // An announced prefix is wrong when a finding names it for this node, or for no node (a VIP without endpoints).
  const byNode = new Map(), noNode = findings.filter((f) => !f.node && f.rule !== "missing-route");
  for (const f of findings) if (f.node) byNode.set(f.node, [...(byNode.get(f.node) || []), f]);
  const peerState = new Map((peers || []).map((p) => [p.address, p]));
  const rows = nodes.map((n) => {
    const nf = byNode.get(n.name) || [], alloc = n.allocated || [], ann = n.announced || [];
    const missing = new Set(nf.filter((f) => f.rule === "missing-route").map((f) => f.prefix));
    const flagged = new Map([...noNode, ...nf.filter((f) => f.rule !== "missing-route")].map((f) => [f.prefix, f.rule]));
    const allocChips = alloc.map((p) => ann.includes(p) ? chip(p, "ok", "allocated and announced")
      : missing.has(p) ? chip(p, "missing", "allocated but not announced (missing-route)")
      : chip(p, "unannounced", "allocated, not announced, and not expected to be (node not Ready or out of scope)"));
    const annChips = ann.map((p) => flagged.has(p) && !alloc.includes(p) ? chip(p, "wrong", "announced, but " + flagged.get(p))
      : chip(p, "ok", alloc.includes(p) ? "allocated and announced" : "announced and valid"));
    const status = annChips.some((c) => c.dataset.status === "wrong") ? "wrong"
      : allocChips.some((c) => c.dataset.status === "missing") ? "missing" : "ok";
    const label = { ok: "✓ OK", wrong: "✗ wrong", missing: "! missing" }[status];
    const notes = [!n.current && "no Node object", n.current && !n.ready && "NotReady", n.current && !n.managed && "no CiliumNode"]
      .filter(Boolean).join(", ");
    const rules = [...new Set(nf.map((f) => f.rule))], peers = n.peers || [];
    const r = row({ id: "node-" + n.name, "data-node": n.name, "data-status": status, "data-findings": nf.length },
      status !== "ok" || nf.length > 0 || !!notes, [n.name, notes, ...(n.addresses || []), ...alloc, ...ann, ...rules, ...peers],
      el("th", { scope: "row" }, el("span", { text: n.name }), notes ? el("span", { class: "note", text: notes }) : null,
        el("span", { class: "note", text: (n.addresses || []).filter((a, i, all) => all.indexOf(a) === i).join(", ") })),
      el("td", {}, el("span", { class: "badge " + status, text: label })),
      el("td", { "data-cell": "allocated" }, ...(allocChips.length ? allocChips : [el("span", { class: "muted", text: "none" })])),
      el("td", { "data-cell": "announced" }, ...(annChips.length ? annChips : [el("span", { class: "muted", text: "nothing" })])),
      el("td", { class: rules.length ? "" : "muted", text: rules.length ? nf.length + ": " + rules.join(", ") : "none" }),
      el("td", { class: peers.length ? "links-inline" : "muted" }, ...(peers.length ? peers.map((a) => {
        const st = (peerState.get(a) || {}).state || "unknown";
        return el("span", { "data-peer-state": st }, peerLink(a), st === "established" ? null : el("span", { class: "note", text: st }));
      }) : ["no session"])));
    r.order = [NODE_ORDER[status], -nf.length, n.name];
    return r;
  });
  tbody.replaceChildren(...rows.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2].localeCompare(b.order[2])));
}

// eor says what End-of-RIB means for a peer: a table is complete once every negotiated family's End-of-RIB came;
// until then its findings do not fire (warm-up).
function eor(p) {
  const got = p.endOfRib || [], want = (p.families || []).filter((f) => !got.includes(f));
  if (p.state !== "established") return { ok: false, text: got.join(", ") || "—", note: "the session is not established" };
  if (!got.length || want.length) {
    return { ok: false, text: got.length ? got.join(", ") + "; waiting for " + want.join(", ") : "not yet",
      note: "the peer is still sending its table, which may be incomplete: its routes are not judged as missing until " +
        "End-of-RIB arrives (or the warm-up times out)" };
  }
  return { ok: true, text: got.join(", "), note: "" };
}

function renderPeers(peers, now) {
  const tbody = $("peers").tBodies[0];
  if (!Array.isArray(peers) || !peers.length) return empty(tbody, 8, "No BGP peer configured or connected yet.");
  const rows = peers.map((p) => {
    const state = p.state || "unknown", gr = instant(p.staleUntil), e = eor(p);
    const problem = state !== "established" || !e.ok || gr !== null;
    const r = row({ id: "peer-" + p.address, "data-peer": p.address, "data-state": state, "data-routes": p.routes },
      problem, [p.address, p.node, state, p.routerId, p.asn && "AS" + p.asn, p.bmp && p.bmp.sysName],
      el("th", { scope: "row" }, el("code", { text: p.address }), p.dynamic ? el("span", { class: "note", text: "dynamic" }) : null,
        p.bmp ? el("span", { class: "note", text: "BMP via " + p.bmp.router + (p.bmp.sysName ? " (" + p.bmp.sysName + ")" : "") }) : null),
      el("td", { class: p.node ? "" : "muted" }, p.node ? nodeLink(p.node) : "no node"),
      el("td", { text: p.asn ? "AS" + p.asn : "—" }), el("td", {}, el("code", { text: p.routerId || "—" })),
      el("td", {}, el("span", { class: "badge " + (state === "established" ? "ok" : "wrong"), text: state }),
        gr ? el("span", { class: "note", text: "graceful restart: paths kept until " + utc(gr) }) : null),
      el("td", { class: "num", text: String(p.routes || 0) }), ageCell(now, p.since, "in this state since"),
      el("td", { class: e.ok ? "" : "muted", "data-cell": "eor", title: e.note }, e.text,
        e.note ? el("span", { class: "note", text: e.note }) : null));
    r.order = [state === "established" ? (e.ok ? 2 : 1) : 0, p.address];
    return r;
  });
  tbody.replaceChildren(...rows.sort((a, b) => a.order[0] - b.order[0] || a.order[1].localeCompare(b.order[1])));
}

function renderTransitions(ts, now) {
  const tbody = $("transitions").tBodies[0];
  if (!ts.length) return empty(tbody, 5, "No finding fired or resolved since routewarden started.");
  tbody.replaceChildren(...ts.map((t) => {
    const f = t.finding, at = instant(t.at);
    return row({ "data-kind": t.kind, "data-rule": f.rule, "data-node": f.node || "" }, true,
      [t.kind, f.rule, f.prefix, f.node, f.peer, f.owner, f.message],
      el("td", { "data-age-seconds": at === null ? null : Math.floor((now - at) / 1000) }, at === null ? "—" : utc(at),
        el("span", { class: "note", text: at === null ? "" : age(now - at) + " ago" })),
      el("td", {}, el("span", { class: "badge " + (t.kind === "fired" ? f.severity : "ok"), text: t.kind })),
      el("th", { scope: "row" }, el("code", { text: f.rule })),
      el("td", {}, el("code", { text: f.prefix }), el("span", { class: "note" }, ...(f.node ? ["node ", nodeLink(f.node)] : ["no node"]))),
      el("td", { class: "msg", text: f.message }));
  }));
}

// renderConvergence lists the route changes still pending (a problem once past their budget), then the completed ones.
function renderConvergence(c) {
  const tbody = $("convergence").tBodies[0], b = c && c.budgets, secs = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0)) + "s";
  $("convergence-budgets").textContent = b ? "Budgets: announce " + secs(b.podCidrAnnounce) + " (pod CIDR), " +
    secs(b.vipAnnounce) + " (VIP); withdraw " + secs(b.podCidrWithdraw) + " (pod CIDR), " + secs(b.vipWithdraw) + " (VIP)." : "";
  if (!c || !c.changes.length) return empty(tbody, 5, "No route change measured since routewarden started.");
  tbody.replaceChildren(...c.changes.map((x) => row({ "data-state": x.state, "data-node": x.node }, x.slow,
    [x.state, x.type, x.direction, x.prefix, x.node, x.slow && "slow"],
    el("td", {}, instant(x.since) === null ? "—" : utc(instant(x.since))),
    el("td", {}, el("span", { class: "badge " + (x.slow ? "warning" : x.state === "pending" ? "info" : "ok"),
      text: x.slow ? x.state + ", slow" : x.state })),
    el("td", { text: x.type + " " + x.direction }),
    el("td", {}, el("code", { text: x.prefix }), el("span", { class: "note" }, "node ", nodeLink(x.node))),
    el("td", { class: "num", title: "budget " + secs(x.budgetSeconds), text: (x.state === "pending" ? "waiting " : "") + secs(x.seconds) }))));
}

function renderSummary(state, nodes, peers) {
  const fs = state.findings, up = (peers || []).filter((p) => p.state === "established").length;
  const bySev = ["critical", "warning", "info"].map((s) => [s, fs.filter((f) => f.severity === s).length]).filter(([, n]) => n);
  $("summary").textContent = [Array.isArray(nodes) ? nodes.length + " nodes" : "nodes unknown",
    (peers || []).length + " peers (" + up + " established)", (state.summary.routes || 0) + " routes",
    fs.length + " findings" + (bySev.length ? " (" + bySev.map(([s, n]) => n + " " + s).join(", ") + ")" : "")].join(" · ");
  const notice = state.frozen ? "Findings are frozen: the cluster inventory is unavailable (" + (state.inventory.reason || "unknown") + ")."
    : state.warmingUp ? "Warming up: nothing fires until the inventory synced and every expected peer sent End-of-RIB." : "";
  $("notice").hidden = !notice;
  $("notice").textContent = notice;
}

// applyFilters hides the rows the search or "only problems" rule out, counts what is shown, and keeps both in the URL.
function applyFilters() {
  const words = $("q").value.toLowerCase().split(/\s+/).filter(Boolean), only = $("only").checked, shown = [];
  for (const id of ["findings", "nodes", "peers", "transitions", "convergence"]) {
    const rows = [...$(id).tBodies[0].rows].filter((r) => r.dataset.search !== undefined);
    let n = 0;
    for (const r of rows) {
      r.hidden = only && r.dataset.problem !== "true" || !words.every((w) => r.dataset.search.includes(w));
      n += !r.hidden;
    }
    $("c-" + id).textContent = rows.length ? (n === rows.length ? String(n) : n + " of " + rows.length + " shown") : "";
    if (n < rows.length) shown.push(n + " of " + rows.length + " " + id);
  }
  $("shown").textContent = shown.length ? "Showing " + shown.join(", ") : "";
  const q = new URLSearchParams();
  if ($("q").value) q.set("q", $("q").value);
  if (only) q.set("only", "problems");
  history.replaceState(null, "", (q.size ? "?" + q : location.pathname) + location.hash);
}
// Following a link to a row the filters hide clears them.
function reveal() {
  const t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (t && t.hidden) { $("q").value = ""; $("only").checked = false; applyFilters(); t.scrollIntoView(); }
}

// renderRTR shows the RTR server's set and routers; the section stays hidden while it is off (404).
async function renderRTR(now) {
  const res = await fetch("api/v1/roas", { cache: "no-store", headers: { Accept: "application/json" } }).catch(() => null);
  $("rtr").hidden = !res || !res.ok;
  if ($("rtr").hidden) return;
  const r = await res.json(), tbody = $("rtr-clients").tBodies[0];
  $("rtr-summary").textContent = [(r.ready ? r.count + " ROAs at serial " + r.serial : "no ROA set yet"),
    "session " + r.sessionId, r.frozen && "frozen: " + r.frozen, r.held && "update held: " + r.held.reason,
    (r.unresolved || []).length && r.unresolved.length + " allocations without an AS"].filter(Boolean).join(" · ");
  if (!(r.clients || []).length) return empty(tbody, 5, "No router connected.");
  tbody.replaceChildren(...r.clients.map((c) => el("tr", { "data-client": c.address },
    el("th", { scope: "row" }, el("code", { text: c.address })), el("td", { text: c.version < 0 ? "—" : String(c.version) }),
    ageCell(now, c.connected, "connected"),
    el("td", { text: instant(c.lastQuery) === null ? "none yet" : (c.lastQueryType || "") + " query, " + age(now - instant(c.lastQuery)) + " ago" }),
    el("td", { class: "num", text: String(c.serial) }))));
}

async function getJSON(path) {
  const res = await fetch(path, { cache: "no-store", headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(path + ": HTTP " + res.status + " " + (await res.text()).trim().slice(0, 200));
  return res.json();
}

async function refresh() {
  try {
    // Nodes answer 503 while the cluster inventory is unavailable: the page shows why, and the rest.
    const [state, nodes, peers, ts] = await Promise.all([getJSON("api/v1/findings?limit=5000"),
      getJSON("api/v1/nodes?limit=5000").then((r) => r.nodes, (err) => ({ error: err.message })),
      getJSON("api/v1/peers?limit=5000").then((r) => r.peers), getJSON("api/v1/transitions?limit=20")]);
    const conv = await getJSON("api/v1/convergence?limit=50").catch(() => null);
    const now = instant(state.now) || Date.now(), first = !loaded;
    renderFindings(state.findings, now);
    renderNodes(nodes, state.findings, peers);
    renderPeers(peers, now);
    renderTransitions(ts.transitions, now);
    renderConvergence(conv);
    renderSummary(state, nodes, peers);
    await renderRTR(now);
    await renderViews();
    applyFilters();
    if (first) reveal();
    $("updated").textContent = "Updated " + utc(now) + " · refreshes every " + REFRESH_MS / 1000 + "s";
    $("error").hidden = true;
    document.body.dataset.state = "ok";
    loaded = true;
  } catch (err) {
    $("error").textContent = "Cannot reach routewarden's API (" + err.message + "). " +
      (loaded ? "The tables show the last answer." : "Nothing to show yet.") +
      " Retrying every " + REFRESH_MS / 1000 + "s.";
    $("error").hidden = false;
    document.body.dataset.state = "error";
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

const params = new URLSearchParams(location.search);
$("q").value = params.get("q") || "";
$("only").checked = params.get("only") === "problems";
$("q").addEventListener("input", applyFilters);
$("only").addEventListener("change", applyFilters);
$("filters").addEventListener("submit", (e) => { e.preventDefault(); applyFilters(); });
window.addEventListener("hashchange", reveal);
refresh();
