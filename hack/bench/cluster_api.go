package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// routewarden's findings API, as the harness reads it.

// findingsPage is the part of GET /api/v1/findings the harness reads.
type findingsPage struct {
	At        string `json:"at"`
	WarmingUp bool   `json:"warmingUp"`
	Inventory struct {
		Synced    bool `json:"synced"`
		Available bool `json:"available"`
	} `json:"inventory"`
	Total   int `json:"total"`
	Summary struct {
		Routes int            `json:"routes"`
		ByRule map[string]int `json:"byRule"`
	} `json:"summary"`
}

func getFindings(api string, q url.Values) (findingsPage, error) {
	var f findingsPage
	q.Set("limit", "1")
	resp, err := http.Get(api + "/api/v1/findings?" + q.Encode())
	if err != nil {
		return f, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return f, fmt.Errorf("GET /api/v1/findings?%s: %s", q.Encode(), resp.Status)
	}
	return f, json.NewDecoder(resp.Body).Decode(&f)
}

// steadyVerdict records the routes in routewarden's verdict and its findings.
func steadyVerdict(api string, p *ClusterProc) error {
	f, err := getFindings(api, url.Values{})
	if err != nil {
		return fmt.Errorf("reading the findings at steady state: %w", err)
	}
	p.PathsHeld, p.Findings, p.ByRule = f.Summary.Routes, &f.Total, f.Summary.ByRule
	return nil
}

// staleFiring reports whether stale-route fires for prefix.
func staleFiring(api, prefix string) bool {
	f, err := getFindings(api, url.Values{"rule": {"stale-route"}, "firing": {"true"}, "prefix": {prefix}})
	return err == nil && f.Total > 0
}

// validationStats are routewarden's validations so far and the seconds they took.
func validationStats(api string) (n, sec float64) {
	resp, err := http.Get(api + "/metrics")
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		f, _ := strconv.ParseFloat(v, 64)
		switch {
		case !ok:
		case name == "routewarden_validations_total":
			n = f
		case name == "routewarden_validation_duration_seconds_sum":
			sec = f
		}
	}
	return n, sec
}
