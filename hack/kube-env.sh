#!/usr/bin/env bash
# A real, minimal Kubernetes control plane for tests: etcd + kube-apiserver on
# 127.0.0.1 only (no controller-manager, scheduler or kubelet).
#
# Usage:
#   hack/kube-env.sh start DIR          start (or find running) etcd + apiserver, state in DIR
#   hack/kube-env.sh stop DIR           stop the processes recorded in DIR (data is kept)
#   hack/kube-env.sh run DIR -- CMD...  start, run CMD with KUBECONFIG set, stop (even on failure)
#   hack/kube-env.sh env DIR            print shell assignments (KUBECONFIG, KUBECTL, ...)
#
# DIR gets:
#   kubeconfig          admin kubeconfig (client certificate, group system:masters)
#   env                 KUBECONFIG, KUBECACHEDIR, KUBECTL, ports, pids, startup time (shell syntax)
#   pki/                CA, apiserver serving cert, admin client cert, service-account key pair
#   etcd/               etcd data;  etcd.log, kube-apiserver.log
#
# The apiserver runs with --authorization-mode=RBAC, client-certificate
# authentication (CA in DIR/pki/ca.crt; any cert it signs is a user: CN = name,
# O = groups), service-account tokens signed with DIR/pki/sa.key, and
# --service-cluster-ip-range=10.96.0.0/16 (a configuration value only; nothing
# is routed). Ports are random free ports in 20000-32767 on 127.0.0.1.
#
# Binaries come from hack/tools/kube.sh (built on first use), unless
# KUBE_APISERVER, KUBECTL and ETCD all name executables. Needs openssl.
# Environment: KUBE_ENV_START_TIMEOUT (seconds, default 120);
# KUBE_ENV_APISERVER_ARGS: extra kube-apiserver flags (split on whitespace).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
	echo "kube-env.sh: $*" >&2
	exit 1
}
log() { echo "kube-env.sh: $*" >&2; }

