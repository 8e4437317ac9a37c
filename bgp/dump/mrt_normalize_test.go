package dump

import (
	"bytes"
	"testing"
)

func TestNormalizeAttrs(t *testing.T) {
	cases := []struct {
		name      string
		in, want  []byte
		wantFixed int
	}{
		{"BIRD's NEXT_HOP and LOCAL_PREF without the transitive flag",
			[]byte{0x40, 1, 1, 0, 0x00, 3, 4, 10, 0, 0, 11, 0x00, 5, 4, 0, 0, 0, 100},
			[]byte{0x40, 1, 1, 0, 0x40, 3, 4, 10, 0, 0, 11, 0x40, 5, 4, 0, 0, 0, 100}, 2},
		{"FRR's MP_REACH_NLRI in full UPDATE form",
			append([]byte{0x80, 14, 25, 0, 2, 1, 16}, append(bytes.Repeat([]byte{0xfd}, 16), 0, 64, 0xfd, 0, 0, 0, 0, 0, 0, 0)...)[:28],
			append([]byte{0x80, 14, 17, 16}, bytes.Repeat([]byte{0xfd}, 16)...), 1},
		{"RFC 6396 form is kept", append([]byte{0x80, 14, 17, 16}, bytes.Repeat([]byte{1}, 16)...),
			append([]byte{0x80, 14, 17, 16}, bytes.Repeat([]byte{1}, 16)...), 0},
		{"optional transitive communities are kept", []byte{0xc0, 8, 4, 1, 2, 3, 4}, []byte{0xc0, 8, 4, 1, 2, 3, 4}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, fixed, err := normalizeAttrs(tc.in)
			if err != nil || !bytes.Equal(got, tc.want) || fixed != tc.wantFixed {
				t.Errorf("got % x (fixed %d, err %v)\nwant % x (fixed %d)", got, fixed, err, tc.want, tc.wantFixed)
			}
		})
	}
	if _, _, err := normalizeAttrs([]byte{0x40, 3, 9, 1}); err == nil {
		t.Error("an attribute longer than its entry must be an error")
	}
}
