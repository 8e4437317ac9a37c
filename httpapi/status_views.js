// The ToRs' policy verdict: every path of a BMP-monitored peer, pre-policy against post-policy (and
// the router's Loc-RIB). A path dropped by policy is a problem (filtered-at-tor judges it); one the
// policy changed (next hop, communities, local preference) is shown, not alerted. The section stays hidden without BMP views.
const VIEWS = ["pre-policy", "post-policy", "loc-rib"];
function pathText(r) {
  if (!r) return "";
  const c = [...(r.communities || []), ...(r.largeCommunities || [])];
  return "via " + (r.nextHop || "—") + (c.length ? " · " + c.join(" ") : "") +
    (r.localPref != null ? " · local-pref " + r.localPref : "");
}
function verdict(pre, post, postKnown) {
  if (!pre) return { status: "ok", text: "post-policy only" };
  if (!postKnown) return { status: "ok", text: "pre-policy only (no post-policy view)" };
  if (!post) return { status: "wrong", text: "dropped by policy" };
  return pathText(pre) === pathText(post) ? { status: "ok", text: "accepted" } : { status: "info", text: "changed by policy" };
}
async function renderViews() {
  const [pre, post, loc] = await Promise.all(VIEWS.map((v) => getJSON("api/v1/routes?limit=5000&view=" + v)
    .then((r) => r.routes || [], () => [])));
  $("views").hidden = !pre.length && !post.length;
  if ($("views").hidden) return;
  const rows = new Map(), key = (r) => r.prefix + "|" + r.router + "|" + r.peer;
  for (const [i, list] of [pre, post].entries()) {
    for (const r of list) {
      const e = rows.get(key(r)) || { r, paths: [null, null] };
      e.paths[i] = r;
      rows.set(key(r), e);
    }
  }
  const postRouters = new Set(post.map((r) => r.router)), best = new Map(loc.map((r) => [r.prefix + "|" + r.router, r]));
  // Paths the policy dropped first, then a page of the rest.
  const judged = [...rows.values()].map((e) => ({ ...e, v: verdict(e.paths[0], e.paths[1], postRouters.has(e.r.router)) }));
  judged.sort((a, b) => (b.v.status === "wrong") - (a.v.status === "wrong"));
  $("views-table").tBodies[0].replaceChildren(...pageOf("views", judged).map(({ r, paths, v }) => {
    const l = best.get(r.prefix + "|" + r.router);
    return row({ "data-prefix": r.prefix, "data-router": r.router, "data-verdict": v.text }, v.status === "wrong",
      [r.prefix, r.router, r.peer, r.node, v.text],
      el("th", { scope: "row" }, el("code", { text: r.prefix }), el("span", { class: "note" },
        ...(r.node ? ["node ", nodeLink(r.node), " · "] : []), "peer ", peerLink(r.peer))),
      el("td", {}, el("code", { text: r.router })), el("td", { text: pathText(paths[0]) || "—" }),
      el("td", { text: pathText(paths[1]) || "—" }), el("td", { text: l ? pathText(l) : "—" }),
      el("td", {}, el("span", { class: "badge " + v.status, text: v.text })));
  }));
}
