// swift-tools-version:6.0
// OTKit: real-time video for Linux. See README.md and docs/ for the layout.
import PackageDescription

/// One system-library target per C library: a module map plus a header of
/// `static inline` wrappers for what Swift cannot import (macros, variadic calls).
func cModule(_ name: String, pkgConfig: String? = nil, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "CModules/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "OTKit",
    products: [
        .library(name: "OTMedia", targets: ["OTMedia"]),
        .library(name: "OTKit", targets: ["OTKit"]),
        .library(name: "OTSignaling", targets: ["OTSignaling"]),
        .library(name: "OTNet", targets: ["OTNet"]),
        .library(name: "OTRouter", targets: ["OTRouter"]),
        .library(name: "OTRecording", targets: ["OTRecording"]),
        .executable(name: "otkit", targets: ["otkit"]),
        .executable(name: "otbench", targets: ["otbench"]),
    ],
    targets: [
        cModule("CV4L2", pkgConfig: "libv4l2", apt: ["libv4l-dev"]),
        cModule("CALSA", pkgConfig: "alsa", apt: ["libasound2-dev"]),
        cModule("CVPX", pkgConfig: "vpx", apt: ["libvpx-dev"]),
        cModule("COpus", pkgConfig: "opus", apt: ["libopus-dev"]),
        cModule("CYUV", apt: ["libyuv-dev"]),
        cModule("CTurboJPEG", pkgConfig: "libturbojpeg", apt: ["libturbojpeg0-dev"]),
        cModule("CSRTP", pkgConfig: "libsrtp2", apt: ["libsrtp2-dev"]),
        cModule("COpenSSL", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        // libssl: DTLS-SRTP on the media path, TLS on the signaling server.
        cModule("CSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
        cModule("CLibWebSockets", pkgConfig: "libwebsockets", apt: ["libwebsockets-dev"]),
        // X11 through xcb: the window OTView shows itself in (issue 15).
        cModule("CXCB", pkgConfig: "xcb", apt: ["libxcb1-dev"]),
        // epoll and eventfd for OTNet's server loop (header-only shims).
        .systemLibrary(name: "CEpoll", path: "CModules/CEpoll"),
        // recvmmsg/sendmmsg, ppoll, eventfd: compiled with _GNU_SOURCE, which Glibc's module lacks.
        .target(name: "CUDP", path: "CModules/CUDP"),
        // libsrtp2's AES-GCM, AES-CM and HMAC-SHA1 on OpenSSL (Debian's libsrtp2 runs them on NSS,
        // a PKCS#11 context per packet): installed after srtp_init through libsrtp's replace calls.
        .target(name: "CSRTPCipher", dependencies: ["CSRTP", "COpenSSL"], path: "CModules/CSRTPCipher"),
        // libavformat/libavcodec (WebM muxing) and libzip (archive bundles) for OTRecording.
        cModule("CAVFormat", pkgConfig: "libavformat", apt: ["libavformat-dev", "libavcodec-dev"]),
        cModule("CZip", pkgConfig: "libzip", apt: ["libzip-dev"]),
        // hiredis: the router's Redis connections when several routers share sessions (issue 19).
        cModule("CHiredis", apt: ["libhiredis-dev"]),  // no pkgConfig: its cflags carry -D_FILE_OFFSET_BITS, which SwiftPM refuses

        .target(
            name: "OTMedia",
            dependencies: ["CV4L2", "CALSA", "CVPX", "COpus", "CYUV", "CTurboJPEG", "CSRTP", "CSRTPCipher", "CUDP", "COpenSSL", "CSSL"]
        ),
        .target(name: "OTKit", dependencies: ["OTMedia", "OTSignaling", "OTNet", "CXCB", "CYUV"]),
        .executableTarget(name: "otkit", dependencies: ["OTMedia", "OTKit", "OTRouter", "OTSignaling", "OTNet"]),
        // HTTP + WebSocket server of its own (epoll, OpenSSL for TLS) and client on
        // libwebsockets; no session concepts.
        .target(name: "OTNet", dependencies: ["CLibWebSockets", "CSSL", "CEpoll"]),
        // The router: REST, WebSocket signaling, the SFU.
        .target(name: "OTRouter", dependencies: ["OTMedia", "OTSignaling", "OTNet", "OTRecording", "COpenSSL", "CHiredis"]),
        // Recording: WebM writers and archive bundles; knows packets and frames, not sessions.
        .target(name: "OTRecording", dependencies: ["OTMedia", "CAVFormat", "CZip", "CYUV"]),
        // Tokens, session ids, project JWTs and (later) the wire messages; no OTMedia.
        .target(name: "OTSignaling", dependencies: ["COpenSSL"]),

        // Benchmarks: the runner, the bare C codec loops it measures against, and a
        // malloc interposer that counts allocations in the whole process.
        .target(
            name: "CBareCodec",
            dependencies: ["CVPX", "COpus"],
            path: "Benchmarks/CBareCodec",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "CBareSRTP",
            dependencies: ["CSRTP", "COpenSSL"],
            path: "Benchmarks/CBareSRTP",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "CBarePublisher",
            dependencies: ["CBareCodec", "CSRTP"],
            path: "Benchmarks/CBarePublisher",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(name: "CBareDTLS", dependencies: ["CSSL"], path: "Benchmarks/CBareDTLS", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CBareRelay", path: "Benchmarks/CBareRelay", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CAllocCounter", path: "Benchmarks/CAllocCounter"),
        .executableTarget(
            name: "otbench",
            dependencies: ["OTKit", "OTMedia", "OTRouter", "OTSignaling", "CBareCodec", "CBarePublisher", "CBareSRTP", "CBareRelay",
                           "CAllocCounter", "CBareDTLS", "OTRecording", "CEpoll", "CSRTPCipher"],
            path: "Benchmarks/otbench"
        ),

        // Test-only: OpenSSL primitives for an independent SRTP implementation to check libsrtp2 against.
        .target(name: "CTestCrypto", path: "Tests/CTestCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        // Test-only: helpers shared by several test targets (the opentok Python SDK venv, subprocesses, a junk UDP sender, an Xvfb, headless Chromium).
        .target(name: "OTTestSupport", dependencies: ["OTMedia", "OTNet", "CXCB", "CYUV"], path: "Tests/OTTestSupport"),
        .testTarget(name: "OTMediaTests", dependencies: ["OTMedia", "OTSignaling", "CSRTPCipher", "CTurboJPEG", "CV4L2", "CTestCrypto", "OTTestSupport"]),
        .testTarget(name: "OTKitTests", dependencies: ["OTKit", "OTMedia", "OTRouter", "OTSignaling", "OTNet", "OTTestSupport"]),
        .testTarget(name: "OTNetTests", dependencies: ["OTNet", "OTTestSupport"]),
        .testTarget(name: "OTRouterTests", dependencies: ["OTRouter", "OTMedia", "OTSignaling", "OTNet", "OTTestSupport"]),
        .testTarget(name: "OTSignalingTests", dependencies: ["OTSignaling", "OTTestSupport"]),
        // Test-only: a recorder in a child process the tests kill or limit (RLIMIT_FSIZE).
        .executableTarget(name: "OTRecordingProbe", dependencies: ["OTRecording", "OTMedia", "OTTestSupport"], path: "Tests/OTRecordingProbe"),
        .testTarget(name: "OTRecordingTests", dependencies: ["OTRecording", "OTMedia", "OTTestSupport"]),
        // Runs the built `otkit` binary as subprocesses (build it first: `swift build --build-tests` does).
        .testTarget(name: "OTKitCommandTests", dependencies: ["OTMedia", "OTRouter", "OTSignaling", "OTNet", "OTTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
