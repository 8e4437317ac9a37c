// Package ingest is what the two processes of the ingest bench share: the
// workload a trial announces, and the lines routewarden's collector process
// (hack/bench/rwcollector) prints for the harness (hack/bench).
package ingest

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event is one line the routewarden collector process prints for the
// harness: "ready", "held" (the store holds every route) or "verdict" (the
// first validation covering every route).
type Event struct {
	Ev          string  `json:"ev"`
	NS          int64   `json:"ns"`
	Routes      int     `json:"routes"`
	Findings    int     `json:"findings,omitempty"`
	Validations int     `json:"validations,omitempty"`
	ValidateSec float64 `json:"validateSec,omitempty"`
}

// Emit prints e on stdout, stamped with the time now unless it has a time.
func Emit(e Event) {
	if e.NS == 0 {
		e.NS = time.Now().UnixNano()
	}
	b, _ := json.Marshal(e)
	fmt.Println(string(b))
}
