import COpenSSL
import Foundation

/// The mark a node puts on what it forwards to another node of its cluster — a proxied
/// client's signaling socket (query arguments) or a REST request (one header) — signed
/// with the cluster secret, so the receiving node knows it came from a peer node, which
/// node, and (for sockets) the real client's address; and so it never forwards it again.
/// The secret is ``ClusterConfiguration/secret`` when set, else derived from the project
/// secrets every node of a cluster serves (HMAC-SHA256 over them, sorted); it is never
/// logged. A mark is valid for ``validitySeconds`` either side of the receiver's clock.
struct ClusterMarker: Sendable {
    /// How far a mark's time may be from the receiver's clock, seconds.
    static let validitySeconds: Int64 = 120
    /// The query argument naming the forwarding node (its presence makes a socket "forwarded").
    static let viaArgument = "otkitVia"
    /// The REST header of a forwarded request: `{node};{unix seconds};{hex HMAC}`.
    static let restHeader = "x-otkit-forwarded"

    private let key: [UInt8]

    /// A marker keyed by `secret`, or by the projects' secrets when `secret` is nil.
    /// Cost: one HMAC.
    init(secret: String?, projects: [(apiKey: String, secret: String)]) {
        if let secret, !secret.isEmpty {
            key = Array(secret.utf8)
        } else {
            let material = projects.map { "\($0.apiKey):\($0.secret)" }.sorted().joined(separator: "\n")
            key = Self.hmac(key: Array("otkit-cluster-secret-v1".utf8), Array(material.utf8))
        }
    }

    /// The query arguments a node adds to a proxied client's socket URL.
    func socketArguments(via node: String, client: String, sessionId: String, now: Int64 = Self.now()) -> [(String, String)] {
        let signature = sign("ws|\(node)|\(client)|\(now)|\(sessionId)")
        return [(Self.viaArgument, node), ("otkitClient", client), ("otkitTime", String(now)), ("otkitAuth", signature)]
    }

    /// The forwarding node and client address of a socket's query, nil when it carries no
    /// mark; throws ``Forged`` when it carries one that does not verify.
    func verifySocket(_ query: [(name: String, value: String)], sessionId: String, now: Int64 = Self.now()) throws(Forged)
        -> (node: String, client: String)? {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard let node = value(Self.viaArgument) else { return nil }
        guard let client = value("otkitClient"), client.utf8.count <= 64, let timeText = value("otkitTime"), timeText.utf8.count <= 20,
              let time = Int64(timeText), let signature = value("otkitAuth") else { throw Forged() }
        guard abs(time &- now) <= Self.validitySeconds, Self.equal(signature, sign("ws|\(node)|\(client)|\(time)|\(sessionId)")) else {
            throw Forged()
        }
        return (node, client)
    }

    /// The header value a node adds to a REST request it forwards.
    func restHeaderValue(via node: String, method: String, path: String, now: Int64 = Self.now()) -> String {
        "\(node);\(now);\(sign("rest|\(node)|\(now)|\(method)|\(path)"))"
    }

    /// The forwarding node of a REST request's mark; throws ``Forged`` when it does not verify.
    func verifyREST(_ value: String, method: String, path: String, now: Int64 = Self.now()) throws(Forged) -> String {
        // Split on the bytes, not on Characters: a node name ending in a prepended
        // concatenation mark (U+0600…) makes "؀;" one grapheme, which a Character split
        // never cuts. ";" is ASCII, so no UTF-8 sequence is cut either.
        let parts = value.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 3, parts[1].utf8.count <= 20, let time = Int64(parts[1]), abs(time &- now) <= Self.validitySeconds,
              Self.equal(parts[2], sign("rest|\(parts[0])|\(time)|\(method)|\(path)")) else { throw Forged() }
        return parts[0]
    }

    /// A mark that does not verify (wrong secret, stale, malformed).
    struct Forged: Error {}

    /// Unix seconds now.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    private func sign(_ text: String) -> String {
        Self.hmac(key: key, Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    private static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    HMAC(EVP_sha256(), k.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(k.count),
                         m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                         o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil, "HMAC failed in libcrypto")
        return Array(out.prefix(Int(length)))
    }
}
