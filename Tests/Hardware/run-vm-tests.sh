#!/usr/bin/env bash
# run-vm-tests.sh [--filter REGEX] [TEST-BUNDLE]
#
# Runs the package's hardware test suites (Swift Testing suites named Hardware*) inside a
# QEMU VM that boots Debian 12's stock kernel with the vivid (V4L2) and snd-aloop (ALSA)
# drivers, because the CI machine has neither driver and cannot load modules itself.
# The guest console streams to stdout prefixed with "[guest] " and is saved to
# Tests/Hardware/work/console.log.
#
# Exit status: 0 tests ran (at least one) and all passed; 1 tests failed or the bundle
# crashed; 2 usage; 3 host setup failed (packages, kernel download); 4 the VM did not
# boot, died or timed out; 5 no test ran.
#
# --filter REGEX (or FILTER=REGEX) selects the Swift Testing tests by ID, default
# "Hardware". TEST-BUNDLE defaults to .build/debug/OTKitPackageTests.xctest, built with
# `swift build --build-tests` if missing.
#
# Environment: OTKIT_VM_TIMEOUT (seconds for the whole VM run, default 600),
# OTKIT_VM_MEMORY (MiB, default 1536), OTKIT_VM_CPUS (vCPUs, default 2), OTKIT_VM_ACCEL (tcg, the default, or kvm: KVM is
# untested and the CI machines' nested PVM cannot boot a stock kernel),
# OTKIT_VM_WORK (cache directory, default Tests/Hardware/work), OTKIT_VM_COMMAND (the
# `otkit` the command tests run in the guest; default a release build, made here:
# "debug" keeps the one beside the bundle).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$here/lib.sh"
package_root=$(cd "$here/../.." && pwd)

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit "${1:-0}"
}

filter=${FILTER:-Hardware}
bundle=
while [[ $# -gt 0 ]]; do
    case $1 in
    --filter) [[ $# -ge 2 ]] || usage "$EXIT_USAGE"; filter=$2; shift 2 ;;
    --filter=*) filter=${1#--filter=}; shift ;;
    -h | --help) usage 0 ;;
    -*) log "unknown option $1"; usage "$EXIT_USAGE" ;;
    *) [[ -z $bundle ]] || usage "$EXIT_USAGE"; bundle=$1; shift ;;
    esac
done

timeout_s=${OTKIT_VM_TIMEOUT:-600}
memory=${OTKIT_VM_MEMORY:-1536}
accel=${OTKIT_VM_ACCEL:-tcg}
cpus=${OTKIT_VM_CPUS:-2}
work=${OTKIT_VM_WORK:-$here/work}
mkdir -p "$work"
# One run at a time per cache directory: runs share the kernel, initrd and console.log.
exec 9>"$work/lock"
flock -n 9 || die "$EXIT_USAGE" "another run-vm-tests.sh is using $work"

started=$SECONDS
phase() { log "$1 (t+$((SECONDS - started))s)"; }

# --- 1. Host packages -------------------------------------------------------------------
# The project's install script knows the list; it returns at once when nothing is missing.
"$package_root/scripts/install-deps.sh" --hardware || die "$EXIT_HOST_SETUP" "scripts/install-deps.sh --hardware failed"

# --- 2. Test bundle ---------------------------------------------------------------------
if [[ -z $bundle ]]; then
    bundle=$package_root/.build/debug/OTKitPackageTests.xctest
    if [[ ! -x $bundle ]]; then
        phase "building the test bundle"
        (cd "$package_root" && swift build --build-tests) || die "$EXIT_TESTS_FAILED" "swift build --build-tests failed"
    fi
fi
[[ -x $bundle ]] || die "$EXIT_USAGE" "test bundle $bundle does not exist"

