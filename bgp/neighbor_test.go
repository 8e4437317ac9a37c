package bgp

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
)

// TestStaticNeighborWithMD5: a static neighbor with a TCP MD5 password gets a
// session; a speaker with the wrong password never does.
func TestStaticNeighborWithMD5(t *testing.T) {
	t.Parallel()
	if err := probeTCPMD5(); err != nil {
		t.Skipf("cannot test TCP MD5 here: %v (TestMD5WithoutKernelSupportIsAClearError covers this kernel)", err)
	}
	port := freePort(t)
	cfg := testConfig(port, false)
	cfg.Dynamic = nil
	cfg.Neighbors = []Neighbor{
		{Address: netip.MustParseAddr("127.0.1.31"), PeerSettings: PeerSettings{ASN: 65010, Password: "s3cret"}},
		{Address: netip.MustParseAddr("127.0.1.32"), PeerSettings: PeerSettings{ASN: 65010, Password: "s3cret"}},
	}
	c := startCollector(t, cfg, false)
	good := startSpeakerWith(t, speaker.Config{Local: netip.MustParseAddr("127.0.1.31"), ASN: 65010,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: port, CollectorASN: 65000, Password: "s3cret"})
	bad := startSpeakerWith(t, speaker.Config{Local: netip.MustParseAddr("127.0.1.32"), ASN: 65010,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: port, CollectorASN: 65000, Password: "wrong"})
	eventually(t, "the session with the right password", func() bool { return good.Established(context.Background()) })
	if err := good.Announce(context.Background(), netip.MustParsePrefix("10.244.31.0/24"), netip.MustParseAddr("10.0.0.31")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "its route", func() bool { return len(routesOf(c.Store(), "127.0.1.31")) == 1 })
	time.Sleep(3 * time.Second) // the wrong password's connection attempts are dropped by the kernel
	if bad.Established(context.Background()) {
		t.Fatal("a speaker with the wrong TCP MD5 password got a session")
	}
}

// TestMaxPrefix: a peer announcing past its limit is cut off and its routes dropped.
func TestMaxPrefix(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	cfg := testConfig(port, false)
	cfg.Dynamic[0].MaxPrefixes = 3
	c := startCollector(t, cfg, false)
	s := startSpeaker(t, "127.0.1.41", 65010, port, 65000, false)
	eventually(t, "the session", s.established)
	for i := range 5 {
		s.announce(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(i), 0}), 24).String(), "10.0.0.41")
	}
	eventually(t, "the peer to be cut off and its routes dropped", func() bool {
		for _, p := range c.Store().Peers() {
			if p.Address.String() == "127.0.1.41" && p.State != "established" && p.Routes == 0 {
				return true
			}
		}
		return false
	})
}

// TestMD5WithoutKernelSupportIsAClearError: on a kernel without TCP_MD5SIG a
// configured password is refused at startup instead of a session that never comes up.
func TestMD5WithoutKernelSupportIsAClearError(t *testing.T) {
	t.Parallel()
	if probeTCPMD5() == nil {
		t.Skip("this kernel supports TCP MD5 (TestStaticNeighborWithMD5 runs)")
	}
	cfg := testConfig(freePort(t), false)
	cfg.Dynamic[0].Password = "s3cret"
	_, err := NewCollector(cfg, zerolog.Nop(), prometheus.NewRegistry())
	if !errors.Is(err, ErrNoTCPMD5) || !strings.Contains(err.Error(), "dynamic range 127.0.1.0/24") {
		t.Fatalf("error %v", err)
	}
}

func TestStaticNeighborNoPassword(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	cfg := testConfig(port, false)
	cfg.Dynamic = nil
	cfg.Neighbors = []Neighbor{{Address: netip.MustParseAddr("127.0.1.33"), PeerSettings: PeerSettings{ASN: 65010}}}
	startCollector(t, cfg, false)
	s := startSpeakerWith(t, speaker.Config{Local: netip.MustParseAddr("127.0.1.33"), ASN: 65010,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: port, CollectorASN: 65000})
	eventually(t, "the session", func() bool { return s.Established(context.Background()) })
}

func startSpeakerWith(t testing.TB, cfg speaker.Config) *speaker.Speaker {
	t.Helper()
	s, err := speaker.Start(context.Background(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}
