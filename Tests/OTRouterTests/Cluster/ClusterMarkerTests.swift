@testable import OTRouter
import Testing

/// The REST mark a node puts on requests it forwards: it verifies back to the node's name
/// whatever that name holds, and nothing else verifies.
@Suite struct ClusterMarkerTests {
    let marker = ClusterMarker(secret: nil, projects: [("1234", "marker-test-secret-0123456789abcdef0123456789")])
    let now: Int64 = 1_800_000_000

    /// Names ending in a prepended concatenation mark (U+0600, U+0605, U+08E2) make the
    /// next ";" part of their last Character; the mark's fields are still found (the
    /// libFuzzer target's crash input of 2026-12-04 ends in U+0600).
    @Test(arguments: ["node-a", "\u{FFFD}\u{FFFD}\u{0600}", "n\u{0605}", "\u{08E2}", "é́", ""])
    func restMarkVerifiesBackToItsNode(_ node: String) throws {
        let value = marker.restHeaderValue(via: node, method: "GET", path: "/p", now: now)
        #expect(try marker.verifyREST(value, method: "GET", path: "/p", now: now) == node)
        #expect(throws: ClusterMarker.Forged.self) { try marker.verifyREST(value, method: "POST", path: "/p", now: now) }
        #expect(throws: ClusterMarker.Forged.self) { try marker.verifyREST(value + "0", method: "GET", path: "/p", now: now) }
    }
}
