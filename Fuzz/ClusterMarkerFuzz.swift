// fuzz-sources: Sources/OTRouter/Cluster/ClusterMarker.swift
import Foundation

/// libFuzzer target: `ClusterMarker`, the check of the mark a node puts on the sockets and
/// REST calls it forwards to another node (query arguments and one header that any client
/// can send). Input: `[mode][bytes…]`; mode even: the bytes are an `x-otkit-forwarded`
/// header value; odd: a query string (`name=value&…`). Arbitrary input must be refused
/// (never verified: the fuzzer does not know the secret) without a trap, and a mark made
/// with the secret must verify with the same node and client.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClusterMarker(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let marker = ClusterMarker(secret: nil, projects: [("1234", "fuzz-secret-0123456789abcdef0123456789abcd")])
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let now: Int64 = 1_800_000_000
    if data[0] % 2 == 0 {
        if (try? marker.verifyREST(text, method: "POST", path: "/v2/project/1234/session/s/signal", now: now)) != nil {
            fatalError("an unsigned REST mark verified: \(text)")
        }
        let signed = marker.restHeaderValue(via: text, method: "GET", path: "/p", now: now)
        if !text.utf8.contains(UInt8(ascii: ";")), (try? marker.verifyREST(signed, method: "GET", path: "/p", now: now)) != text {
            fatalError("a signed REST mark did not verify for node \(text)")
        }
    } else {
        let query = text.split(separator: "&").map { pair -> (name: String, value: String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        if (try? marker.verifySocket(query, sessionId: "s", now: now)) != nil {
            fatalError("an unsigned socket mark verified: \(text)")
        }
        let client = String(String.UnicodeScalarView(text.unicodeScalars.filter(\.isASCII).prefix(64)))  // addresses are ASCII
        let signed = marker.socketArguments(via: "node-a", client: client, sessionId: "s", now: now).map { (name: $0.0, value: $0.1) }
        guard let mark = try? marker.verifySocket(signed, sessionId: "s", now: now), mark.node == "node-a", mark.client == client else {
            fatalError("a signed socket mark did not verify for client \(client)")
        }
    }
    return 0
}
