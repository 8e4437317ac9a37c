package rtr

import (
	"slices"
	"sync"

	"github.com/routewarden/routewarden/validator/roa"
)

// maxDeltas is how many serials back a Serial Query is answered
// incrementally; older serials get a Cache Reset (a full Reset Query then).
const maxDeltas = 64

// delta is what changed to reach serial.
type delta struct {
	serial              uint32
	withdrawn, announce []roa.ROA
}

// cache is the served ROA set, its serial and the recent deltas. The slices
// it hands out are never changed afterwards.
type cache struct {
	mu      sync.RWMutex
	session uint16
	serial  uint32
	ready   bool // a set has been published
	roas    []roa.ROA
	deltas  []delta
	size    int // ROAs held by deltas
}

// snapshot is the cache at one serial.
type snapshot struct {
	session uint16
	serial  uint32
	ready   bool
	roas    []roa.ROA
}

func (c *cache) snapshot() snapshot {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return snapshot{session: c.session, serial: c.serial, ready: c.ready, roas: c.roas}
}

// publish makes roas (sorted) the served set; it reports whether anything
// changed (the serial then moved on).
func (c *cache) publish(roas []roa.ROA) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	withdrawn, announced := roa.Diff(c.roas, roas)
	if c.ready && len(withdrawn) == 0 && len(announced) == 0 {
		return false
	}
	// Every set gets a serial of its own, the first one too: a router that
	// asked before it was known (No Data) holds serial 0 and, as GoBGP
	// does, asks again only on a Serial Notify of a serial it does not hold.
	c.serial++
	if c.ready {
		c.deltas = append(c.deltas, delta{serial: c.serial, withdrawn: withdrawn, announce: announced})
		c.size += len(withdrawn) + len(announced)
		// Deltas that add up to more than the set itself are no cheaper than a reset.
		for len(c.deltas) > maxDeltas || len(c.deltas) > 1 && c.size > len(roas)+len(c.roas) {
			c.size -= len(c.deltas[0].withdrawn) + len(c.deltas[0].announce)
			c.deltas = c.deltas[1:]
		}
	}
	c.ready, c.roas = true, roas
	return true
}

// since returns the net change from serial to the current one, or false when
// the cache cannot tell (a serial it never had, or too old).
func (c *cache) since(session uint16, serial uint32) (withdrawn, announced []roa.ROA, cur uint32, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.ready || session != c.session {
		return nil, nil, c.serial, false
	}
	if serial == c.serial {
		return nil, nil, c.serial, true
	}
	start := -1
	for i, d := range c.deltas {
		if d.serial-1 == serial {
			start = i
		}
	}
	if start < 0 {
		return nil, nil, c.serial, false
	}
	// Net the deltas: a ROA announced then withdrawn (or the reverse) is no change.
	gone, added := map[roa.Key]roa.ROA{}, map[roa.Key]roa.ROA{}
	for _, d := range c.deltas[start:] {
		for _, r := range d.withdrawn {
			if _, ok := added[r.Key()]; ok {
				delete(added, r.Key())
			} else {
				gone[r.Key()] = r
			}
		}
		for _, r := range d.announce {
			if _, ok := gone[r.Key()]; ok {
				delete(gone, r.Key())
			} else {
				added[r.Key()] = r
			}
		}
	}
	return sorted(gone), sorted(added), c.serial, true
}

func sorted(m map[roa.Key]roa.ROA) []roa.ROA {
	out := make([]roa.ROA, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, roa.Compare)
	return out
}
