package testdoc

import "testing"

func TestReplaceArray(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		path      []string
		want      string
	}{
		{"one a line, as before", "{\n  \"a\": {\n    \"enum\": [\n      \"x\"\n    ],\n    \"n\": [1]\n  }\n}\n",
			[]string{"a", "enum"}, "{\n  \"a\": {\n    \"enum\": [\n      \"p\",\n      \"q\"\n    ],\n    \"n\": [1]\n  }\n}\n"},
		{"inline stays inline", `{"b": [{"c": 1}], "enum": ["x", "y"]}`, []string{"enum"}, `{"b": [{"c": 1}], "enum": ["p", "q"]}`},
		{"the right one of two", `{"x": {"enum": ["x"]}, "y": {"enum": ["y"]}}`, []string{"y", "enum"},
			`{"x": {"enum": ["x"]}, "y": {"enum": ["p", "q"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReplaceArray([]byte(tc.doc), tc.path, []string{"p", "q"})
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
	if _, err := ReplaceArray([]byte(`{"a": "x"}`), []string{"a"}, nil); err == nil {
		t.Error("no array: no error")
	}
}

func TestReplaceBetween(t *testing.T) {
	doc := "a\n<!-- t:start -->\nold\n<!-- t:end -->\nb\n"
	got, err := ReplaceBetween([]byte(doc), "t", "new\n")
	if want := "a\n<!-- t:start -->\nnew\n<!-- t:end -->\nb\n"; err != nil || string(got) != want {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ReplaceBetween([]byte("no markers"), "t", ""); err == nil {
		t.Error("no markers: no error")
	}
}
