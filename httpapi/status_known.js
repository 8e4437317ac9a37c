// What the page knows (status.go inlines this after status.js): nothing is judged during warm-up, and findings
// are frozen while the cluster inventory is away; the page says so, with the time left and the peers awaited, or
// since when, and never that the routes match.
// noFindings says what an empty list means: a match only once something was judged.
function noFindings(state, now) {
  if (state && state.frozen) return "No findings when the cluster inventory went away; frozen since " + frozenText(state.frozenSince, now) +
    ": nothing is judged until it is back.";
  if (state && state.warmingUp) return "Not judged yet: warming up (" + warmupText(state, now) + ").";
  return "No findings: the routes match the cluster.";
}
function frozenText(since, now) { const t = instant(since); return t === null ? "—" : utc(t) + " (" + age(now - t) + " ago)"; }
// warmupText: the time left and the peers awaited.
function warmupText(state, now) {
  if (!state.inventory.synced) return "the cluster inventory has not synced yet: " + (state.inventory.reason || "no answer");
  const w = state.warmup || {}, end = instant(w.endsAt), waiting = (w.awaiting || []).map((a) =>
    a.node ? a.node + " (" + a.addresses.join(", ") + ")" : a.addresses.join(", "));
  return (end === null ? "" : "judging starts in " + age(Math.max(0, end - now)) + ", at " + utc(end) + " at the latest") +
    (waiting.length ? "; sooner once End-of-RIB comes from " + (waiting.length > 8 ? waiting.slice(0, 8).join(", ") + " and " +
      (waiting.length - 8) + " more" : waiting.join(", ")) : "");
}
