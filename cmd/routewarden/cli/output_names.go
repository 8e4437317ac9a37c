package cli

// outputAliases are former -o names, still accepted: validate-config and
// version called the human-readable output "text", check "table"; every
// command now says table.
var outputAliases = map[string]string{"text": "table"}

// outputName is today's name of an -o value.
func outputName(v string) string {
	if n, ok := outputAliases[v]; ok {
		return n
	}
	return v
}
