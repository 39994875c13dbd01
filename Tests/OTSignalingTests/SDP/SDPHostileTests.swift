import Testing
@testable import OTSignaling

/// Malformed, oversized and out-of-range SDP is refused with the line it was found on,
/// never a trap, never a partial description.
@Suite struct SDPHostileTests {
    static let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"

    /// `head` + a video section with the line `line` inside (its line number is 7).
    static func inSection(_ line: String) -> String {
        head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n" + line + "\r\n"
    }

    static func sections(_ count: Int) -> String {
        head + (0..<count).map { "m=audio 9 RTP/AVP 0\r\na=mid:\($0)\r\n" }.joined()
    }

    /// (name, text, line, reason).
    static let table: [(String, String, Int, SDPError.Reason)] = [
        ("huge", head + String(repeating: "a=x\r\n", count: 14_000), 0, .tooLarge(bytes: head.utf8.count + 70_000)),
        ("too many lines", head + String(repeating: "a=x\r\n", count: 5_000), 4_097, .tooManyLines),
        ("line too long", head + "a=x:" + String(repeating: "y", count: 2_000) + "\r\n", 5, .lineTooLong(length: 2_004)),
        ("300 m-lines", sections(300), 5 + 2 * 128, .tooManyMediaSections),
        ("NUL byte", head + "a=x\u{0}y\r\n", 5, .controlCharacter),
        ("TAB", head + "a=x\ty\r\n", 5, .controlCharacter),
        ("lone CR", "v=0\ro=- 1 2 IN IP4 127.0.0.1\r\n", 1, .controlCharacter),
        ("empty line", head + "\r\n", 5, .malformedLine),
        ("no equals", head + "a\r\n", 5, .malformedLine),
        ("unknown type", head + "x=1\r\n", 5, .unknownLineType("x")),
        ("upper-case type", "V=0\r\n", 1, .unknownLineType("V")),
        ("missing v=", "o=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", 1, .missingLine("v")),
        ("v=1", "v=1\r\n", 1, .unsupportedVersion),
        ("m-line before session lines", "v=0\r\nm=audio 9 RTP/AVP 0\r\n", 2, .missingLine("o")),
        ("m-line before t=", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nm=audio 9 RTP/AVP 0\r\n", 4, .missingLine("t")),
        ("no t= at all", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\n", 0, .missingLine("t")),
        ("empty", "", 0, .missingLine("v")),
        ("c= after a=", head + "a=x\r\nc=IN IP4 0.0.0.0\r\n", 6, .lineOutOfOrder("c")),
        ("second v=", head + "v=0\r\n", 5, .lineOutOfOrder("v")),
        ("second s=", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\ns=-\r\n", 4, .lineOutOfOrder("s")),
        ("r= without t=", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nr=7d 1h 0 25h\r\n", 4, .lineOutOfOrder("r")),
        ("section c= after a=", inSection("a=mid:0\r\nc=IN IP4 0.0.0.0"), 8, .lineOutOfOrder("c")),
        ("duplicated mid", sections(2).replacingOccurrences("a=mid:1", "a=mid:0"), 8, .duplicateMid("0")),
        ("two mids in a section", inSection("a=mid:0\r\na=mid:1"), 8, .malformedField(field: "mid")),
        ("port 65536", head + "m=audio 65536 RTP/AVP 0\r\n", 5, .numberOutOfRange(field: "m port")),
        ("port +80", head + "m=audio +80 RTP/AVP 0\r\n", 5, .numberOutOfRange(field: "m port")),
        ("payload type 128", head + "m=audio 9 RTP/AVP 128\r\n", 5, .numberOutOfRange(field: "payload type")),
        ("payload type 096", head + "m=audio 9 RTP/AVP 096\r\n", 5, .numberOutOfRange(field: "payload type")),
        ("payload type -1", head + "m=audio 9 RTP/AVP -1\r\n", 5, .numberOutOfRange(field: "payload type")),
        ("no format", head + "m=audio 9 RTP/AVP\r\n", 5, .malformedField(field: "m")),
        ("session id 2^64", "v=0\r\no=- 18446744073709551616 2 IN IP4 127.0.0.1\r\n", 2, .numberOutOfRange(field: "o session id")),
        ("t= negative", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=-1 0\r\n", 4, .numberOutOfRange(field: "t start")),
        ("session b= after t=", head + "b=AS:4294967296\r\n", 5, .lineOutOfOrder("b")),
        ("section b= 2^32", inSection("b=AS:4294967296"), 7, .numberOutOfRange(field: "b bandwidth")),
        ("rtpmap pt 200", inSection("a=rtpmap:200 VP8/90000"), 7, .numberOutOfRange(field: "payload type")),
        ("rtpmap clock 0", inSection("a=rtpmap:96 VP8/0"), 7, .numberOutOfRange(field: "rtpmap clock rate")),
        ("rtpmap clock huge", inSection("a=rtpmap:96 VP8/99999999999999999999999"), 7, .numberOutOfRange(field: "rtpmap clock rate")),
        ("fmtp apt 300", inSection("a=fmtp:97 apt=300"), 7, .numberOutOfRange(field: "payload type")),
        ("fmtp apt empty", inSection("a=fmtp:97 apt="), 7, .numberOutOfRange(field: "payload type")),
        ("rtcp-fb pt 128", inSection("a=rtcp-fb:128 nack"), 7, .numberOutOfRange(field: "payload type")),
        ("extmap id 0", inSection("a=extmap:0 urn:x"), 7, .numberOutOfRange(field: "extmap id")),
        ("extmap id 256", inSection("a=extmap:256 urn:x"), 7, .numberOutOfRange(field: "extmap id")),
        ("extmap id 4096", inSection("a=extmap:4096 urn:x"), 7, .numberOutOfRange(field: "extmap id")),
        ("extmap bad direction", inSection("a=extmap:1/up urn:x"), 7, .malformedField(field: "extmap direction")),
        ("ssrc 2^32", inSection("a=ssrc:4294967296 cname:x"), 7, .numberOutOfRange(field: "ssrc")),
        ("ssrc negative", inSection("a=ssrc:-1 cname:x"), 7, .numberOutOfRange(field: "ssrc")),
        ("ssrc-group 2^32", inSection("a=ssrc-group:FID 1 4294967296"), 7, .numberOutOfRange(field: "ssrc")),
        ("candidate priority 0", inSection("a=candidate:1 1 udp 0 1.2.3.4 5 typ host"), 7, .numberOutOfRange(field: "candidate priority")),
        ("candidate port 70000", inSection("a=candidate:1 1 udp 1 1.2.3.4 70000 typ host"), 7, .numberOutOfRange(field: "candidate port")),
        ("candidate rport", inSection("a=candidate:1 1 udp 1 1.2.3.4 5 typ srflx raddr 0.0.0.0 rport 65536"), 7,
         .numberOutOfRange(field: "candidate rport")),
        ("candidate no typ", inSection("a=candidate:1 1 udp 1 1.2.3.4 5 host x"), 7, .malformedField(field: "candidate")),
        ("rid pt 300", inSection("a=rid:h send pt=300"), 7, .numberOutOfRange(field: "payload type")),
        ("rid bad id", inSection("a=rid:h! send"), 7, .malformedField(field: "rid")),
        ("simulcast empty rid", inSection("a=simulcast:send h;;l"), 7, .malformedField(field: "simulcast")),
        ("simulcast send twice", inSection("a=simulcast:send h send l"), 7, .malformedField(field: "simulcast")),
        ("fingerprint bad hex", inSection("a=fingerprint:sha-256 GG:00"), 7, .malformedField(field: "fingerprint")),
        ("fingerprint signed hex", inSection("a=fingerprint:sha-256 +F:00"), 7, .malformedField(field: "fingerprint")),
        ("ice-pwd too short", inSection("a=ice-pwd:short"), 7, .malformedField(field: "ice-pwd")),
        ("ice-ufrag bad char", inSection("a=ice-ufrag:ab-cd"), 7, .malformedField(field: "ice-ufrag")),
        ("setup unknown", inSection("a=setup:both"), 7, .malformedField(field: "setup")),
        ("flag with value", inSection("a=rtcp-mux:1"), 7, .malformedField(field: "rtcp-mux")),
        ("rtpmap without value", inSection("a=rtpmap"), 7, .malformedField(field: "rtpmap")),
        ("rtcp port", inSection("a=rtcp:99999 IN IP4 0.0.0.0"), 7, .numberOutOfRange(field: "rtcp port")),
    ]

    @Test(arguments: table)
    func refusedWithItsLine(_ name: String, _ text: String, _ line: Int, _ reason: SDPError.Reason) {
        do {
            let parsed = try SessionDescription(parsing: text)
            Issue.record("\(name): accepted \(parsed.media.count) sections")
        } catch {
            #expect(error == SDPError(line: line, reason: reason), "\(name)")
            #expect(error.openTokCode == 1011)
        }
    }

    /// Bytes that are not UTF-8 (here 0xFF) in a value.
    @Test func invalidUTF8IsRefused() {
        let bytes = Array(Self.head.utf8) + Array("a=x:".utf8) + [0xFF] + [0x0D, 0x0A]
        #expect(throws: SDPError(line: 5, reason: .invalidUTF8)) { try SessionDescription(parsing: bytes) }
    }

    /// Odd but well-formed parameter lists are kept as text and read without a trap.
    @Test func oddFormatParametersAreKept() throws {
        let section = try SessionDescription(parsing: Self.inSection("a=fmtp:96 =\r\na=fmtp:97 ;;=;x")).media[0]
        #expect(section.formatParameters.map(\.parameters) == ["=", ";;=;x"])
        #expect(section.formatParameters(for: 96)?.parameter("apt") == nil)
        #expect(section.formatParameters(for: 97)?.associatedPayloadType == nil)
    }

    /// At the caps: accepted.
    @Test func descriptionsAtTheCapsAreAccepted() throws {
        #expect(try SessionDescription(parsing: Self.sections(SDPLimits.maximumMediaSections)).media.count == 128)
        let longLine = "a=x:" + String(repeating: "y", count: SDPLimits.maximumLineLength - 4)
        #expect(try SessionDescription(parsing: Self.head + longLine + "\r\n").attributes.count == 1)
        let lines = Self.head + String(repeating: "a=x\r\n", count: SDPLimits.maximumLines - 4)
        #expect(try SessionDescription(parsing: lines).attributes.count == SDPLimits.maximumLines - 4)
        var big = Self.head
        while big.utf8.count + 106 <= SDPLimits.maximumBytes - 200 { big += "a=x:" + String(repeating: "y", count: 100) + "\r\n" }
        big += "a=x:" + String(repeating: "y", count: SDPLimits.maximumBytes - big.utf8.count - 6) + "\r\n"
        #expect(big.utf8.count == SDPLimits.maximumBytes)
        #expect(try SessionDescription(parsing: big).attributes.count > 600)
        #expect(throws: SDPError(line: 0, reason: .tooLarge(bytes: SDPLimits.maximumBytes + 1))) {
            try SessionDescription(parsing: big + "\n")
        }
        let numbers = Self.inSection("a=ssrc:4294967295 cname:x\r\na=extmap:255 urn:x\r\na=rtpmap:127 x/10000000/255")
        #expect(try SessionDescription(parsing: numbers).media[0].ssrcs.first?.ssrc == UInt32.max)
    }
}

extension String {
    /// Every `target` replaced by `replacement` (no Foundation here).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
