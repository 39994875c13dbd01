#!/usr/bin/env bash
# build-initramfs.sh KERNEL_DIR OUT.cpio
#
# The base initramfs, independent of the code under test: busybox, /init, the vivid and
# snd-aloop modules with their dependencies, alsa-lib's configuration, and v4l2-ctl /
# arecord / aplay with their libraries for diagnostics. The test payload is a second
# cpio appended at boot (see build-payload.sh), so this one is only rebuilt when the
# kernel or these scripts change.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$here/lib.sh"

kernel=${1:?usage: build-initramfs.sh KERNEL_DIR OUT.cpio}
out=${2:?usage: build-initramfs.sh KERNEL_DIR OUT.cpio}
kver=$(cat "$kernel/kver")
kroot=$kernel/root

# The modules the hardware tests need. Everything they depend on follows from modprobe.
modules=(vivid snd-aloop)

stage=$(mktemp -d "${TMPDIR:-/tmp}/otkit-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,root,payload,"lib/modules/$kver"}

# busybox-static needs no libraries; one symlink per applet gives the guest a shell,
# mount, insmod, poweroff and the rest.
cp /bin/busybox "$stage/bin/busybox"
for applet in $(/bin/busybox --list); do
    [[ -e $stage/bin/$applet ]] || ln -s busybox "$stage/bin/$applet"
done
install -m 0755 "$here/guest-init.sh" "$stage/init"

# Programs that call getpwuid (Foundation's home directory lookup) want a passwd entry.
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\naudio:x:29:\nvideo:x:44:\n' >"$stage/etc/group"

# Module load order: `modprobe --show-depends` prints "insmod <path> [options]" lines
# dependencies first. Paths are relative to the module directory in the list so the
# guest does not care where the host unpacked the kernel.
: >"$stage/etc/modules.load"
while read -r verb path params; do
    [[ $verb == insmod ]] || continue # "builtin foo" lines need nothing
    rel=${path#"$kroot/lib/modules/$kver/"}
    dest=$stage/lib/modules/$kver/$rel
    mkdir -p "$(dirname "$dest")"
    # busybox insmod cannot read compressed modules (trixie ships .ko.xz).
    case $rel in
    *.ko.xz) xz -dc "$path" >"${dest%.xz}" && rel=${rel%.xz} ;;
    *.ko.zst) zstd -qdc "$path" >"${dest%.zst}" && rel=${rel%.zst} ;;
    *) cp "$path" "$dest" ;;
    esac
    grep -qxF "$kver/$rel${params:+ $params}" "$stage/etc/modules.load" ||
        printf '%s\n' "$kver/$rel${params:+ $params}" >>"$stage/etc/modules.load"
done < <(for module in "${modules[@]}"; do
    # One call per module: further arguments would be taken as the module's options.
    modprobe --show-depends -d "$kroot" -S "$kver" "$module"
done)
[[ -s $stage/etc/modules.load ]] || die "$EXIT_HOST_SETUP" "modprobe found none of: ${modules[*]}"
# The process substitution above hides modprobe's exit status: check each module made it.
for module in "${modules[@]}"; do
    grep -q "/${module//-/[-_]}\.ko" "$stage/etc/modules.load" ||
        die "$EXIT_HOST_SETUP" "kernel module $module not found in $kroot (modprobe --show-depends)"
done

# alsa-lib resolves "hw:Loopback,1" through these files; without them every PCM name fails.
mkdir -p "$stage/usr/share/alsa"
for conf in alsa.conf cards pcm ctl; do
    if [[ -e /usr/share/alsa/$conf ]]; then
        cp -r "/usr/share/alsa/$conf" "$stage/usr/share/alsa/"
    fi
done

# Diagnostics tools with their libraries at the host's paths.
tools=()
links=()
for tool in v4l2-ctl arecord aplay amixer; do
    path=$(command -v "$tool" || true)
    [[ -n $path ]] || continue
    # arecord is a symlink to aplay (the program picks its mode from argv[0]), so the
    # guest gets a link named after the tool pointing at the real file.
    tools+=("$(readlink -f "$path")")
    links+=("$tool")
done
list=$(closure_of "${tools[@]}") || die "$EXIT_HOST_SETUP" "cannot collect the diagnostics tools' libraries"
mapfile -t files <<<"$list"
copy_into "$stage" "${files[@]}"
for i in "${!tools[@]}"; do
    ln -sf "${tools[$i]}" "$stage/bin/${links[$i]}"
done
# libv4l2 loads its plugins (multi-planar support) from here at open time.
plugins=$(find /usr/lib -maxdepth 3 -type d -path '*/libv4l/plugins' | head -n 1)
if [[ -n $plugins ]]; then
    mapfile -t files < <(find "$plugins" -name '*.so')
    copy_into "$stage" "${files[@]}"
fi

make_cpio "$stage" "$out"
log "base initramfs: $(du -h "$out" | cut -f1), $(wc -l <"$stage/etc/modules.load") modules"
