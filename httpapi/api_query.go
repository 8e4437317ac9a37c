package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Every list endpoint pages: limit items an answer (default and maximum
// below), and the answer's continue token fetches the next page.
const (
	defaultLimit = 500
	maxLimit     = 5000
)

// param is a query parameter an endpoint accepts.
type param struct {
	name string
	// valid lists the accepted values; nil accepts any value check accepts.
	valid func() []string
	// check parses a free-form value; nil accepts any.
	check func(string) error
}

// query is a list endpoint's validated query.
type query struct {
	url.Values
	limit int
	cont  string
}

// apiError is an answer other than 200, with the message the client sees.
type apiError struct {
	status int
	msg    string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// pagingParams are accepted by every list endpoint.
var pagingParams = []param{{name: "limit"}, {name: "continue"}}

// parseQuery checks every parameter against the endpoint's, naming the valid
// names or values when one is wrong, and reads the page.
func parseQuery(path string, v url.Values, params []param) (query, *apiError) {
	all := append(slices.Clone(params), pagingParams...)
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.name
	}
	for k, vs := range v {
		i := slices.Index(names, k)
		if i < 0 {
			return query{}, badRequest("unknown parameter %q for %s; valid parameters: %s", k, path,
				strings.Join(names, ", "))
		}
		if len(vs) > 1 {
			return query{}, badRequest("parameter %q given %d times; give it once", k, len(vs))
		}
		p := all[i]
		if p.valid != nil && !slices.Contains(p.valid(), vs[0]) {
			return query{}, badRequest("%s: unknown value %q; valid values: %s", k, vs[0], strings.Join(p.valid(), ", "))
		}
		if p.check != nil {
			if err := p.check(vs[0]); err != nil {
				return query{}, badRequest("%s: %v", k, err)
			}
		}
	}
	q := query{Values: v, limit: defaultLimit, cont: v.Get("continue")}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return query{}, badRequest("limit: %q is not a whole number from 1 to %d", s, maxLimit)
		}
		q.limit = n
	}
	return q, nil
}

// The parameters' checks.
func checkPrefix(s string) error { _, err := netip.ParsePrefix(s); return err }
func checkAddr(s string) error   { _, err := netip.ParseAddr(s); return err }
func checkBool(s string) error {
	if s != "true" && s != "false" {
		return fmt.Errorf("%q is neither true nor false", s)
	}
	return nil
}

// cursor is what a continue token holds: where the next page starts, the key
// of the item before it, to find the place again if the list changed, and the
// query it pages (its filters and order), which the next page must repeat.
type cursor struct {
	Offset int    `json:"o"`
	Key    string `json:"k"`
	Query  string `json:"q,omitempty"`
}

// selection is the part of q that chooses and orders the items: every
// parameter but limit and continue, in a canonical order. A token carries it,
// so a next page asked with other filters is refused rather than cut from
// another list at the first list's offset.
func (q query) selection() string {
	v := url.Values{}
	for k, vs := range q.Values {
		if k != "limit" && k != "continue" {
			v[k] = vs
		}
	}
	return v.Encode()
}

// page cuts one page out of items (in a stable order) and returns the token of
// the next, "" on the last page.
func page[T any](items []T, q query, key func(T) string) ([]T, string, *apiError) {
	start := 0
	if q.cont != "" {
		var c cursor
		b, err := base64.RawURLEncoding.DecodeString(q.cont)
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil || c.Offset < 1 {
			return nil, "", badRequest("continue: not a token this API gave (take it from the previous answer's continue)")
		}
		if c.Query != q.selection() {
			return nil, "", badRequest("continue: the token pages %s, not %s; repeat the first page's filters and "+
				"order with it, or start again without continue", describe(c.Query), describe(q.selection()))
		}
		switch {
		case c.Offset <= len(items) && key(items[c.Offset-1]) == c.Key:
			start = c.Offset
		default:
			i := slices.IndexFunc(items, func(t T) bool { return key(t) == c.Key })
			if i < 0 {
				return nil, "", &apiError{status: http.StatusGone, msg: "continue: the item this page continued " +
					"from is gone (the list changed); start again without continue"}
			}
			start = i + 1
		}
	}
	end := min(start+q.limit, len(items))
	out := items[start:end]
	if end == len(items) {
		return out, "", nil
	}
	b, _ := json.Marshal(cursor{Offset: end, Key: key(items[end-1]), Query: q.selection()})
	return out, base64.RawURLEncoding.EncodeToString(b), nil
}

// describe names a selection in an error message.
func describe(selection string) string {
	if selection == "" {
		return "the unfiltered list"
	}
	return "?" + selection
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.msg})
}
