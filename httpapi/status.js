"use strict";
// The status page's script (status.go inlines it into status.html): it reads ./api/v1/* every REFRESH_MS and
// draws problems first, a page of rows a table (status_pager.js); the search box and "only problems" filter every
// table and live in the URL (?q=&only=).
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

function findingWords(f) { return [f.rule, f.severity, f.prefix, f.node, f.peer, f.nextHop, f.owner, f.message]; }
// renderFindings draws the shown page of the findings the search matches (every finding is a problem).
function renderFindings(findings, now, state) {
  const tbody = $("findings").tBodies[0], words = searchWords();
  const sorted = [...findings].sort((a, b) => (SEVERITY[b.severity] || 0) - (SEVERITY[a.severity] || 0) || (b.firing - a.firing))
    .filter((f) => words.every((w) => findingWords(f).filter(Boolean).join(" ").toLowerCase().includes(w)));
  // A link to a finding (an alert's generatorURL) shows the page of the findings it is on.
  const target = follow ? sorted.findIndex((f) => findingID(f) === decodeURIComponent(location.hash.slice(1))) : -1;
  if (target >= 0) pages.findings.at = target - target % PAGE_ROWS;
  const shown = pageOf("findings", sorted);
  if (!findings.length) return empty(tbody, 7, noFindings(state, now));
  if (!shown.length) return empty(tbody, 7, "No finding matches the search.");
  tbody.replaceChildren(...shown.map((f) => {
    const owner = f.owner && (f.owner.includes("/") ? "Service " : "allocated to ") + f.owner;
    const since = instant(f.firingSince);
    return row({ id: findingID(f), "data-rule": f.rule, "data-severity": f.severity, "data-firing": String(!!f.firing), "data-node": f.node || "",
      "data-prefix": f.prefix }, true, findingWords(f),
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
// findingID is a finding's row id, the anchor of its alerts' generatorURL (server.go's FindingAnchor).
function findingID(f) { return "finding-" + f.rule + "-" + f.prefix + (f.node ? "-" + f.node : ""); }
function findingAPI(f) {
  const q = new URLSearchParams({ rule: f.rule, prefix: f.prefix });
  if (f.node) q.set("node", f.node);
  return "api/v1/findings?" + q;
}

// nodeContext is what a node's row reads besides the node: the findings by node, those of no node, and the
// state of every peer that is not established (the others are).
function nodeContext(findings, downPeers) {
  // An announced prefix is wrong when a finding names it for this node, or for no node (a VIP without endpoints).
  const byNode = new Map(), noNode = findings.filter((f) => !f.node && f.rule !== "missing-route");
  for (const f of findings) if (f.node) byNode.set(f.node, [...(byNode.get(f.node) || []), f]);
  return { byNode, noNode, peerState: downPeers && new Map(downPeers.map((p) => [p.address, p.state])) };
}
// renderNodes draws the page of nodes the API answered (problems first, filtered by it), or why there is none.
function renderNodes(answer, ctx) {
  const tbody = $("nodes").tBodies[0];
  paged("nodes", answer, answer.nodes || []);
  if (!Array.isArray(answer.nodes)) return empty(tbody, 6, "Cluster inventory unavailable: " + (answer.error || "no answer"));
  if (!answer.nodes.length) return empty(tbody, 6, filtered() ? "No node matches the filters." : "No node in the cluster.");
  tbody.replaceChildren(...answer.nodes.map((n) => nodeRow(n, ctx)));
}
function nodeRow(n, { byNode, noNode, peerState }) {
  const nf = byNode.get(n.name) || [], alloc = n.allocated || [], ann = n.announced || [];
  const missing = new Set(nf.filter((f) => f.rule === "missing-route").map((f) => f.prefix));
  const flagged = new Map([...noNode, ...nf.filter((f) => f.rule !== "missing-route")].map((f) => [f.prefix, f.rule]));
  const allocChips = alloc.map((p) => ann.includes(p) ? chip(p, "ok", "allocated and announced")
    : missing.has(p) ? chip(p, "missing", "allocated but not announced (missing-route)")
    : chip(p, "unannounced", "allocated, not announced, and not expected to be (node not Ready or out of scope)"));
  const unjudged = n.judged === false && !n.frozenSince;
  const annChips = ann.map((p) => flagged.has(p) && !alloc.includes(p) ? chip(p, "wrong", "announced, but " + flagged.get(p))
    : unjudged && !alloc.includes(p) ? chip(p, "unjudged", "announced, not judged yet (warming up)")
    : chip(p, "ok", alloc.includes(p) ? "allocated and announced" : "announced and valid"));
  const found = annChips.some((c) => c.dataset.status === "wrong") ? "wrong"
    : allocChips.some((c) => c.dataset.status === "missing") ? "missing" : "ok";
  // A node is OK only when the last validation judged it: not during warm-up, nor while frozen.
  const frozen = instant(n.frozenSince), judged = n.judged !== false;
  const status = judged || (frozen !== null && found !== "ok") ? found : frozen !== null ? "frozen" : "unjudged";
  const label = { ok: "✓ OK", wrong: "✗ wrong", missing: "! missing", frozen: "❄ frozen", unjudged: "… not judged yet" }[status];
  const when = frozen !== null ? "frozen since " + utc(frozen) : judged ? "" : "warming up";
  const notes = [!n.current && "no Node object", n.current && !n.ready && "NotReady", n.current && !n.managed && "no CiliumNode"]
    .filter(Boolean).join(", ");
  const rules = [...new Set(nf.map((f) => f.rule))], peers = n.peers || [];
  const r = row({ id: "node-" + n.name, "data-node": n.name, "data-status": status, "data-findings": nf.length },
    status === "wrong" || status === "missing" || nf.length > 0 || !!notes, [n.name, notes, ...(n.addresses || []), ...alloc, ...ann, ...rules, ...peers],
    el("th", { scope: "row" }, el("span", { text: n.name }), notes ? el("span", { class: "note", text: notes }) : null,
      el("span", { class: "note", text: (n.addresses || []).filter((a, i, all) => all.indexOf(a) === i).join(", ") })),
    el("td", {}, el("span", { class: "badge " + status, text: label }), when ? el("span", { class: "note", text: when }) : null),
    el("td", { "data-cell": "allocated" }, ...(allocChips.length ? allocChips : [el("span", { class: "muted", text: "none" })])),
    el("td", { "data-cell": "announced" }, ...(annChips.length ? annChips : [el("span", { class: "muted", text: "nothing" })])),
    el("td", { class: rules.length ? "" : "muted", text: rules.length ? nf.length + ": " + rules.join(", ") : "none" }),
    el("td", { class: peers.length ? "links-inline" : "muted" }, ...(peers.length ? peers.map((a) => {
      const st = peerState ? peerState.get(a) || "established" : "unknown";
      return el("span", { "data-peer-state": st }, peerLink(a), st === "established" ? null : el("span", { class: "note", text: st }));
    }) : ["no session"])));
  return r;
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

// routesCell shows the paths a peer holds, and what it sent against what was accepted when any was left out.
function routesCell(p) {
  const dropped = Object.entries(p.dropped || {}).filter(([, n]) => n > 0);
  if (!dropped.length) return el("td", { class: "num", text: String(p.routes || 0) });
  return el("td", { class: "num", "data-cell": "dropped" }, String(p.routes || 0),
    el("span", { class: "note", text: p.received + " received, " + p.accepted + " accepted; left out: " +
      dropped.map(([why, n]) => n + " " + why).join(", ") }));
}

// renderPeers draws the page of peers the API answered (sessions down and waiting first, filtered by it).
function renderPeers(answer, now) {
  const tbody = $("peers").tBodies[0];
  paged("peers", answer, answer.peers);
  if (!answer.peers.length) return empty(tbody, 8, filtered() ? "No peer matches the filters." : "No BGP peer configured or connected yet.");
  tbody.replaceChildren(...answer.peers.map((p) => peerRow(p, now)));
}
function peerRow(p, now) {
  const state = p.state || "unknown", gr = instant(p.staleUntil), e = eor(p);
  const dropped = Object.entries(p.dropped || {}).filter(([, n]) => n > 0);
  const problem = state !== "established" || !e.ok || gr !== null || dropped.length > 0;
  const r = row({ id: "peer-" + p.address, "data-peer": p.address, "data-state": state, "data-routes": p.routes },
    problem, [p.address, p.node, state, p.routerId, p.asn && "AS" + p.asn, p.bmp && p.bmp.sysName],
    el("th", { scope: "row" }, el("code", { text: p.address }), p.dynamic ? el("span", { class: "note", text: "dynamic" }) : null,
      p.bmp ? el("span", { class: "note", text: "BMP via " + p.bmp.router + (p.bmp.sysName ? " (" + p.bmp.sysName + ")" : "") }) : null),
    el("td", { class: p.node ? "" : "muted" }, p.node ? nodeLink(p.node) : "no node"),
    el("td", { text: p.asn ? "AS" + p.asn : "—" }), el("td", {}, el("code", { text: p.routerId || "—" })),
    el("td", {}, el("span", { class: "badge " + (state === "established" ? "ok" : "wrong"), text: state }),
      gr ? el("span", { class: "note", text: "graceful restart: paths kept until " + utc(gr) }) : null),
    routesCell(p), ageCell(now, p.since, "in this state since"),
    el("td", { class: e.ok ? "" : "muted", "data-cell": "eor", title: e.note }, e.text,
      e.note ? el("span", { class: "note", text: e.note }) : null));
  return r;
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

// renderSummary counts the whole cluster (nodeTotal null while the inventory is unavailable); down are the
// peers whose session is not established (null when unknown).
function renderSummary(state, nodeTotal, peerTotal, down) {
  const fs = state.findings, bySev = ["critical", "warning", "info"].map((s) => [s, fs.filter((f) => f.severity === s).length])
    .filter(([, n]) => n);
  $("summary").textContent = [nodeTotal === null ? "nodes unknown" : nodeTotal + " nodes",
    peerTotal + " peers" + (down === null ? "" : " (" + (peerTotal - down) + " established)"), (state.summary.routes || 0) + " routes",
    state.warmingUp && !fs.length ? "findings not judged yet"
      : (state.total || fs.length) + " findings" + (bySev.length ? " (" + bySev.map(([s, n]) => n + " " + s).join(", ") + ")" : "") +
        (state.frozen ? " (frozen)" : "")].join(" · ");
  const now = instant(state.now) || Date.now();
  const notice = state.frozen ? "Findings frozen since " + frozenText(state.frozenSince, now) + ": the cluster inventory is unavailable (" +
      (state.inventory.reason || "unknown") + "). The findings below are as they were then; nothing fires or resolves until it is back."
    : state.warmingUp ? "Not judged yet: warming up, nothing is judged or fires (" + warmupText(state, now) + ")." : "";
  $("notice").hidden = !notice;
  $("notice").textContent = notice;
}

// renderRTR shows the RTR server's set and routers; the section stays hidden while it is off (404).
async function renderRTR(now) {
  const res = await fetch("api/v1/roas", { cache: "no-store", headers: { Accept: "application/json" } }).catch(() => null);
  $("rtr").hidden = $("roas-link").hidden = !res || !res.ok;
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

// refresh reads the API and draws every table; one at a time: a newer refresh (the filters or a page changed)
// makes an older one's answers moot. follow: the URL's #fragment is new (first load, a link followed).
let timer = 0, seq = 0, follow = true, context = nodeContext([], null);
function refreshSoon(ms) { clearTimeout(timer); timer = setTimeout(refresh, ms); }
async function refresh() {
  const my = ++seq;
  try {
    // Nodes answer 503 while the cluster inventory is unavailable: the page shows why, and the rest. What the
    // page cannot do without comes first (findings, the shown pages, changes), the rest after and may fail.
    const [state, nodes, peers, ts] = await Promise.all([getJSON("api/v1/findings?limit=5000"),
      getPage("nodes").catch((err) => ({ error: err.message })), getPage("peers"), getJSON("api/v1/transitions?limit=20")]);
    const total = (t) => getJSON("api/v1/" + t + "?limit=1").then((r) => r.total, () => null);
    const [down, conv, nodeTotal, peerTotal] = await Promise.all([
      getJSON("api/v1/peers?problems=true&limit=5000").then((r) => r.peers, () => null),
      getJSON("api/v1/convergence?limit=50").catch(() => null),
      filtered() ? total("nodes") : nodes.error ? null : nodes.total, filtered() ? total("peers") : peers.total]);
    if (my !== seq) return;
    const now = instant(state.now) || Date.now();
    context = nodeContext(state.findings, down && down.filter((p) => p.state !== "established"));
    renderFindings(state.findings, now, state);
    renderNodes(nodes, context);
    renderPeers(peers, now);
    renderTransitions(ts.transitions, now);
    renderConvergence(conv);
    renderSummary(state, nodeTotal, peerTotal, down && context.peerState.size);
    await renderRTR(now);
    await renderViews();
    if (my !== seq) return;
    if (!(await showTarget(follow))) return refresh();
    follow = false;
    applyFilters({ findings: state.findings.length, nodes: nodeTotal, peers: peerTotal });
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
    if (my === seq) refreshSoon(REFRESH_MS);
  }
}

// The script runs once the page's other scripts defined what it uses.
window.addEventListener("DOMContentLoaded", () => {
  const params = new URLSearchParams(location.search);
  $("q").value = params.get("q") || "";
  $("only").checked = params.get("only") === "problems";
  readPages(params);
  $("q").addEventListener("input", () => filtersChanged(300));
  $("only").addEventListener("change", () => filtersChanged(0));
  $("filters").addEventListener("submit", (e) => { e.preventDefault(); filtersChanged(0); });
  window.addEventListener("hashchange", () => { follow = true; refreshSoon(0); });
  refresh();
});
