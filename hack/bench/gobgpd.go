package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// gobgpdConfig is the bare GoBGP collector: the session settings routewarden
// uses (passive, iBGP AS 65000, graceful-restart helper with 120 s, ADD-PATH
// receive, IPv4 and IPv6 unicast) and a global export policy that rejects
// everything; import is GoBGP's default (accept: global RIB, best path).
func gobgpdConfig(port int, peer string) string {
	fam := func(name string) string {
		return fmt.Sprintf(`
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = %q
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
    [neighbors.afi-safis.add-paths.config]
      receive = true
`, name)
	}
	return fmt.Sprintf(`[global.config]
  as = 65000
  router-id = "192.0.2.1"
  port = %d
  local-address-list = ["127.0.0.1"]
[global.apply-policy.config]
  default-export-policy = "reject-route"

[[neighbors]]
  [neighbors.config]
    neighbor-address = %q
    peer-as = 65000
  [neighbors.transport.config]
    passive-mode = true
  [neighbors.ebgp-multihop.config]
    enabled = true
    multihop-ttl = 255
  [neighbors.graceful-restart.config]
    enabled = true
    helper-only = true
    restart-time = 120
%s%s`, port, peer, fam("ipv4-unicast"), fam("ipv6-unicast"))
}

type gobgpdRun struct {
	*proc
	bmp    *discardBMP // nil without a BMP server
	conn   *grpc.ClientConn
	client api.GoBgpServiceClient
	eor    chan struct{} // closed at the first End-of-RIB
}

func startGobgpd(ctx context.Context, bin, dir string, port int, peer string, withBMP bool) (_ *gobgpdRun, err error) {
	conf := filepath.Join(dir, "gobgpd.toml")
	config := gobgpdConfig(port, peer)
	var bmp *discardBMP
	if withBMP {
		var bmpPort int
		if bmp, bmpPort, err = startDiscardBMP(); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				bmp.stop()
			}
		}()
		config += bmpServerConfig(bmpPort)
	}
	if err := os.WriteFile(conf, []byte(config), 0o644); err != nil {
		return nil, err
	}
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	apiAddr := fmt.Sprintf("127.0.0.1:%d", apiPort)
	p, err := startProc("gobgpd", filepath.Join(dir, "gobgpd.log"), exec.Command(bin, "-f", conf, "-l", "warn",
		"--api-hosts", apiAddr, "--pprof-disable", "--metrics-path", ""))
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(apiAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		p.stop()
		return nil, err
	}
	g := &gobgpdRun{proc: p, bmp: bmp, conn: conn, client: api.NewGoBgpServiceClient(conn)}
	err = waitFor(20*time.Second, 50*time.Millisecond, "waiting for gobgpd's neighbor", func() (bool, error) {
		if err := p.alive(); err != nil {
			return false, err
		}
		_, err := g.held(ctx)
		return err == nil, nil
	})
	if err != nil {
		g.stop()
		return nil, err
	}
	if err := g.watchEOR(ctx); err != nil {
		g.stop()
		return nil, err
	}
	return g, nil
}

// watchEOR closes g.eor when gobgpd has processed the sender's first
// End-of-RIB. gobgpd handles a session's messages in order, so by then every
// UPDATE sent before it is in the Adj-RIB-In. Polling ListPeer instead would
// slow gobgpd down: its Received count walks the whole table on every call.
func (g *gobgpdRun) watchEOR(ctx context.Context) error {
	g.eor = make(chan struct{})
	st, err := g.client.WatchEvent(ctx, &api.WatchEventRequest{Table: &api.WatchEventRequest_Table{
		Filters: []*api.WatchEventRequest_Table_Filter{{Type: api.WatchEventRequest_Table_Filter_TYPE_EOR}}}})
	if err != nil {
		return fmt.Errorf("watching gobgpd's End-of-RIB: %w", err)
	}
	go func() {
		for {
			r, err := st.Recv()
			if err != nil {
				return
			}
			if len(r.GetTable().GetPaths()) > 0 {
				close(g.eor)
				return
			}
		}
	}()
	return nil
}

// heldAfterEOR is held, but answers 0 without asking gobgpd until End-of-RIB.
func (g *gobgpdRun) heldAfterEOR(ctx context.Context) (int, error) {
	select {
	case <-g.eor:
		return g.held(ctx)
	default:
		return 0, nil
	}
}

// held is the number of paths in the neighbor's Adj-RIB-In, both families.
func (g *gobgpdRun) held(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := g.client.ListPeer(ctx, &api.ListPeerRequest{})
	if err != nil {
		return 0, err
	}
	n, peers := 0, 0
	for {
		r, err := st.Recv()
		if err != nil {
			break
		}
		peers++
		for _, a := range r.Peer.GetAfiSafis() {
			n += int(a.GetState().GetReceived())
		}
	}
	if peers == 0 {
		return 0, fmt.Errorf("no neighbor yet")
	}
	return n, nil
}

func (g *gobgpdRun) stop() {
	g.conn.Close()
	g.proc.stop()
	if g.bmp != nil {
		g.bmp.stop()
	}
}
