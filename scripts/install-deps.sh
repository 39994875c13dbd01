#!/usr/bin/env bash
# Installs the Debian 12 packages OTKit builds and tests with. Idempotent: it asks apt
# only for what is missing, and runs `apt-get update` at most once.
#   scripts/install-deps.sh             build + unit-test dependencies
#   scripts/install-deps.sh --hardware  also what the QEMU hardware-test VM needs
set -euo pipefail

packages=(
  pkg-config
  gcc               # builds scripts/thread-alloc-counter.c, the allocation tests' malloc counter
  libv4l-dev        # V4L2 cameras (videodev2.h, libv4l2)
  libasound2-dev    # ALSA microphone and speaker
  libvpx-dev        # VP8
  libopus-dev       # Opus
  libyuv-dev        # pixel conversion and scaling
  libturbojpeg0-dev # MJPEG cameras
  libsrtp2-dev      # SRTP
  libwebsockets-dev # WebSocket client (OTKit's signaling client); the router's HTTP/WebSocket server is OTNet's own
  libxcb1-dev       # X11 through xcb: the window OTView (publisher.view / subscriber.view) shows itself in
  xvfb              # a virtual X server: the OTView window tests start their own and read its pixels back
  libssl-dev        # OpenSSL: token/JWT HMACs, STUN integrity, DTLS-SRTP, the router's TLS; libsrtp2's AES-GCM, AES-CM and HMAC-SHA1 (CModules/CSRTPCipher)
  openssl           # the openssl CLI: token tests recompute HMACs with `openssl dgst`
  python3-venv      # interop tests install pinned PyPI peers (opentok, websockets, aioice, pyOpenSSL) into venvs under .build/
                    # (Debian's python3 needs this for `python3 -m venv`; a pyenv python has it built in)
  # GStreamer: the interop tests' independent peer (gst-launch-1.0 with srtpenc/srtpdec,
  # rtpbin, vp8enc/dec, rtpvp8pay/depay, opusenc/dec, rtpopuspay/depay, y4mdec, wavenc)
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  libavformat-dev libavcodec-dev  # OTRecording writes WebM with libavformat (CModules/CAVFormat)
  libzip-dev        # OTRecording's archive bundles (stored ZIP + manifest, CModules/CZip)
  ffmpeg            # ffprobe/ffmpeg: the recording tests read and decode what OTRecording wrote
  libhiredis-dev    # Redis client: several routers share sessions through Redis (CModules/CHiredis, Sources/OTRouter/Cluster)
  redis-server      # the cluster tests start their own redis-server on a free port, no persistence
  janus             # Janus WebRTC server (VideoRoom): `otbench sfu` runs it beside the router with the same load
  chromium          # headless Chromium: the browser tests drive it over the DevTools protocol (Tests/OTTestSupport/Chromium*.swift)
)
if [[ "${1:-}" == "--hardware" ]]; then
  packages+=(qemu-system-x86 busybox-static kmod cpio xz-utils alsa-utils v4l-utils)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
