package index

// packedTable is a linear-probing hash table from non-zero 40-bit keys to
// values below packedMaxValue, a slot being key<<24 | value (0 is free). It
// stays at most half full; deletion shifts the probe run back.
type packedTable struct {
	slots []uint64 // len is a power of two
	shift uint     // 64 - log2(len(slots))
	n     int
}

const (
	packedValueBits = 24
	packedMaxValue  = 1 << packedValueBits
)

func newPackedTable(size int) *packedTable {
	log := uint(4)
	for 1<<log < 2*size {
		log++
	}
	return &packedTable{slots: make([]uint64, 1<<log), shift: 64 - log}
}

func (t *packedTable) home(k uint64) int { return int((k * 0x9E3779B97F4A7C15) >> t.shift) }

// find returns k's slot, or the free slot where it would go.
func (t *packedTable) find(k uint64) int {
	mask := len(t.slots) - 1
	for p := t.home(k); ; p = (p + 1) & mask {
		if s := t.slots[p]; s == 0 || s>>packedValueBits == k {
			return p
		}
	}
}

func (t *packedTable) get(k uint64) (int32, bool) {
	s := t.slots[t.find(k)]
	return int32(s & (packedMaxValue - 1)), s != 0
}

// set maps k to v (v < packedMaxValue).
func (t *packedTable) set(k uint64, v int32) {
	p := t.find(k)
	if t.slots[p] == 0 {
		if 2*(t.n+1) > len(t.slots) {
			t.grow()
			p = t.find(k)
		}
		t.n++
	}
	t.slots[p] = k<<packedValueBits | uint64(v)
}

func (t *packedTable) grow() {
	old := t.slots
	t.slots, t.shift = make([]uint64, 2*len(old)), t.shift-1
	for _, s := range old {
		if s != 0 {
			t.slots[t.find(s>>packedValueBits)] = s
		}
	}
}

func (t *packedTable) del(k uint64) {
	i := t.find(k)
	if t.slots[i] == 0 {
		return
	}
	t.n--
	mask := len(t.slots) - 1
	for j := i; ; {
		t.slots[i] = 0
		for {
			j = (j + 1) & mask
			if t.slots[j] == 0 {
				return
			}
			// The entry at j may fill the hole at i unless its home lies
			// cyclically in (i, j].
			h := t.home(t.slots[j] >> packedValueBits)
			if i <= j && (h <= i || h > j) || i > j && h <= i && h > j {
				break
			}
		}
		t.slots[i] = t.slots[j]
		i = j
	}
}

func (t *packedTable) each(fn func(k uint64, v int32)) {
	for _, s := range t.slots {
		if s != 0 {
			fn(s>>packedValueBits, int32(s&(packedMaxValue-1)))
		}
	}
}
