package cli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestDemoKeepShowsTheHealthyEnd: with 9479 taken, demo --keep serves on a free
// port it prints, and what it keeps is the story's healthy end: the three
// nodes' sessions up, their routes held, no finding.
func TestDemoKeepShowsTheHealthyEnd(t *testing.T) {
	if l, err := net.Listen("tcp", defaultDemoHTTP); err == nil { // else it is taken already
		defer l.Close()
	}
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr logbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"demo", "--pause", "200ms", "--keep"}, strings.NewReader(""), &stdout, &stderr)
	}()
	wait.True(t, "the story to end", 2*time.Minute, func() bool {
		select {
		case code := <-done:
			t.Fatalf("demo ended (exit %d) before Ctrl-C:\n%s\n%s", code, stdout.String(), stderr.String())
		default:
		}
		return strings.Contains(stdout.String(), "Still running")
	})
	m := regexp.MustCompile(`HTTP +http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(stdout.String())
	if m == nil || m[1] == defaultDemoHTTP || !strings.Contains(stdout.String(), defaultDemoHTTP+" is taken, so a free port") {
		t.Fatalf("no free port printed:\n%s", stdout.String())
	}
	get := func(path string, into any) {
		resp, err := http.Get("http://" + m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, body)
		}
	}
	time.Sleep(time.Second) // the kept state stays: speakers are not stopped after the story
	var findings struct {
		Findings []json.RawMessage `json:"findings"`
	}
	get("/api/v1/findings", &findings)
	var peers struct {
		Peers []struct {
			Address string `json:"address"`
			State   string `json:"state"`
			Routes  int    `json:"routes"`
		} `json:"peers"`
	}
	get("/api/v1/peers", &peers)
	up := 0
	for _, p := range peers.Peers {
		if p.Routes == 1 && strings.EqualFold(p.State, "established") {
			up++
		}
	}
	if len(findings.Findings) != 0 || up != 3 {
		t.Errorf("kept state: %d findings, %d sessions up with their route (want 0 and 3): %+v", len(findings.Findings), up, peers)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after Ctrl-C, want 0:\n%s", code, stderr.String())
	}
}
