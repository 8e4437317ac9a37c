// Paging (status.go inlines this after status.js): the findings, nodes, peers and BMP paths tables draw PAGE_ROWS
// rows at a time, problems first, with Previous/Next above each. Nodes and peers are paged and filtered by the API
// (?order=problems&q=&problems=true, continue tokens), findings and paths here. Each table's page lives in the URL
// (?nodes=100:<token>: the first row's position, then the token) next to ?q= and ?only=.
const PAGE_ROWS = 100;
const PAGED = ["findings", "nodes", "peers", "views"];
// LOCAL are the tables the page holds whole and cuts pages out of (?findings=100: the first row's position).
const LOCAL = ["findings", "views"];
// pages: where each table's shown page starts (position, and the API's continue token for nodes and peers), the
// pages before it (for Previous), and what the last answer said about the rest.
const pages = Object.fromEntries(PAGED.map((t) => [t, { at: 0, token: "", back: [], next: "", total: 0, rows: 0 }]));

function readPages(params) {
  for (const t of PAGED) {
    const [at, token] = (params.get(t) || "").split(/:(.*)/s);
    pages[t].at = Math.max(0, parseInt(at, 10) || 0);
    pages[t].token = LOCAL.includes(t) ? "" : token || "";
    if (!LOCAL.includes(t) && !pages[t].token) pages[t].at = 0;
  }
}
function writePages(q) {
  for (const t of PAGED) if (pages[t].at > 0) q.set(t, pages[t].at + (pages[t].token ? ":" + pages[t].token : ""));
}
// firstPages goes back to every table's first page (the filters changed, or a token's row is gone).
function firstPages(...tables) {
  for (const t of tables.length ? tables : PAGED) Object.assign(pages[t], { at: 0, token: "", back: [] });
}

// filterQuery is the filters as API parameters (for nodes and peers).
function filterQuery() {
  const q = new URLSearchParams();
  if ($("q").value.trim()) q.set("q", $("q").value.trim());
  if ($("only").checked) q.set("problems", "true");
  return q;
}
function filtered() { return !!$("q").value.trim() || $("only").checked; }
function searchWords() { return $("q").value.toLowerCase().split(/\s+/).filter(Boolean); }

// applyFilters hides the rows of the short tables (changes, convergence) the filters rule out, counts what every
// table shows against all there is (totals: of the paged tables, unfiltered), and keeps it all in the URL.
function applyFilters(totals) {
  const words = searchWords(), only = $("only").checked, shown = [];
  const count = (id, n, all) => {
    $("c-" + id).textContent = all ? (n === all ? String(n) : n + " of " + all + " shown") : "";
    if (n < all) shown.push(n + " of " + all + " " + id);
  };
  for (const id of ["findings", "nodes", "peers"]) count(id, pages[id].total, totals[id]);
  for (const id of ["transitions", "convergence"]) {
    const rows = [...$(id).tBodies[0].rows].filter((r) => r.dataset.search !== undefined);
    for (const r of rows) r.hidden = only && r.dataset.problem !== "true" || !words.every((w) => r.dataset.search.includes(w));
    count(id, rows.filter((r) => !r.hidden).length, rows.length);
  }
  $("shown").textContent = shown.length ? "Showing " + shown.join(", ") : "";
  for (const id of PAGED) renderPager(id);
  writeURL();
}
function writeURL() {
  const q = new URLSearchParams();
  if ($("q").value) q.set("q", $("q").value);
  if ($("only").checked) q.set("only", "problems");
  writePages(q);
  history.replaceState(null, "", (q.size ? "?" + q : location.pathname) + location.hash);
}
// filtersChanged starts every table again from its first page and asks the API (after the typing paused).
function filtersChanged(wait) {
  firstPages();
  writeURL();
  refreshSoon(wait);
}

// showTarget shows the row a link (the URL's #fragment) points to: following a link to a row the filters hide
// clears them (false: the tables must be read again); a node or peer on another page is read and pinned above
// its table's page.
async function showTarget(scroll) {
  const id = decodeURIComponent(location.hash.slice(1));
  let t = id && document.getElementById(id);
  if (!id || t && !t.hidden) return t && scroll && t.scrollIntoView(), true;
  if (filtered()) {
    $("q").value = "";
    $("only").checked = false;
    firstPages();
    return false;
  }
  const [, kind, key] = id.match(/^(node|peer)-(.+)$/) || [];
  const a = kind && await getJSON("api/v1/" + kind + "s?" + new URLSearchParams({ [kind]: key })).catch(() => null);
  const item = a && a[kind + "s"] && a[kind + "s"][0];
  if (!item) return true;
  t = kind === "node" ? nodeRow(item, context) : peerRow(item, instant(a.now) || Date.now());
  t.dataset.pinned = "true";
  $(kind + "s").tBodies[0].prepend(t);
  if (scroll) t.scrollIntoView();
  return true;
}

// getPage reads the shown page of nodes or peers; a token the API no longer knows (the row it continued from is
// gone) starts the table again from its first page.
async function getPage(table) {
  const q = filterQuery(), p = pages[table];
  q.set("order", "problems");
  q.set("limit", String(PAGE_ROWS));
  if (p.token) q.set("continue", p.token);
  try {
    return await getJSON("api/v1/" + table + "?" + q);
  } catch (err) {
    if (!p.token || !/HTTP (400|410)/.test(err.message)) throw err;
    firstPages(table);
    return getPage(table);
  }
}

// pageOf cuts the shown page out of a list the page holds whole (findings, paths).
function pageOf(table, items) {
  const p = pages[table];
  if (p.at >= items.length) p.at = Math.max(0, items.length - PAGE_ROWS);
  p.at -= p.at % PAGE_ROWS;
  const next = p.at + PAGE_ROWS < items.length ? String(p.at + PAGE_ROWS) : "";
  Object.assign(p, { next, total: items.length, rows: Math.min(PAGE_ROWS, items.length - p.at) });
  return items.slice(p.at, p.at + PAGE_ROWS);
}

// paged notes what the API said about the shown page of nodes or peers.
function paged(table, answer, rows) {
  Object.assign(pages[table], { next: answer.continue || "", total: answer.total || 0, rows: rows.length });
}

// renderPager writes "rows 101–200 of 5000, problems first" and enables Previous and Next.
function renderPager(table) {
  const p = pages[table], nav = $("p-" + table), [prev, info, next] = nav.children;
  nav.hidden = p.at === 0 && !p.next;
  info.textContent = p.rows ? "rows " + (p.at + 1) + "–" + (p.at + p.rows) + " of " + p.total +
    (table === "findings" ? ", worst first" : table === "views" ? ", dropped first" : ", problems first") : "";
  prev.disabled = p.at === 0;
  next.disabled = !p.next;
}

function turnPage(table, dir) {
  const p = pages[table];
  if (dir === "next" && p.next) {
    p.back.push({ at: p.at, token: p.token });
    Object.assign(p, LOCAL.includes(table) ? { at: Number(p.next) } : { at: p.at + p.rows, token: p.next });
  } else if (dir === "prev") {
    const b = p.back.pop() || (LOCAL.includes(table) ? { at: Math.max(0, p.at - PAGE_ROWS), token: "" } : { at: 0, token: "" });
    Object.assign(p, b);
  }
  refreshSoon(0);
  $("h-" + table).scrollIntoView({ block: "nearest" });
}
for (const t of PAGED) {
  $("p-" + t).addEventListener("click", (e) => { if (e.target.dataset.dir) turnPage(t, e.target.dataset.dir); });
}
