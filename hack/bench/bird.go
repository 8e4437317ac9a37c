package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// birdConfig is BIRD 2 as a collector with the same session settings: no
// kernel (or device) protocol, so nothing touches the FIB; next hops resolve
// recursively in empty IGP tables, so every route is kept (unreachable), as
// hack/routegen and bgp/interop_test.go run it.
func birdConfig(dir string, port int, peer string) string {
	return fmt.Sprintf(`log "%s" { warning, error, fatal };
router id 192.0.2.1;
ipv4 table igp4;
ipv6 table igp6;
protocol bgp sender {
	local 127.0.0.1 port %d as 65000;
	neighbor %s as 65000;
	strict bind on;
	passive on;
	graceful restart on;
	graceful restart time 120;
	ipv4 { import all; export none; gateway recursive; igp table igp4; add paths rx; };
	ipv6 { import all; export none; gateway recursive; igp table igp6; add paths rx; };
}
`, filepath.Join(dir, "bird.log"), port, peer)
}

type birdRun struct {
	*proc
	birdc, sock string
}

func startBIRD(ctx context.Context, bird, birdc, dir string, port int, peer string) (*birdRun, error) {
	conf := filepath.Join(dir, "bird.conf")
	if err := os.WriteFile(conf, []byte(birdConfig(dir, port, peer)), 0o644); err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "bird.ctl")
	p, err := startProc("bird", filepath.Join(dir, "bird.out"), exec.Command(bird, "-f", "-c", conf, "-s", sock,
		"-P", filepath.Join(dir, "bird.pid")))
	if err != nil {
		return nil, err
	}
	b := &birdRun{proc: p, birdc: birdc, sock: sock}
	err = waitFor(20*time.Second, 50*time.Millisecond, "waiting for bird", func() (bool, error) {
		if err := p.alive(); err != nil {
			return false, err
		}
		_, err := b.held(ctx)
		return err == nil, nil
	})
	if err != nil {
		p.stop()
		return nil, err
	}
	return b, nil
}

var birdImported = regexp.MustCompile(`Routes:\s+(\d+) imported`)

// held sums the routes imported by both channels of the sender protocol.
func (b *birdRun) held(ctx context.Context) (int, error) {
	out, err := exec.CommandContext(ctx, b.birdc, "-s", b.sock, "show", "protocols", "all", "sender").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("birdc: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "sender") {
		return 0, fmt.Errorf("birdc: %s", out)
	}
	n := 0
	for _, m := range birdImported.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.Atoi(m[1])
		n += v
	}
	return n, nil
}
