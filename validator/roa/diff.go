package roa

// Diff returns what changes from the sorted set old to the sorted set cur:
// the ROAs withdrawn and those announced, both sorted.
func Diff(old, cur []ROA) (withdrawn, announced []ROA) {
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = Compare(old[i], cur[j])
		}
		switch {
		case c < 0:
			withdrawn, i = append(withdrawn, old[i]), i+1
		case c > 0:
			announced, j = append(announced, cur[j]), j+1
		default:
			i, j = i+1, j+1
		}
	}
	return withdrawn, announced
}
