//go:build tools

// Package tools pins the gobgp/gobgpd commands so that hack/tools/gobgp.sh
// builds them with exactly the versions recorded in this module's go.sum.
package tools

import (
	_ "github.com/osrg/gobgp/v4/cmd/gobgp"
	_ "github.com/osrg/gobgp/v4/cmd/gobgpd"
)
