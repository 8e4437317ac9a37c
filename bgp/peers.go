package bgp

import (
	api "github.com/osrg/gobgp/v4/api"
)

var unicastFamilies = []*api.Family{
	{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
	{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST},
}

// afiSafis enables IPv4 and IPv6 unicast with ADD-PATH receive, graceful
// restart and the prefix limit.
func (c *Collector) afiSafis(s PeerSettings) []*api.AfiSafi {
	out := make([]*api.AfiSafi, 0, len(unicastFamilies))
	for _, f := range unicastFamilies {
		a := &api.AfiSafi{
			Config:            &api.AfiSafiConfig{Family: f, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: c.cfg.GracefulRestart}},
			AddPaths:          &api.AddPaths{Config: &api.AddPathsConfig{Receive: true}},
		}
		if s.MaxPrefixes > 0 {
			a.PrefixLimits = &api.PrefixLimit{Family: f, MaxPrefixes: s.MaxPrefixes}
		}
		out = append(out, a)
	}
	return out
}

func (c *Collector) gracefulRestart() *api.GracefulRestart {
	if !c.cfg.GracefulRestart {
		return nil
	}
	return &api.GracefulRestart{Enabled: true, HelperOnly: true, RestartTime: uint32(c.cfg.GraceWindow.Seconds())}
}

func timers(s PeerSettings) *api.Timers {
	if s.HoldTime == 0 {
		return nil
	}
	hold := uint64(s.HoldTime.Seconds())
	return &api.Timers{Config: &api.TimersConfig{HoldTime: hold, KeepaliveInterval: max(hold/3, 1)}}
}

// peer builds a static passive neighbor. Multihop is allowed: the collector
// often sits a hop away from the nodes, beside the ToR.
func (c *Collector) peer(n Neighbor) *api.Peer {
	return &api.Peer{
		Conf:            &api.PeerConf{NeighborAddress: n.Address.String(), PeerAsn: n.ASN, AuthPassword: n.Password},
		Transport:       &api.Transport{PassiveMode: true},
		EbgpMultihop:    &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		Timers:          timers(n.PeerSettings),
		GracefulRestart: c.gracefulRestart(),
		AfiSafis:        c.afiSafis(n.PeerSettings),
	}
}

// peerGroup builds the peer group of a dynamic range; ASN 0 accepts any.
func (c *Collector) peerGroup(name string, d DynamicRange) *api.PeerGroup {
	return &api.PeerGroup{
		Conf:            &api.PeerGroupConf{PeerGroupName: name, PeerAsn: d.ASN, AuthPassword: d.Password},
		Transport:       &api.Transport{PassiveMode: true},
		EbgpMultihop:    &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		Timers:          timers(d.PeerSettings),
		GracefulRestart: c.gracefulRestart(),
		AfiSafis:        c.afiSafis(d.PeerSettings),
	}
}