usage() {
	sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# ---------------------------------------------------------------------------

load_bins() {
	local envout
	# Already resolved by the caller (e.g. gen-cluster-fixtures.sh)?
	if [[ -x ${KUBE_APISERVER:-} && -x ${KUBECTL:-} && -x ${ETCD:-} ]]; then
		return 0
	fi
	envout=$("$repo/hack/tools/kube.sh" --env) || die "building the control plane binaries failed"
	eval "$envout"
}

alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

pidof_file() { if [[ -f $1 ]]; then cat "$1"; fi; }

# Local TCP ports in use (any state), from /proc/net/tcp{,6}.
used_ports() {
	awk 'FNR > 1 { split($2, a, ":"); print strtonum("0x" a[2]) }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -un
}

# free_ports N: N distinct random ports that nothing uses right now.
free_ports() {
	local n=$1 used p out=()
	used=" $(used_ports | tr '\n' ' ') "
	while ((${#out[@]} < n)); do
		p=$((20000 + RANDOM % 12768))
		[[ $used == *" $p "* ]] && continue
		[[ " ${out[*]} " == *" $p "* ]] && continue
		out+=("$p")
	done
	echo "${out[@]}"
}

gen_pki() {
	local pki=$1
	mkdir -p "$pki"
	[[ -f $pki/ca.crt && -f $pki/apiserver.crt && -f $pki/admin.crt && -f $pki/sa.key ]] && return 0
	command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
	log "generating certificates in $pki"
	(
		cd "$pki"
		umask 077
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout ca.key -out ca.crt -days 3650 -subj "/CN=routewarden-test-ca" 2>/dev/null

		printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=critical,digitalSignature,keyEncipherment' \
			'extendedKeyUsage=serverAuth' \
			'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.96.0.1' \
			>apiserver.ext
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
		openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-days 3650 -extfile apiserver.ext -out apiserver.crt 2>/dev/null

		printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=critical,digitalSignature,keyEncipherment' \
			'extendedKeyUsage=clientAuth' >client.ext
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout admin.key -out admin.csr -subj "/O=system:masters/CN=routewarden-admin" 2>/dev/null
		openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-days 3650 -extfile client.ext -out admin.crt 2>/dev/null

		openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
		openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
		rm -f ./*.csr
	) || die "certificate generation failed"
}

write_kubeconfig() {
	local dir=$1 port=$2 kc=$1/kubeconfig.tmp
	rm -f "$kc"
	"$KUBECTL" config --kubeconfig="$kc" set-cluster routewarden-test \
		--server="https://127.0.0.1:$port" --certificate-authority="$dir/pki/ca.crt" --embed-certs >/dev/null
	"$KUBECTL" config --kubeconfig="$kc" set-credentials routewarden-admin \
		--client-certificate="$dir/pki/admin.crt" --client-key="$dir/pki/admin.key" --embed-certs >/dev/null
	"$KUBECTL" config --kubeconfig="$kc" set-context routewarden-test \
		--cluster=routewarden-test --user=routewarden-admin >/dev/null
	"$KUBECTL" config --kubeconfig="$kc" use-context routewarden-test >/dev/null
	mv -f "$kc" "$dir/kubeconfig"
}

# start_etcd DIR CLIENTPORT PEERPORT
start_etcd() {
	local dir=$1 cport=$2 pport=$3
	setsid "$ETCD" \
		--name=routewarden \
		--data-dir="$dir/etcd" \
		--listen-client-urls="http://127.0.0.1:$cport" \
		--advertise-client-urls="http://127.0.0.1:$cport" \
		--listen-peer-urls="http://127.0.0.1:$pport" \
		--initial-advertise-peer-urls="http://127.0.0.1:$pport" \
		--initial-cluster="routewarden=http://127.0.0.1:$pport" \
		--initial-cluster-state=new \
		--unsafe-no-fsync \
		--log-level=warn \
		</dev/null >"$dir/etcd.log" 2>&1 &
	echo $! >"$dir/etcd.pid"
}

# start_apiserver DIR ETCDPORT PORT
# shellcheck disable=SC2086 # KUBE_ENV_APISERVER_ARGS is split on purpose
start_apiserver() {
	local dir=$1 eport=$2 port=$3 pki=$1/pki
	setsid "$KUBE_APISERVER" \
		--etcd-servers="http://127.0.0.1:$eport" \
		--bind-address=127.0.0.1 \
		--advertise-address=127.0.0.1 \
		--secure-port="$port" \
		--tls-cert-file="$pki/apiserver.crt" \
		--tls-private-key-file="$pki/apiserver.key" \
		--client-ca-file="$pki/ca.crt" \
		--authorization-mode=RBAC \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-account-key-file="$pki/sa.pub" \
		--service-account-signing-key-file="$pki/sa.key" \
		--service-cluster-ip-range=10.96.0.0/16 \
		--endpoint-reconciler-type=none \
		--allow-privileged=true \
		--profiling=false \
		--v=1 \
		${KUBE_ENV_APISERVER_ARGS:-} \
		</dev/null >"$dir/kube-apiserver.log" 2>&1 &
	echo $! >"$dir/kube-apiserver.pid"
}

# wait_listen PID PORT DEADLINE: until PID listens on 127.0.0.1:PORT (false if PID exits).
wait_listen() {
	local pid=$1 port=$2 deadline=$3 want
	want=$(printf '0100007F:%04X' "$port")
	while ((SECONDS < deadline)); do
		alive "$pid" || return 1
		awk -v w="$want" '$2 == w && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp && return 0
		sleep 0.1
	done
	return 1
}

wait_ready() {
	local dir=$1 pid=$2 deadline=$3
	while ((SECONDS < deadline)); do
		alive "$pid" || return 1
		if [[ $("$KUBECTL" --kubeconfig="$dir/kubeconfig" --request-timeout=5s get --raw /readyz 2>/dev/null) == ok ]]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

stop_pidfile() {
	local f=$1 name=$2 pid i
	pid=$(pidof_file "$f")
	if alive "$pid"; then
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			log "$name ($pid) did not stop in 10s; killing"
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$f"
}

cmd_stop() {
	local dir=$1
	[[ -d $dir ]] || return 0
	stop_pidfile "$dir/kube-apiserver.pid" kube-apiserver
	stop_pidfile "$dir/etcd.pid" etcd
}

cmd_start() {
	local dir=$1
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	load_bins

	if alive "$(pidof_file "$dir/kube-apiserver.pid")" && alive "$(pidof_file "$dir/etcd.pid")" &&
		[[ $("$KUBECTL" --kubeconfig="$dir/kubeconfig" --request-timeout=5s get --raw /readyz 2>/dev/null) == ok ]]; then
		log "already running in $dir"
		return 0
	fi
	cmd_stop "$dir"

	gen_pki "$dir/pki"
	local timeout=${KUBE_ENV_START_TIMEOUT:-120} t0=$SECONDS try eport pport aport
	local deadline=$((SECONDS + timeout)) t_etcd
	for try in 1 2 3; do
		# A restart in the same DIR keeps its ports, so clients that are still
		# running (after an outage) find the API server where it was.
		if [[ $try == 1 && -f $dir/ports ]]; then
			read -r eport pport aport <"$dir/ports"
		else
			read -r eport pport aport <<<"$(free_ports 3)"
		fi
		echo "$eport $pport $aport" >"$dir/ports"
		start_etcd "$dir" "$eport" "$pport"
		if ! wait_listen "$(cat "$dir/etcd.pid")" "$eport" "$deadline"; then
			stop_pidfile "$dir/etcd.pid" etcd
			log "etcd did not start (try $try); last log lines:"
			tail -n 5 "$dir/etcd.log" >&2
			continue
		fi
		t_etcd=$((SECONDS - t0))
		write_kubeconfig "$dir" "$aport"
		start_apiserver "$dir" "$eport" "$aport"
		if wait_ready "$dir" "$(cat "$dir/kube-apiserver.pid")" "$deadline"; then
			local took=$((SECONDS - t0))
			{
				printf 'KUBECONFIG=%q\n' "$dir/kubeconfig"
				printf 'KUBECTL=%q\nKUBE_APISERVER=%q\nETCD=%q\n' "$KUBECTL" "$KUBE_APISERVER" "$ETCD"
				printf 'KUBE_ENV_DIR=%q\n' "$dir"
				printf 'KUBECACHEDIR=%q\n' "$dir/kubectl-cache"
				printf 'KUBE_ENV_APISERVER_URL=https://127.0.0.1:%s\n' "$aport"
				printf 'KUBE_ENV_ETCD_URL=http://127.0.0.1:%s\n' "$eport"
				printf 'KUBE_ENV_CA=%q\n' "$dir/pki/ca.crt"
				printf 'KUBE_ENV_ETCD_PID=%s\nKUBE_ENV_APISERVER_PID=%s\n' "$(cat "$dir/etcd.pid")" "$(cat "$dir/kube-apiserver.pid")"
				printf 'KUBE_ENV_STARTUP_SECONDS=%s\n' "$took"
			} >"$dir/env"
			log "ready in ${took}s (etcd ${t_etcd}s): https://127.0.0.1:$aport, KUBECONFIG=$dir/kubeconfig"
			return 0
		fi
		log "kube-apiserver did not become ready (try $try); last log lines:"
		tail -n 15 "$dir/kube-apiserver.log" >&2
		cmd_stop "$dir"
		((SECONDS < deadline)) || break
	done
	die "could not start the control plane in $dir (logs: $dir/etcd.log, $dir/kube-apiserver.log)"
}

cmd_env() {
	local dir=$1
	[[ -f $dir/env ]] || die "no environment in $dir (run start first)"
	cat "$dir/env"
	echo "export KUBECONFIG KUBECACHEDIR"
}

cmd_run() {
	local dir=$1
	shift
	[[ ${1:-} == -- ]] && shift
	(($# > 0)) || usage
	cmd_start "$dir"
	trap 'cmd_stop "$dir"' EXIT
	trap 'exit 130' INT TERM
	local rc=0
	(
		set +u
		# shellcheck disable=SC1091
		. "$dir/env"
		export KUBECONFIG KUBECACHEDIR KUBECTL KUBE_ENV_DIR KUBE_ENV_APISERVER_URL KUBE_ENV_CA
		exec "$@"
	) || rc=$?
	return "$rc"
}

(($# >= 2)) || usage
cmd=$1 dir=$2
shift 2
case $cmd in
start) cmd_start "$dir" ;;
stop) cmd_stop "$dir" ;;
env) cmd_env "$dir" ;;
run) cmd_run "$dir" "$@" ;;
*) usage ;;
esac
