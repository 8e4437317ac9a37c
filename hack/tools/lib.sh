# Shared by the hack/tools build scripts (sourced, not run). The caller sets
# bin (the cache's bin directory), force (1 rebuilds), and log(); goversion
# (`go env GOVERSION`) before stamp_text and build.

# prepare LOCKFILE : check that go is in PATH, create the bin directory and
# take the lock $bin/LOCKFILE (on fd $lock_fd, held until the script exits or
# closes it) so that concurrent invocations build once.
prepare() {
	command -v go >/dev/null || {
		log "go not found in PATH"
		exit 1
	}
	mkdir -p "$bin"
	if command -v flock >/dev/null; then
		exec {lock_fd}>"$bin/$1"
		flock "$lock_fd"
	fi
}

# stamp_text WHAT LDFLAGS FILE... : what a build is made from, as its stamp
# records it: WHAT (NAME=VERSION), the Go version, a digest of the FILEs (the
# tool module's go.mod and go.sum, ...) and the ldflags.
stamp_text() {
	local what=$1 ldflags=$2
	shift 2
	printf '%s\ngo=%s\nmod=%s\nldflags=%s' "$what" "$goversion" "$(cat "$@" | sha256sum | cut -d' ' -f1)" "$ldflags"
}

# stamp_ok NAME STAMPTEXT BIN... : true if the stamp matches and all binaries exist.
stamp_ok() {
	local name=$1 want=$2
	shift 2
	[[ $force == 0 ]] || return 1
	[[ -f $bin/.stamp-$name ]] || return 1
	[[ $(cat "$bin/.stamp-$name") == "$want" ]] || return 1
	local b
	for b in "$@"; do [[ -x $bin/$b ]] || return 1; done
}

# build NAME MODDIR LDFLAGS PKG... : go build the packages into a temp dir,
# then move the binaries into place and write the stamp.
build() {
	local name=$1 moddir=$2 ldflags=$3 stamp=$4
	shift 4
	local tmp start
	tmp=$(mktemp -d "$bin/.build-$name.XXXXXX")
	start=$(date +%s)
	log "building $name ($*) with $goversion; this takes minutes on a cold cache"
	local pflag=()
	[[ -n ${ROUTEWARDEN_BUILD_P:-} ]] && pflag=(-p "$ROUTEWARDEN_BUILD_P")
	if ! go -C "$moddir" build "${pflag[@]}" -trimpath -ldflags "$ldflags" -o "$tmp/" "$@"; then
		rm -rf "$tmp"
		log "building $name failed"
		return 1
	fi
	local f
	for f in "$tmp"/*; do mv -f "$f" "$bin/"; done
	rmdir "$tmp"
	printf '%s\n' "$stamp" >"$bin/.stamp-$name"
	log "built $name in $(($(date +%s) - start))s"
}
