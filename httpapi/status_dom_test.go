package httpapi

import (
	"html"
	"regexp"
	"strings"
)

// dom is the page as Chromium serialized it (--dump-dom). The page's markup is
// regular (no nesting of like elements), so a few expressions read it.
type dom struct {
	raw  string
	body map[string]string // data-* attributes of <body>
}

// row is one <tr> of a table body: its data-* attributes (without "data-"),
// whether it is hidden, its text, the status of every prefix chip in it, and its markup.
type row struct {
	attr   map[string]string
	hidden bool // the filters hide it
	text   string
	chips  map[string]string
	raw    string
}

var (
	reAttr  = regexp.MustCompile(`\s([a-z-]+)(?:="([^"]*)")?`)
	reTag   = regexp.MustCompile(`<[^>]*>`)
	reSpace = regexp.MustCompile(`\s+`)
	reChip  = regexp.MustCompile(`<span class="chip [a-z]+" data-status="([a-z]+)"[^>]*>([^<]*)</span>`)
	reBody  = regexp.MustCompile(`<body([^>]*)>`)
)

func parseDOM(raw string) *dom {
	d := &dom{raw: raw, body: map[string]string{}}
	if m := reBody.FindStringSubmatch(raw); m != nil {
		d.body = dataAttrs(m[1])
	}
	return d
}

func dataAttrs(tag string) map[string]string {
	out := map[string]string{}
	for _, m := range reAttr.FindAllStringSubmatch(tag, -1) {
		if k, ok := strings.CutPrefix(m[1], "data-"); ok {
			out[k] = html.UnescapeString(m[2])
		}
	}
	return out
}

func textOf(s string) string {
	return strings.TrimSpace(reSpace.ReplaceAllString(html.UnescapeString(reTag.ReplaceAllString(s, " ")), " "))
}

// element returns the opening tag and the inner markup of the element with id.
func (d *dom) element(id string) (open, inner string) {
	i := strings.Index(d.raw, ` id="`+id+`"`)
	if i < 0 {
		return "", ""
	}
	start := strings.LastIndex(d.raw[:i], "<")
	name := strings.Fields(d.raw[start+1 : i+1])[0]
	end := strings.Index(d.raw[i:], ">") + i + 1
	n := strings.Index(d.raw[end:], "</"+name+">")
	if n < 0 {
		return d.raw[start:end], ""
	}
	return d.raw[start:end], d.raw[end : end+n]
}

func (d *dom) text(id string) string {
	_, inner := d.element(id)
	return textOf(inner)
}

func (d *dom) hidden(id string) bool {
	open, _ := d.element(id)
	for _, m := range reAttr.FindAllStringSubmatch(open, -1) {
		if m[1] == "hidden" {
			return true
		}
	}
	return false
}

// rows are the body rows of the table with id.
func (d *dom) rows(table string) []row {
	_, inner := d.element(table)
	_, tbody, _ := strings.Cut(inner, "<tbody>")
	tbody, _, _ = strings.Cut(tbody, "</tbody>")
	var out []row
	for _, tr := range strings.Split(tbody, "<tr")[1:] {
		tr, _, _ = strings.Cut(tr, "</tr>")
		open, content, _ := strings.Cut(tr, ">")
		r := row{attr: dataAttrs(open), hidden: regexp.MustCompile(`\shidden(=""|\s|$)`).MatchString(open),
			text: textOf(content), chips: map[string]string{}, raw: content}
		for _, m := range reChip.FindAllStringSubmatch(content, -1) {
			r.chips[html.UnescapeString(m[2])] = m[1]
		}
		out = append(out, r)
	}
	return out
}

// row is the row of table whose data-key is value.
func (d *dom) row(table, key, value string) (row, bool) {
	for _, r := range d.rows(table) {
		if r.attr[key] == value {
			return r, true
		}
	}
	return row{}, false
}