# The guest's emulated CPUs are many times slower than the host's (a release publisher
# used 0.55 CPU-seconds per second there, 0.06 on the host), and the command test runs a
# publisher, a router and a subscriber at once: the command runs as a release build, as
# users run it; the test bundle driving it stays debug.
command=${OTKIT_VM_COMMAND:-}
if [[ -z $command ]]; then
    phase "building a release otkit for the guest"
    (cd "$package_root" && swift build -c release --product otkit) || die "$EXIT_TESTS_FAILED" "swift build -c release --product otkit failed"
    command=$package_root/.build/release/otkit
elif [[ $command == debug ]]; then
    command=
fi
[[ -z $command || -x $command ]] || die "$EXIT_USAGE" "OTKIT_VM_COMMAND $command is not an executable"

# --- 3. Kernel (cached) -----------------------------------------------------------------
phase "kernel"
"$here/fetch-kernel.sh" "$work"
kernel=$work/kernel/current
kver=$(cat "$kernel/kver")

# --- 4. Base initramfs (cached while the kernel, the tools and these scripts are unchanged)
stamp=$(
    cat "$here/lib.sh" "$here/build-initramfs.sh" "$here/guest-init.sh"
    echo "$kver"
    dpkg-query -W busybox-static v4l-utils alsa-utils libasound2 2>/dev/null || true  # a missing name must not end the run
)
stamp=$(sha256sum <<<"$stamp" | cut -d' ' -f1)
if [[ ! -f $work/base.cpio || $(cat "$work/base.stamp" 2>/dev/null) != "$stamp" ]]; then
    phase "building the base initramfs"
    rm -f "$work/base.stamp"
    "$here/build-initramfs.sh" "$kernel" "$work/base.cpio"
    printf '%s\n' "$stamp" >"$work/base.stamp"
fi

# --- 5. Payload (every run) ----------------------------------------------------------------
phase "building the payload"
"$here/build-payload.sh" "$bundle" "$filter" "$work/payload.cpio" ${command:+"$command"}
# The kernel unpacks concatenated cpio archives into one rootfs; QEMU takes one -initrd.
cat "$work/base.cpio" "$work/payload.cpio" >"$work/initrd.cpio"
log "initrd: $(du -h "$work/initrd.cpio" | cut -f1)"

# --- 6. Boot --------------------------------------------------------------------------
console=$work/console.log

# run_vm KERNEL [QEMU ARGS...]: boots, streams the console, returns qemu's (or timeout's)
# status. The reader strips the serial line's \r itself: a `tr` in the pipe would buffer.
run_vm() {
    local image=$1
    shift
    local accel_args=(-accel tcg -cpu max)
    [[ $accel == kvm ]] && accel_args=(-accel kvm -cpu host)
    : >"$console"
    set +e
    # -smp 2 (MTTCG: one host thread per vCPU): the command test runs a publisher, a
    # router and a subscriber at once, and one vCPU had no idle time left (audio captured
    # at 7-9 packets/s of 50, frames lost on a slow host); two leave 20-30 % idle, audio
    # at 32-36 packets/s, and the whole suite ran in 86 s against 109 s. -no-reboot + panic=-1 make a
    # guest panic end qemu instead of looping; timeout bounds a hung guest.
    timeout -k 10 "$timeout_s" qemu-system-x86_64 \
        "${accel_args[@]}" -m "$memory" -smp "$cpus" -nodefaults -no-reboot \
        -display none -serial stdio "$@" \
        -kernel "$image" -initrd "$work/initrd.cpio" \
        -append "console=ttyS0 quiet panic=-1" </dev/null 2>&1 |
        while IFS= read -r line; do
            line=${line%$'\r'}
            printf '[guest] %s\n' "$line"
            printf '%s\n' "$line" >>"$console"
        done
    local status=${PIPESTATUS[0]}
    set -e
    return "$status"
}

