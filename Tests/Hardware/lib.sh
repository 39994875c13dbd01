# shellcheck shell=bash
# Helpers shared by the Tests/Hardware scripts. Sourced, never run.

# shellcheck disable=SC2034 # used by the scripts that source this file
# Exit codes of run-vm-tests.sh, one per failure reason, so CI logs and callers can
# tell a broken host from a broken test.
readonly EXIT_TESTS_FAILED=1
readonly EXIT_USAGE=2
readonly EXIT_HOST_SETUP=3
readonly EXIT_VM_FAILED=4
readonly EXIT_NO_TESTS=5

log() { printf '[vm] %s\n' "$*" >&2; }

# die CODE MESSAGE: the message is the "clear reason" CI shows; the code says which kind.
die() {
    local code=$1
    shift
    printf '[vm] FAIL: %s\n' "$*" >&2
    exit "$code"
}

# Run a command as root: CI runs as root, a developer machine may have sudo.
as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "$EXIT_HOST_SETUP" "need root (or sudo) for: $*"
    fi
}

# apt-get update costs 5-20 s and hits the network, so it runs at most once per
# invocation and only when something is actually missing or stale.
# Exported so the child scripts (fetch-kernel.sh) see an update the parent already did.
export APT_UPDATED=${APT_UPDATED:-0}
apt_update_once() {
    if [[ $APT_UPDATED -eq 0 ]]; then
        log "apt-get update"
        as_root apt-get update -qq || die "$EXIT_HOST_SETUP" "apt-get update failed"
        export APT_UPDATED=1
    fi
}

# copy_into ROOT FILE...: copy each file to the same absolute path under ROOT,
# dereferencing symlinks, because the guest must find every library at the path the
# dynamic loader (or a RUNPATH) names on the host.
copy_into() {
    local root=$1 file
    shift
    for file in "$@"; do
        [[ -e $root$file ]] && continue
        mkdir -p "$root$(dirname "$file")"
        cp -L "$file" "$root$file"
    done
}

# closure_of FILE...: the files themselves plus every shared object `ldd` resolves for
# them, including the ELF interpreter. Fails if a library cannot be found, since the
# guest would then fail in a far less readable way.
closure_of() {
    local file out
    for file in "$@"; do
        printf '%s\n' "$file"
        out=$(ldd "$file" 2>&1) || { [[ $out == *"not a dynamic executable"* ]] && continue; }
        if grep -q 'not found' <<<"$out"; then
            printf '[vm] missing libraries for %s:\n%s\n' "$file" "$(grep 'not found' <<<"$out")" >&2
            return 1
        fi
        awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"
    done | sort -u
}

# make_cpio DIR OUT: an uncompressed newc archive (the kernel would spend ~0.5 s of TCG
# time decompressing a compressed one). Owners are forced to root: the guest runs as root.
make_cpio() {
    local dir=$1 out=$2
    (cd "$dir" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$out"
}
