package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// routewarden's findings API, as the harness reads it.

// findingsPage is the part of GET /api/v1/findings the harness reads.
type findingsPage struct {
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
