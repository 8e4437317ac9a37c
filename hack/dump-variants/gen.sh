#!/usr/bin/env bash
# Regenerates bgp/dump/testdata/variants/: the outputs of FRR 8.4's route
# commands, in every variant routewarden reads, from a real ToR: two
# standalone bgpd (no zebra, nothing reaches the kernel) on 127.0.0.0/8, a
# "node" (AS 65010, 127.0.1.11) announcing a pod CIDR with communities, large
# communities and LOCAL_PREF-free eBGP attributes, and a "ToR" (AS 65000,
# 127.0.2.1) holding it plus its own routes (network statements: its rack
# subnet and loopback, peerId "(unspec)"), with soft-reconfiguration inbound
# so that received-routes answers and an inbound policy setting LOCAL_PREF
# (which the plain json prints as locPrf).
#
# BIRD 2 (127.0.3.1, AS 65000) takes the node's routes too, for `show route`
# with and without `all` (bird-*.txt).
#
# Usage: hack/dump-variants/gen.sh   (needs Debian's frr and bird2)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/bgp/dump/testdata/variants"
TMP="$(mktemp -d)"
PORT="${FRR_VARIANTS_PORT:-17917}"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

bgpd() { # name addr config
	mkdir -p "$TMP/$1"
	printf '%s\n' "$3" >"$TMP/$1/bgpd.conf"
	/usr/lib/frr/bgpd --no_zebra --skip_runas -f "$TMP/$1/bgpd.conf" -i "$TMP/$1/bgpd.pid" \
		--vty_socket "$TMP/$1" -P 0 -l "$2" -p "$PORT" --log "file:$TMP/$1/log" &
	pids+=($!)
}
vty() { local d=$1; shift; local a=(); for c in "$@"; do a+=(-c "$c"); done; vtysh --vty_socket "$TMP/$d" -d bgpd "${a[@]}"; }

bgpd node 127.0.1.11 "frr defaults traditional
hostname node1
router bgp 65010
 bgp router-id 10.0.0.11
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 127.0.2.1 remote-as 65000
 neighbor 127.0.2.1 port $PORT
 neighbor 127.0.2.1 update-source 127.0.1.11
 neighbor 127.0.3.1 remote-as 65000
 neighbor 127.0.3.1 port $((PORT + 1))
 neighbor 127.0.3.1 update-source 127.0.1.11
 address-family ipv4 unicast
  network 10.244.1.0/24 route-map pods
  neighbor 127.0.2.1 route-map nh out
  neighbor 127.0.3.1 route-map nh out
 exit-address-family
route-map pods permit 10
 set community 65010:100 65535:666
 set large-community 65010:1:2
route-map nh permit 10
 set ip next-hop 10.0.0.11"

bgpd tor 127.0.2.1 "frr defaults traditional
hostname tor1
router bgp 65000
 bgp router-id 192.0.2.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 127.0.1.11 remote-as 65010
 neighbor 127.0.1.11 port $PORT
 neighbor 127.0.1.11 update-source 127.0.2.1
 address-family ipv4 unicast
  network 10.0.0.0/24
  network 192.0.2.1/32
  neighbor 127.0.1.11 soft-reconfiguration inbound
  neighbor 127.0.1.11 route-map nh out
  neighbor 127.0.1.11 route-map lp in
 exit-address-family
route-map nh permit 10
 set ip next-hop 10.0.0.1
route-map lp permit 10
 set local-preference 200"

# BIRD: no kernel protocol; next hops resolve through an IGP table of its own.
mkdir -p "$TMP/bird"
cat >"$TMP/bird/bird.conf" <<BIRD
router id 192.0.2.3;
ipv4 table igp4;
protocol device {}
protocol static igp_static4 { ipv4 { table igp4; }; route 0.0.0.0/0 via "lo"; }
protocol bgp node1 {
	local 127.0.3.1 port $((PORT + 1)) as 65000; # BIRD listens on every address
	neighbor 127.0.1.11 port $PORT as 65010;
	multihop;
	ipv4 { import all; export none; gateway recursive; igp table igp4; };
}
BIRD
bird -f -c "$TMP/bird/bird.conf" -s "$TMP/bird/sock" -P "$TMP/bird/pid" &
pids+=($!)

for _ in $(seq 100); do
	if vty tor 'show bgp ipv4 unicast json' 2>/dev/null | grep -q '10.244.1.0/24'; then break; fi
	sleep 0.2
done
vty tor 'show bgp ipv4 unicast json' | grep -q '10.244.1.0/24' || { echo "the ToR got no route" >&2; cat "$TMP"/*/log >&2; exit 1; }
sleep 1 # let the node's table settle (its advertised routes)

for _ in $(seq 100); do
	birdc -s "$TMP/bird/sock" show route 2>/dev/null | grep -q '10.244.1.0/24' && break
	sleep 0.2
done
mkdir -p "$OUT"
birdc -s "$TMP/bird/sock" show route >"$OUT/bird-show-route.txt"
birdc -s "$TMP/bird/sock" show route all >"$OUT/bird-show-route-all.txt"
grep -q '10.244.1.0/24' "$OUT/bird-show-route.txt" || { echo "BIRD got no route" >&2; exit 1; }
vty tor 'show bgp ipv4 unicast json' >"$OUT/tor-unicast.json"
vty tor 'show bgp ipv4 unicast json detail' >"$OUT/tor-unicast-detail.json"
vty tor 'show bgp ipv4 unicast' >"$OUT/tor-unicast.txt"
# A dump cut short (a closed ssh session, a full disk): the detail form's first 1000 bytes.
head -c 1000 "$OUT/tor-unicast-detail.json" >"$OUT/tor-unicast-truncated.json"
vty tor 'show bgp ipv4 unicast neighbors 127.0.1.11 received-routes json' >"$OUT/tor-received-routes.json"
vty tor 'show bgp ipv4 unicast neighbors 127.0.1.11 routes json' >"$OUT/tor-neighbor-routes.json"
vty node 'show bgp ipv4 unicast neighbors 127.0.2.1 advertised-routes json' >"$OUT/node-advertised-routes.json"

# The ToR's policy then drops the node's pod CIDR: its table after the policy.
vty tor 'configure terminal' 'ip prefix-list pods seq 5 deny 10.244.1.0/24' \
	'ip prefix-list pods seq 10 permit 0.0.0.0/0 le 32' 'router bgp 65000' 'address-family ipv4 unicast' \
	'neighbor 127.0.1.11 prefix-list pods in' >/dev/null
vty tor 'clear bgp ipv4 unicast 127.0.1.11 soft in' >/dev/null
for _ in $(seq 100); do
	vty tor 'show bgp ipv4 unicast json' | grep -q '10.244.1.0/24' || break
	sleep 0.2
done
vty tor 'show bgp ipv4 unicast json' >"$OUT/tor-unicast-filtered.json"
grep -q '10.244.1.0/24' "$OUT/tor-unicast-filtered.json" && { echo "the ToR's policy dropped nothing" >&2; exit 1; }
vty tor 'show version' | head -1 >"$OUT/VERSION"
echo "wrote $OUT" >&2
