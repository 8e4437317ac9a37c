//go:build tools

// Package tools pins golang.org/x/vulndb/cmd/indexdb, which
// hack/tools/govulncheck.sh builds to index the OSV files of the same module
// version into a govulncheck database.
package tools

import _ "golang.org/x/vulndb/cmd/indexdb"
