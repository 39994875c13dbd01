import OTMedia
import OTRouter
import OTSignaling
import Testing

/// A peer's `a=fingerprint` text has one reader, the SDP parser (`SDPFingerprint`, fuzzed
/// with SDP), and the router turns it into what the DTLS handshake checks
/// (`DTLSFingerprint(sdp:)`): only SHA-256 with 32 bytes gets through.
@Suite struct EdgeFingerprintTests {
    /// Both steps, as the router takes a peer's description.
    static func read(_ text: String) throws -> DTLSFingerprint {
        try DTLSFingerprint(sdp: try SDPFingerprint(sdpValue: Substring(text)))
    }

    static func hexList(_ count: Int, _ group: String, _ separator: String = ":") -> String {
        [String](repeating: group, count: count).joined(separator: separator)
    }

    @Test func aCertificatesFingerprintReadsBack() throws {
        let certificate = try DTLSCertificate()
        let text = certificate.fingerprint.sdpValue
        #expect(try Self.read(text) == certificate.fingerprint)
        #expect(try Self.read("SHA-256 " + text.dropFirst(8).lowercased()) == certificate.fingerprint,
                "hash name and hex digits in any case")
    }

    static let malformed: [String] = [
        "",
        "sha-256",
        "sha-1 " + hexList(20, "AB"),
        "sha-512 " + hexList(64, "AB"),
        "sha-256 " + hexList(31, "AB"),
        "sha-256 " + hexList(33, "AB"),
        "sha-256 " + hexList(32, "A"),
        "sha-256 " + hexList(32, "ABC"),
        "sha-256 " + hexList(32, "GG"),
        "sha-256 " + hexList(32, "AB", "-"),
        "sha-256 " + hexList(32, "AB") + ":",
        "sha-256 " + hexList(32, "AB") + " extra",
        "sha-256 " + hexList(32, "é"),
        "sha-256 " + String(repeating: "A", count: 10_000),
        // RFC 8122's grammar has one SP between the hash and the bytes, nothing around.
        "  sha-256 " + hexList(32, "AB") + " \t",
        "sha-256  " + hexList(32, "AB"),
    ]

    @Test(arguments: EdgeFingerprintTests.malformed)
    func malformedFingerprintsAreRejected(_ text: String) {
        #expect(throws: (any Error).self) { try Self.read(text) }
    }

    @Test func wellFormedControlParses() throws {
        #expect(try Self.read("sha-256 " + Self.hexList(32, "AB")).bytes == [UInt8](repeating: 0xAB, count: 32))
    }
}
