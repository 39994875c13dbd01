#!/usr/bin/env bash
# fetch-kernel.sh WORKDIR
#
# Makes WORKDIR/kernel/current point at an unpacked Debian 12 kernel ready to boot:
#   root/          the package unpacked with dpkg -x, plus modules.dep from depmod -b
#   kver           the kernel release (e.g. 6.1.0-57-amd64)
#   vmlinuz        the bzImage (fallback boot path: SeaBIOS decompresses it, ~3.5 s slower)
#   vmlinux        the uncompressed ELF kernel, booted directly through PVH (fast path);
#                  missing if extraction failed
#
# The kernel is never installed on the host. The package name is resolved through the
# linux-image-amd64 metapackage each time: Debian's mirror only serves the newest ABI
# (6.1.0-NN), so a pinned name breaks after the next security update.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$here/lib.sh"

work=${1:?usage: fetch-kernel.sh WORKDIR}
kdir=$work/kernel
mkdir -p "$kdir"

# The versioned image package linux-image-amd64 depends on, e.g. linux-image-6.1.0-57-amd64.
resolve_package() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64$/ { print $2; exit }'
}

# Use what is cached when the network or the mirror fails: a stale kernel still tests
# the drivers, and re-runs must not depend on the mirror.
use_cache_or_die() {
    if [[ -f $kdir/current/ready ]]; then
        log "WARNING: $1; using cached kernel $(cat "$kdir/current/kver")"
        exit 0
    fi
    die "$EXIT_HOST_SETUP" "kernel download failed: $1"
}

pkg=$(resolve_package || true)
if [[ -z $pkg ]]; then
    apt_update_once
    pkg=$(resolve_package || true)
fi
[[ -n $pkg ]] || use_cache_or_die "cannot resolve linux-image-amd64's kernel package"

target=$kdir/$pkg
if [[ -f $target/ready ]]; then
    ln -sfn "$pkg" "$kdir/current"
    log "kernel $pkg cached"
    exit 0
fi

log "downloading $pkg"
rm -rf "$kdir/download" "$target"
mkdir -p "$kdir/download"
# apt-get download runs as the _apt user when root; a world-writable scratch dir avoids
# its "unsandboxed" warning. Stale package lists give 404: update once and re-resolve,
# since the update may also move the ABI name.
chmod 1777 "$kdir/download"
if ! (cd "$kdir/download" && apt-get download -q "$pkg" >&2); then
    apt_update_once
    pkg=$(resolve_package || true)
    [[ -n $pkg ]] || use_cache_or_die "cannot resolve linux-image-amd64 after apt-get update"
    target=$kdir/$pkg
    (cd "$kdir/download" && apt-get download -q "$pkg" >&2) || use_cache_or_die "apt-get download $pkg failed"
fi

deb=$(find "$kdir/download" -name "${pkg}_*.deb" | head -n 1)
[[ -n $deb ]] || use_cache_or_die "apt-get download produced no .deb for $pkg"
mkdir -p "$target"
dpkg -x "$deb" "$target/root"
rm -rf "$kdir/download" # 70 MB; the unpacked tree is the cache

kver=$(basename "$(find "$target/root/lib/modules" -mindepth 1 -maxdepth 1 -type d | head -n 1)")
[[ -n $kver && -f $target/root/boot/vmlinuz-$kver ]] || die "$EXIT_HOST_SETUP" "$pkg has no vmlinuz/modules"
printf '%s\n' "$kver" >"$target/kver"
ln -s "root/boot/vmlinuz-$kver" "$target/vmlinuz"

# dpkg -x runs no maintainer scripts, so there is no modules.dep; modprobe needs it to
# compute the insmod order for the initramfs.
depmod -b "$target/root" "$kver"

# The bzImage carries an xz-compressed vmlinux: find the xz stream magic (FD '7zXZ' 00)
# and decompress from there; --single-stream ignores the setup code after it. (Process
# substitutions, not pipes: xz and head stop reading early, and pipefail would count the
# writer's SIGPIPE as a failure.)
offset=$(head -n 1 < <(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$target/vmlinuz" | cut -d: -f1))
if [[ -n $offset ]] &&
    xz -dc --single-stream < <(tail -c "+$((offset + 1))" "$target/vmlinuz") >"$target/vmlinux" 2>/dev/null &&
    [[ $(head -c 4 "$target/vmlinux" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]; then
    log "extracted uncompressed vmlinux for PVH boot"
else
    rm -f "$target/vmlinux"
    log "WARNING: could not extract vmlinux; will boot the bzImage through SeaBIOS"
fi

touch "$target/ready"
ln -sfn "$pkg" "$kdir/current"
# Drop kernels of older ABIs: each is ~440 MB unpacked.
find "$kdir" -mindepth 1 -maxdepth 1 -type d -name 'linux-image-*' ! -name "$pkg" -exec rm -rf {} +
log "kernel $kver ready"
