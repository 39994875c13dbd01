import Testing
@testable import OTSignaling

/// Parsing real and RFC descriptions: the text written back is the text read (CRLF), and
/// the typed readers see what browsers put there.
@Suite struct SDPParseTests {
    @Test(arguments: SDPVectors.all)
    func serializingWhatWasParsedGivesTheSameText(_ name: String, _ text: String) throws {
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed.text == text, "\(name)")
        #expect(try SessionDescription(parsing: parsed.text) == parsed, "\(name)")
    }

    /// LF-only input (what hand-written SDP and some tools send) reads the same and is
    /// written back with CRLF.
    @Test func lfLineEndingsAreReadAndWrittenAsCRLF() throws {
        let lf = SDPVectors.chromePublisher.split(separator: "\r\n").joined(separator: "\n") + "\n"
        let parsed = try SessionDescription(parsing: lf)
        #expect(parsed == (try SessionDescription(parsing: SDPVectors.chromePublisher)))
        #expect(parsed.text == SDPVectors.chromePublisher)
        // The last line may lack its line ending.
        #expect(try SessionDescription(parsing: String(lf.dropLast())) == parsed)
    }

    @Test func chromePublisherOfferReadsAsChromeWroteIt() throws {
        let offer = try SessionDescription(parsing: SDPVectors.chromePublisher)
        #expect(offer.bundle == ["0", "1"])
        #expect(offer.media.map(\.kind) == ["audio", "video"])
        let audio = offer.media[0], video = offer.media[1]
        #expect(audio.mid == "0" && video.mid == "1")
        #expect(audio.direction == .sendonly && video.direction == .sendonly)
        #expect(audio.rtcpMux && video.rtcpMux)
        #expect(audio.setup == .actpass)
        #expect(audio.iceUfrag?.count == 4 && (audio.icePwd?.count ?? 0) >= 22)
        #expect(audio.fingerprint?.algorithm == "sha-256" && audio.fingerprint?.bytes.count == 32)
        #expect(audio.rtpMap(for: 111) == SDPRtpMap(payloadType: 111, encoding: "opus", clockRate: 48_000, channels: 2))
        #expect(audio.formatParameters(for: 111)?.parameter("useinbandfec") == "1")
        #expect(audio.rtcpFeedback(for: 111).map(\.type) == ["transport-cc"])
        #expect(audio.extmaps.contains(SDPExtmap(id: 1, uri: SDPHeaderExtension.audioLevel)))
        #expect(video.rtpMap(for: 96)?.isEncoding("vp8") == true)
        #expect(video.formatParameters(for: 97)?.associatedPayloadType == 96)
        let feedback = video.rtcpFeedback(for: 96).map { $0.type + ($0.parameter.map { " " + $0 } ?? "") }
        #expect(Set(feedback).isSuperset(of: ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"]))
        #expect(video.extmaps.first { $0.uri == SDPHeaderExtension.rtpStreamID }?.id == 10)
        // One media SSRC and its RTX in an FID group, each with a cname; the track's msid.
        let fid = try #require(video.ssrcGroups.first { $0.semantics == "FID" })
        #expect(fid.ssrcs.count == 2)
        #expect(video.ssrcs.filter { $0.attribute == "cname" }.map(\.ssrc) == fid.ssrcs)
        #expect(video.msid?.stream == audio.msid?.stream && video.msid?.track != nil)
        let candidate = try #require(audio.candidates.first)
        #expect(candidate.address == "127.0.0.1" && candidate.type == "host" && candidate.component == 1)
        #expect(audio.candidates.contains { $0.transport == "tcp" && $0.extensions.contains { $0 == ("tcptype", "active") } })
    }

    @Test func chromeSimulcastOfferHasThreeSendRids() throws {
        let video = try SessionDescription(parsing: SDPVectors.chromeSimulcast).media[1]
        #expect(video.rids == ["q", "h", "f"].map { SDPRid(id: $0, direction: .send) })
        #expect(video.simulcast == SDPSimulcast(send: [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]]))
        // Chromium announces no SSRC for simulcast: they are learned from the packets' rids.
        #expect(video.ssrcs.isEmpty)
    }

    @Test func rfc8866ExampleKeepsEveryLine() throws {
        let description = try SessionDescription(parsing: SDPVectors.rfc8866Example)
        #expect(description.origin == SDPOrigin(username: "jdoe", sessionID: 3_724_394_400, sessionVersion: 3_724_394_405,
                                                address: "198.51.100.1"))
        #expect(description.sessionName == "Call to John Smith")
        #expect(description.lines.map(\.type) == ["i", "u", "e", "p", "c", "t"])
        #expect(description.media.map(\.port) == [49_170, 49_180, 51_372])
        #expect(description.media[2].lines == [SDPLine("c", "IN IP6 2001:db8::2")])
        #expect(description.media[2].rtpMap(for: 99)?.encoding == "h263-1998")
    }

    /// Typed values read back what they write, including the rarer forms.
    @Test func typedValuesRoundTrip() throws {
        let texts: [(any SDPAttributeValue.Type, String)] = [
            (SDPExtmap.self, "5/recvonly urn:ietf:params:rtp-hdrext:toffset"),
            (SDPExtmap.self, "200 urn:x attr1 attr2"),
            (SDPSimulcast.self, "send a,~b;c recv d"),
            (SDPSimulcast.self, "recv 1;2;3"),
            (SDPRid.self, "1 recv pt=96,97;max-width=640;max-height=360"),
            (SDPRTCPFeedback.self, "* transport-cc"),
            (SDPSSRCGroup.self, "SIM 1 2 3"),
            (SDPSSRCAttribute.self, "4294967295 cname:x"),
            (SDPCandidate.self, "842163049 1 udp 1677729535 203.0.113.7 50000 typ srflx raddr 10.0.0.1 rport 50000 generation 0"),
            (SDPFingerprint.self, "sha-1 00:FF"),
            (SDPMsid.self, "- track"),
            (SDPGroup.self, "BUNDLE"),
        ]
        for (type, text) in texts {
            let value = try type.init(sdpValue: Substring(text))
            #expect(value.sdpValue == text)
        }
    }

    /// A description built from Swift values (no text) writes SDP that parses back to it:
    /// what native clients will use to describe themselves.
    @Test func builtFromSwiftParsesBack() throws {
        var section = SDPMediaDescription(kind: "video", port: 9, proto: JSEP.proto, formats: ["96", "97"],
                                          lines: [SDPLine("c", "IN IP4 0.0.0.0")])
        section.append("mid", "v")
        section.append(SDPRtpMap(payloadType: 96, encoding: "VP8", clockRate: 90_000))
        section.append(SDPRtpMap(payloadType: 97, encoding: "rtx", clockRate: 90_000))
        section.append(SDPFormatParameters(payloadType: 97, parameters: "apt=96"))
        section.append(SDPSSRCGroup(semantics: "FID", ssrcs: [1, 2]))
        section.append("sendonly")
        var description = SessionDescription(origin: SDPOrigin(sessionID: 1, sessionVersion: 1), media: [section])
        description.append(SDPGroup(semantics: "BUNDLE", mids: ["v"]))
        let parsed = try SessionDescription(parsing: description.text)
        #expect(parsed == description)
        #expect(parsed.media[0].direction == .sendonly && parsed.media[0].formatParameters(for: 97)?.associatedPayloadType == 96)
    }
}
