import Foundation
import Glibc
import OTRouter

/// What `otkit router` says and does about its exposure at start: the warning for a
/// non-loopback listener without TLS, and the descriptor limit raised to the hard limit.
enum RouterExposure {
    /// True when `host` (an IP literal) is reachable only from this machine: 127.0.0.0/8,
    /// `::1`, `::ffff:127.x.x.x`. Everything else, including `0.0.0.0`, `::` and text that is
    /// not an address, counts as exposed. Cost: one `inet_pton`.
    static func isLoopback(_ host: String) -> Bool { LoopbackAddress.contains(host) }

    /// The warning printed when the router listens on `host` without TLS, nil when `host`
    /// is loopback or TLS is on. It names what crosses the network in clear text.
    static func plaintextWarning(host: String, tls: Bool) -> String? {
        guard !tls, !isLoopback(host) else { return nil }
        return """
            otkit router: WARNING: listening on \(host) without TLS. Anyone on the network path can read and \
            change everything the router carries:
              - connection tokens and resume secrets (a copied one joins the session as that client),
              - REST credentials (X-OPENTOK-AUTH project JWTs) and every REST request and answer,
              - signaling: session, connection and stream ids, connection data, signals, moderation,
              - the SRTP media keys sent in signaling (so the audio and video can be decrypted).
            Serve TLS (--tls-cert/--tls-key or "tls" in the config), or listen on 127.0.0.1 behind a TLS proxy.

            """
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (each signaling socket, media
    /// socket and archive file is a descriptor; the usual soft 1,024 is one busy session).
    /// Returns the soft limit before and after. Cost: two syscalls.
    @discardableResult
    static func raiseDescriptorLimit() -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (before, before) }
        return (before, UInt64(limit.rlim_cur))
    }
}
