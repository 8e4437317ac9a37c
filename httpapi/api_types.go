package httpapi

import (
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/routewarden/routewarden/alert"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// Peer is a BGP peer as the API shows it (the collector's view of a session,
// or of a peer monitored over BMP).
type Peer struct {
	Address  netip.Addr
	ASN      uint32
	RouterID string
	State    string
	Dynamic  bool
	Since    time.Time
	Routes   int
	EndOfRIB []string
	// Families are the negotiated address families; End-of-RIB is awaited for each.
	Families    []string
	RestartTime time.Duration
	// StaleUntil is set while a restarting peer's paths are kept (graceful restart).
	StaleUntil time.Time
	// BMP is set for a peer monitored over BMP.
	BMP *PeerBMP
	// Received counts the paths a direct peer announced; Dropped those left
	// out of the RIB, by reason (bgp: routewarden_bgp_paths_dropped_total).
	Received int64
	Dropped  map[string]int64
}

// PeerBMP says how a monitored peer is seen: through which router, and which RIB.
type PeerBMP struct {
	Router  netip.Addr
	SysName string
	View    string
}

// Links are the URLs the answers point to; each may be empty.
type Links struct {
	// Cluster is the alerts' cluster label (silence filters match on it).
	Cluster string
	// RunbookBase is alerting.runbookBase (validator.RunbookURL).
	RunbookBase string
	// Alertmanager is the URL of the Alertmanager whose UI silences alerts.
	Alertmanager string
}

// The JSON the API answers with: camelCase names, addresses and prefixes as
// text, instants in apiTime, and lists [] when empty, never null.

type findingJSON struct {
	Rule        string `json:"rule"`
	Severity    string `json:"severity"`
	Prefix      string `json:"prefix"`
	Node        string `json:"node"`
	NextHop     string `json:"nextHop"`
	Peer        string `json:"peer"`
	Owner       string `json:"owner"`
	Message     string `json:"message"`
	Hint        string `json:"hint"`
	FirstSeen   string `json:"firstSeen"`
	Firing      bool   `json:"firing"`
	FiringSince string `json:"firingSince,omitempty"`
	Alertname   string `json:"alertname"`
	RunbookURL  string `json:"runbookUrl,omitempty"`
	SilenceURL  string `json:"silenceUrl,omitempty"`
}

type transitionJSON struct {
	Kind    string      `json:"kind"`
	At      string      `json:"at"`
	Finding findingJSON `json:"finding"`
}

type routeJSON struct {
	Prefix      string   `json:"prefix"`
	Node        string   `json:"node"`
	NextHop     string   `json:"nextHop"`
	Peer        string   `json:"peer"`
	PeerASN     uint32   `json:"peerAsn"`
	RouterID    string   `json:"routerId"`
	ASPath      []uint32 `json:"asPath"`
	Communities []string `json:"communities"`
	// LargeCommunities ("GLOBAL:LOCAL1:LOCAL2") and LocalPref (set when the path carries LOCAL_PREF).
	LargeCommunities []string `json:"largeCommunities"`
	LocalPref        *uint32  `json:"localPref,omitempty"`
	Stale            bool     `json:"stale"`
	PathID           uint32   `json:"pathId"`
	// View and Router are set for ?view=: the RIB of a BMP-monitored peer and its router.
	View   string `json:"view,omitempty"`
	Router string `json:"router,omitempty"`
}

// RouteView is a path of one view of a BMP-monitored peer (Sources.RouteViews).
type RouteView struct {
	Router netip.Addr
	View   string
	Route  validator.Route
}

// routeViews are the values of /api/v1/routes?view=.
var routeViews = []string{"pre-policy", "post-policy", "loc-rib"}

type peerJSON struct {
	Address            string       `json:"address"`
	Node               string       `json:"node"`
	ASN                uint32       `json:"asn"`
	RouterID           string       `json:"routerId"`
	State              string       `json:"state"`
	Dynamic            bool         `json:"dynamic"`
	Since              string       `json:"since"`
	Routes             int          `json:"routes"`
	EndOfRIB           []string     `json:"endOfRib"`
	Families           []string     `json:"families"`
	RestartTimeSeconds float64      `json:"restartTimeSeconds"`
	StaleUntil         string       `json:"staleUntil,omitempty"`
	BMP                *peerBMPJSON `json:"bmp,omitempty"`
	// Received and Accepted paths, and the Dropped ones by reason: what the
	// peer sent against what is judged.
	Received int64            `json:"received"`
	Accepted int64            `json:"accepted"`
	Dropped  map[string]int64 `json:"dropped"`
}

type peerBMPJSON struct {
	Router  string `json:"router"`
	SysName string `json:"sysName"`
	View    string `json:"view"`
}

type nodeJSON struct {
	Name      string   `json:"name"`
	Ready     bool     `json:"ready"`
	Managed   bool     `json:"managed"`
	Current   bool     `json:"current"`
	Addresses []string `json:"addresses"`
	Allocated []string `json:"allocated"`
	Announced []string `json:"announced"`
	// Peers are the BGP peers whose address is one of the node's.
	Peers []string `json:"peers"`
	// Judged: the last validation judged the node (not during warm-up, nor
	// while frozen); FrozenSince: since when its findings are frozen.
	Judged      bool   `json:"judged"`
	FrozenSince string `json:"frozenSince"`
}

func (s *Server) finding(t monitor.Tracked) findingJSON {
	f := t.Finding
	out := findingJSON{Rule: string(f.Rule), Severity: f.Severity.String(), Prefix: f.Prefix.String(), Node: f.Node,
		NextHop: addrText(f.NextHop), Peer: addrText(f.Peer), Owner: f.Owner, Message: f.Message, Hint: f.Hint,
		FirstSeen: timeText(t.FirstSeen), Firing: t.Firing, FiringSince: timeText(t.FiringSince),
		Alertname: alert.AlertName(f.Rule)}
	l := s.src.Links
	out.RunbookURL = validator.RunbookURL(l.RunbookBase, string(f.Rule))
	if l.Alertmanager != "" {
		out.SilenceURL = silenceURL(l.Alertmanager, l.Cluster, out)
	}
	return out
}

// silenceURL opens Alertmanager's new-silence form with matchers for the
// alert of this finding (its alertname, cluster, prefix and node labels).
func silenceURL(base, cluster string, f findingJSON) string {
	m := []string{`alertname="` + f.Alertname + `"`}
	for _, l := range [][2]string{{"cluster", cluster}, {"prefix", f.Prefix}, {"node", f.Node}} {
		if l[1] != "" {
			m = append(m, l[0]+`="`+l[1]+`"`)
		}
	}
	return strings.TrimSuffix(base, "/") + "/#/silences/new?filter=" + url.QueryEscape("{"+strings.Join(m, ",")+"}")
}

func routeOut(r validator.Route, node string) routeJSON {
	a := r.Attrs()
	out := routeJSON{Prefix: r.Prefix.String(), Node: node, NextHop: addrText(a.NextHop), Peer: addrText(a.Peer),
		PeerASN: a.PeerASN, RouterID: addrText(a.RouterID), ASPath: orEmpty(a.ASPath),
		Communities: orEmpty(a.Communities), LargeCommunities: orEmpty(a.LargeCommunities), Stale: r.Stale,
		PathID: r.PathID}
	if a.HasLocalPref {
		lp := a.LocalPref
		out.LocalPref = &lp
	}
	return out
}

func peerOut(p Peer, node string) peerJSON {
	out := peerJSON{Address: addrText(p.Address), Node: node, ASN: p.ASN, RouterID: p.RouterID, State: p.State,
		Dynamic: p.Dynamic, Since: timeText(p.Since), Routes: p.Routes, EndOfRIB: orEmpty(p.EndOfRIB),
		Families: orEmpty(p.Families), RestartTimeSeconds: p.RestartTime.Seconds(), StaleUntil: timeText(p.StaleUntil),
		Received: p.Received, Accepted: p.Received, Dropped: map[string]int64{}}
	for reason, n := range p.Dropped {
		out.Dropped[reason] = n
		out.Accepted -= n
	}
	if b := p.BMP; b != nil {
		out.BMP = &peerBMPJSON{Router: addrText(b.Router), SysName: b.SysName, View: b.View}
	}
	return out
}

func nodeOut(n validator.NodeStatus, peers []string) nodeJSON {
	return nodeJSON{Name: n.Name, Ready: n.Ready, Managed: n.Managed, Current: n.Current,
		Addresses: texts(n.Addresses), Allocated: texts(n.Allocated), Announced: texts(n.Announced),
		Peers: orEmpty(peers)}
}

func addrText(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// timeText writes an instant in apiTime, "" for none.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(apiTime)
}

func texts[T interface{ String() string }](xs []T) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.String())
	}
	return out
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
