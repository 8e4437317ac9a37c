package cli

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/demo"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
)

// bmpAnnounce is a raw BMP stream: an Initiation, then a pre-policy Route
// Monitoring message in which peer 10.0.0.11 (AS 65010) announces 10.244.0.0/24
// with next hop 10.0.0.11.
func bmpAnnounce() []byte {
	msg := func(typ byte, body []byte) []byte {
		out := []byte{3, 0, 0, 0, 0, typ}
		binary.BigEndian.PutUint32(out[1:5], uint32(6+len(body)))
		return append(out, body...)
	}
	initTLV := []byte{0, 2, 0, 4, 't', 'o', 'r', '1'} // sysName
	peer := make([]byte, 42)
	copy(peer[22:26], []byte{10, 0, 0, 11})
	binary.BigEndian.PutUint32(peer[26:30], 65010)
	copy(peer[30:34], []byte{10, 0, 0, 11})
	attrs := []byte{0x40, 1, 1, 0, 0x40, 2, 6, 2, 1, 0, 0, 0xfd, 0xf2, 0x40, 3, 4, 10, 0, 0, 11}
	update := append([]byte(strings.Repeat("\xff", 16)), 0, 0, 2, 0, 0, 0, byte(len(attrs)))
	update = append(append(update, attrs...), 24, 10, 244, 0)
	binary.BigEndian.PutUint16(update[16:18], uint16(len(update)))
	return append(msg(4, initTLV), msg(0, append(peer, update...))...)
}

// bmpPipelineConfig is routewarden run's configuration with the BMP station
// on: the collector on 127.0.0.1 accepts dynamic neighbors from dynamic, and
// findings fire without hold-down.
func bmpPipelineConfig(t *testing.T, dynamic string) *config.Config {
	t.Helper()
	cfg, _, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cfg.BGP.ASN, cfg.BGP.RouterID, cfg.BGP.ListenPort = 65000, "192.0.2.1", int(loopback.FreePort(t))
	cfg.BGP.ListenAddresses = []string{"127.0.0.1"}
	cfg.BGP.DynamicNeighbors = []config.DynamicNeighborConfig{{Prefix: dynamic}}
	// Only dynamic neighbors: warm-up ends by its timeout, and nothing is validated before.
	cfg.Validation.HoldDown, cfg.Validation.WarmupTimeout = 0, 100*time.Millisecond
	cfg.HTTP.Listen = loopback.FreeAddr(t)
	cfg.BGP.BMP.Listen = loopback.FreeAddr(t)
	if problems := cfg.Validate(); len(problems) > 0 {
		t.Fatal(problems)
	}
	return cfg
}

// TestPipelineBMP: with bgp.bmp.listen set, routewarden run's pipeline accepts
// BMP, validates the routes it brings and lists the monitored peer.
func TestPipelineBMP(t *testing.T) {
	cfg := bmpPipelineConfig(t, "127.0.1.0/24")
	p, err := newPipeline(cfg, demo.NewCluster(demo.InitialCluster()), nil, zerolog.Nop(), newRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	conn, err := net.Dial("tcp", cfg.BGP.BMP.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(bmpAnnounce()); err != nil {
		t.Fatal(err)
	}
	// node1 (10.0.0.11) announces node4's CIDR.
	wait.For(t, "a foreign-cidr finding from the BMP route", 30*time.Second, func() error {
		for _, f := range p.loop.State().Findings {
			if f.Finding.Rule == "foreign-cidr" && f.Finding.Node == "node1" && f.Finding.Prefix.String() == "10.244.0.0/24" {
				return nil
			}
		}
		return fmt.Errorf("findings: %+v", p.loop.State().Findings)
	})
	resp, err := http.Get("http://" + p.http.Addr() + "/api/v1/peers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Peers []struct {
			Address string
			Routes  int
			BMP     *struct{ SysName string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	peers := page.Peers
	if len(peers) != 1 || peers[0].Address != "10.0.0.11" || peers[0].Routes != 1 || peers[0].BMP == nil || peers[0].BMP.SysName != "tor1" {
		t.Errorf("/api/v1/peers: %+v, want the monitored peer 10.0.0.11 with one route, sysName tor1", peers)
	}
}
