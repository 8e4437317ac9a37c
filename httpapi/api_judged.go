package httpapi

import (
	"github.com/routewarden/routewarden/monitor"
)

// warmupJSON says what warm-up waits for: the end of its timeout ("" until
// the inventory synced, and after warm-up) and the peers whose End-of-RIB
// would end it sooner.
type warmupJSON struct {
	EndsAt   string        `json:"endsAt"`
	Awaiting []awaitedJSON `json:"awaiting"`
}

type awaitedJSON struct {
	Node      string   `json:"node"` // "" for a static neighbor
	Addresses []string `json:"addresses"`
}

func warmupOut(st monitor.State) warmupJSON {
	out := warmupJSON{EndsAt: timeText(st.WarmupEnds), Awaiting: []awaitedJSON{}}
	for _, a := range st.Awaiting {
		out.Awaiting = append(out.Awaiting, awaitedJSON{Node: a.Node, Addresses: texts(a.Addresses)})
	}
	return out
}

// judgement says whether the last validation judged the cluster's nodes (not
// during warm-up, nor while frozen) and, while frozen, since when.
func judgement(st monitor.State) (judged bool, frozenSince string) {
	if st.Frozen {
		return false, timeText(st.Inventory.Since)
	}
	return !st.WarmingUp && st.Inventory.Synced, ""
}