qboot=/usr/share/qemu/qboot.rom
boot_status=0
if [[ -f $kernel/vmlinux ]]; then
    # Fast path: PVH entry into the uncompressed kernel with qboot as firmware skips
    # SeaBIOS and in-guest decompression, about 3.5 s of TCG time.
    bios=()
    [[ -f $qboot ]] && bios=(-bios "$qboot")
    phase "booting $kver (PVH vmlinux${bios:+ + qboot})"
    run_vm "$kernel/vmlinux" "${bios[@]}" || boot_status=$?
    if ! grep -q '^OTKIT-VM: init up' "$console" && [[ $boot_status -ne 124 && $boot_status -ne 137 ]]; then
        log "PVH boot did not reach /init (status $boot_status); retrying with the bzImage"
        boot_status=0
        phase "booting $kver (bzImage + SeaBIOS)"
        run_vm "$kernel/vmlinuz" || boot_status=$?
    fi
else
    phase "booting $kver (bzImage + SeaBIOS)"
    run_vm "$kernel/vmlinuz" || boot_status=$?
fi
phase "VM finished (qemu status $boot_status)"

# --- 7. Verdict ---------------------------------------------------------------------------
last_marker() { grep '^OTKIT-VM:' "$console" | tail -n 1 || true; }
if [[ $boot_status -eq 124 || $boot_status -eq 137 ]]; then
    die "$EXIT_VM_FAILED" "VM timed out after ${timeout_s}s (last marker: $(last_marker)); see $console"
fi
grep -q '^OTKIT-VM: init up' "$console" ||
    die "$EXIT_VM_FAILED" "the kernel never reached /init (qemu status $boot_status); see $console"
payload_exit=$(sed -n 's/^OTKIT-VM: payload exit \([0-9]*\)$/\1/p' "$console" | tail -n 1)
[[ -n $payload_exit ]] ||
    die "$EXIT_VM_FAILED" "the VM stopped while tests ran (kernel panic or OOM?; last marker: $(last_marker)); see $console"

# JUnit XML from swift-testing, printed by the payload between two markers.
xunit=$(sed -n '/^OTKIT-VM: xunit begin$/,/^OTKIT-VM: xunit end$/p' "$console")
summary=$(grep -o '<testsuite [^>]*>' <<<"$xunit" | head -n 1 || true)
attr() { sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p" <<<"$summary"; }
if [[ -z $summary ]]; then
    # swift-testing writes the XML at the end, so a crash leaves none. Name the test
    # that was running: the last one started.
    running=$(grep -o 'Test .* started\.$' "$console" | tail -n 1 || true)
    if [[ $payload_exit -gt 128 ]]; then
        die "$EXIT_TESTS_FAILED" "the test bundle crashed with signal $((payload_exit - 128)) (last: ${running:-none}); see $console"
    fi
    die "$EXIT_TESTS_FAILED" "the test bundle wrote no results (exit status $payload_exit; last: ${running:-none}); see $console"
fi
tests=$(attr tests) failures=$(attr failures) errors=$(attr errors) skipped=$(attr skipped)
# The XML itself, for scripts/test's count (OTKIT_VM_XUNIT names the file).
[[ -z ${OTKIT_VM_XUNIT:-} ]] || sed '/^OTKIT-VM:/d' <<<"$xunit" >"$OTKIT_VM_XUNIT"
grep -E '^. Test run with' "$console" | tail -n 1 | sed 's/^/[vm] /' >&2 || true
log "results: $tests ran, $failures failed, $errors errors, $skipped skipped (filter '$filter', $((SECONDS - started))s total)"

if [[ $((failures + errors)) -gt 0 || ($payload_exit -ne 0 && $tests -gt 0) ]]; then
    # Name the failing tests: a <failure> element follows its <testcase> line.
    awk '/<testcase /{ match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12)
                       match($0, / name="[^"]*"/); n = substr($0, RSTART + 7, RLENGTH - 8) }
         /<failure|<error/ { print "[vm]   failed: " c "/" n }' <<<"$xunit" | sort -u >&2
    die "$EXIT_TESTS_FAILED" "hardware tests failed (bundle exit status $payload_exit)"
fi
[[ $tests -gt 0 ]] ||
    die "$EXIT_NO_TESTS" "no test ran: filter '$filter' matched nothing, or every matching test was skipped ($skipped skipped)"
log "PASS"
