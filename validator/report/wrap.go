package report

import "strings"

// Wrap returns text indented and wrapped at width (continuation lines two
// columns deeper), for help texts laid out as the reports are.
func Wrap(text, indent string, width int) string {
	var b strings.Builder
	wrap(&b, text, indent, width)
	return b.String()
}
