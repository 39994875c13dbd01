import Foundation
import OTMedia
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// A browser-like peer for the router's tests: an `EdgeClient` (real ICE, DTLS, SRTP) whose
/// ICE credentials and certificate fingerprint are written into a real Chromium SDP, and
/// which reads the router's ICE credentials, fingerprint and candidate back out of the
/// router's SDP, as a browser does.
struct BrowserPeer {
    let credentials = ICECredentials.generate()
    let certificate: DTLSCertificate

    init() throws { certificate = try DTLSCertificate(commonName: "browser-like test peer") }

    /// `sdp` with this peer's `a=ice-ufrag`, `a=ice-pwd` and `a=fingerprint`.
    func identify(_ sdp: String) -> String {
        sdp.components(separatedBy: "\r\n").map { line -> String in
            if line.hasPrefix("a=ice-ufrag:") { return "a=ice-ufrag:" + credentials.ufrag }
            if line.hasPrefix("a=ice-pwd:") { return "a=ice-pwd:" + credentials.password }
            if line.hasPrefix("a=fingerprint:") { return "a=fingerprint:" + certificate.fingerprint.sdpValue }
            return line
        }.joined(separator: "\r\n")
    }

    /// Connects (ICE, DTLS) to the router as its SDP (answer or offer) describes it.
    func connect(to routerSDP: String) throws -> EdgeClient {
        let description = try SessionDescription(parsing: routerSDP)
        let section = try #require(description.media.first { $0.port != 0 })
        let candidate = try #require(section.candidates.first)
        let address = try #require(SocketAddress(ipv4: candidate.address, port: candidate.port))
        let offer = EdgeClient.EdgeOffer(address: address,
                                         credentials: try ICECredentials(ufrag: try #require(section.iceUfrag),
                                                                         password: try #require(section.icePwd)),
                                         fingerprint: try DTLSFingerprint(sdp: try #require(section.fingerprint)))
        let client = try EdgeClient(edge: offer, credentials: credentials, certificate: certificate)
        try client.connect()
        return client
    }

    /// The Chromium publisher offer renumbered as another browser build may number it:
    /// Opus 63 (red moves to 111), VP8 100 + RTX 101 (VP9 profile 2 moves to 96/97),
    /// audio level id 9, transport-wide cc id 5 (playout-delay moves to 3), mid stays 4.
    static func renumbered(_ sdp: String) -> String {
        var kind = ""
        return sdp.components(separatedBy: "\r\n").map { line -> String in
            if line.hasPrefix("m=") { kind = String(line.dropFirst(2).prefix { $0 != " " }) }
            let swaps: [(String, String)] = kind == "audio" ? [("111", "63")] : kind == "video" ? [("96", "100"), ("97", "101")] : []
            func swapped(_ token: String) -> String {
                for (a, b) in swaps {
                    if token == a { return b }
                    if token == b { return a }
                }
                return token
            }
            if line.hasPrefix("m=") {
                var tokens = line.split(separator: " ").map(String.init)
                for index in 3..<tokens.count { tokens[index] = swapped(tokens[index]) }
                return tokens.joined(separator: " ")
            }
            for prefix in ["a=rtpmap:", "a=rtcp-fb:", "a=fmtp:"] where line.hasPrefix(prefix) {
                let rest = line.dropFirst(prefix.count)
                let pt = String(rest.prefix { $0 != " " })
                var value = String(rest.dropFirst(pt.count))
                if prefix == "a=fmtp:" {
                    for (a, b) in swaps {
                        value = value.replacingOccurrences(of: "apt=\(a)", with: "apt=#").replacingOccurrences(of: "apt=\(b)", with: "apt=\(a)")
                            .replacingOccurrences(of: "apt=#", with: "apt=\(b)")
                        if value == " \(b)/\(b)" { value = " \(a)/\(a)" } else if value == " \(a)/\(a)" { value = " \(b)/\(b)" }
                    }
                }
                return prefix + swapped(pt) + value
            }
            if line == "a=extmap:1 \(SDPHeaderExtension.audioLevel)" { return "a=extmap:9 \(SDPHeaderExtension.audioLevel)" }
            if line == "a=extmap:3 \(SDPHeaderExtension.transportWideCC)" { return "a=extmap:5 \(SDPHeaderExtension.transportWideCC)" }
            if line.hasPrefix("a=extmap:5 "), line.hasSuffix("playout-delay") { return "a=extmap:3" + line.dropFirst("a=extmap:5".count) }
            return line
        }.joined(separator: "\r\n")
    }
}

/// The SSRCs the Chromium publisher offer announces.
enum ChromeSSRC {
    static let audio: UInt32 = 2_200_770_856
    static let video: UInt32 = 148_646_483
    static let rtx: UInt32 = 1_261_301_464
}

/// An RTP packet as the renumbered browser sends it: PT `payloadType`, marker set, and a
/// one-byte extension block holding `elements` (id, data), padded to 32 bits.
func browserRTP(sequence: UInt16, ssrc: UInt32, payloadType: UInt8, elements: [(UInt8, [UInt8])], payload: [UInt8]) -> [UInt8] {
    var block: [UInt8] = []
    for (id, data) in elements { block += [id << 4 | UInt8(data.count - 1)] + data }
    while block.count % 4 != 0 { block.append(0) }
    var bytes = edgeRTP(sequence: sequence, ssrc: ssrc, payloadType: payloadType, payload: [])
    bytes[0] |= 0x10
    bytes += [0xBE, 0xDE, 0, UInt8(block.count / 4)] + block
    return bytes + payload
}

/// The one-byte extension elements of a plain RTP packet: id → data (padding skipped).
func extensionElements(_ packet: [UInt8]) -> [UInt8: [UInt8]] {
    guard packet[0] & 0x10 != 0 else { return [:] }
    let start = 12 + 4 * Int(packet[0] & 0x0F)
    guard packet.count >= start + 4, edgeBE16(packet, start) == 0xBEDE else { return [:] }
    let end = min(start + 4 + 4 * Int(edgeBE16(packet, start + 2)), packet.count)
    var elements: [UInt8: [UInt8]] = [:]
    var offset = start + 4
    while offset < end {
        let byte = packet[offset]
        if byte == 0 { offset += 1; continue }
        let size = Int(byte & 0x0F) + 1
        guard offset + 1 + size <= end else { break }
        elements[byte >> 4] = Array(packet[(offset + 1)..<(offset + 1 + size)])
        offset += 1 + size
    }
    return elements
}

/// A VP8 keyframe payload (descriptor S=1, 320x240) naming its packet.
func browserVP8Keyframe(_ sequence: UInt16) -> [UInt8] {
    [0x10, 0x50, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        + [UInt8](repeating: 0x33, count: 60)
}
