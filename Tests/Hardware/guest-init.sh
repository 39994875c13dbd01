#!/bin/busybox sh
# shellcheck shell=dash
# /init of the hardware-test VM (PID 1, busybox ash). Brings up the kernel file systems,
# loads vivid and snd-aloop, prints the device inventory, runs /payload/run.sh (appended
# by the host as a second cpio) and powers off. Lines starting with "OTKIT-VM:" are
# markers the host parses; keep their wording in sync with run-vm-tests.sh.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mark() { echo "OTKIT-VM: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# Debian's kernel has DEVTMPFS=y but not DEVTMPFS_MOUNT, so /dev is ours to mount.
mount -t devtmpfs devtmpfs /dev
# The initramfs root is already RAM. No tmpfs on /tmp: the test bundle sits at its
# host path, and a checkout under /tmp (CI clones anywhere) would be hidden by it.
mkdir -p /tmp && chmod 1777 /tmp
# Loopback up: the command tests run a router and `otkit` processes talking over 127.0.0.1.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || mark "loopback not up"
mark "init up at $(cut -d' ' -f1 /proc/uptime)s"

# /etc/modules.load lists the .ko files in dependency order (modprobe --show-depends on
# the host), because busybox insmod does not resolve dependencies.
while read -r module params; do
    # shellcheck disable=SC2086 # params are whitespace-separated module options
    insmod "/lib/modules/$module" $params || mark "insmod $module failed"
done </etc/modules.load

# Device nodes appear from the drivers' probe; give them a moment rather than racing.
tries=0
while [ ! -e /dev/video0 ] || [ ! -e /proc/asound/cards ]; do
    tries=$((tries + 1))
    [ "$tries" -gt 50 ] && break
    sleep 0.1
done
mark "modules loaded at $(cut -d' ' -f1 /proc/uptime)s"

# Inventory for the log: cheap, and it tells a driver problem from a test problem.
echo "--- v4l2-ctl --list-devices"
v4l2-ctl --list-devices 2>&1
echo "--- arecord -l"
arecord -l 2>&1
echo "---"

if [ -x /payload/run.sh ]; then
    mark "payload start"
    /payload/run.sh
    rc=$?
else
    mark "no payload (/payload/run.sh missing)"
    rc=127
fi
mark "payload exit $rc"
sync
mark "poweroff"
# -f: init must not exit (the kernel would panic); power off directly.
poweroff -f
