import Testing
@testable import OTSignaling

/// The router's offer to a browser subscriber and its reading of the browser's answer.
@Suite struct JSEPSubscriberTests {
    static let tracks = [
        SDPOutgoingTrack(kind: .audio, mid: "0", ssrc: 1111, cname: "router", streamID: "stream1", trackID: "audio1"),
        SDPOutgoingTrack(kind: .video, mid: "1", ssrc: 2222, rtxSSRC: 3333, cname: "router", streamID: "stream1", trackID: "video1"),
    ]

    /// The offer Chromium answered in ``SDPVectors/chromeSubscriberAnswer``.
    static var offer: SessionDescription {
        get throws { try JSEP.subscriberOffer(tracks: tracks, local: JSEPPublisherAnswerTests.local, sessionID: 43) }
    }

    @Test func offerCarriesTheRouterSourcesAndCodecs() throws {
        let offer = try Self.offer
        #expect(try SessionDescription(parsing: offer.text) == offer)
        #expect(offer.bundle == ["0", "1"] && offer.has("ice-lite"))
        let audio = offer.media[0], video = offer.media[1]
        #expect(audio.formats == ["111"] && video.formats == ["96", "97"])
        #expect(audio.rtpMap(for: 111) == SDPRtpMap(payloadType: 111, encoding: "opus", clockRate: 48_000, channels: 2))
        #expect(video.rtpMap(for: 96)?.encoding == "VP8" && video.formatParameters(for: 97)?.associatedPayloadType == 96)
        for section in offer.media {
            #expect(section.direction == .sendonly && section.setup == .actpass && section.rtcpMux)
            #expect(section.msid?.stream == "stream1")
            #expect(section.candidates.count == 1 && section.port == 50_000)
            #expect(section.extmaps.contains(SDPExtmap(id: 3, uri: SDPHeaderExtension.transportWideCC)))
            #expect(section.extmaps.contains(SDPExtmap(id: 4, uri: SDPHeaderExtension.mid)))
        }
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [2222, 3333])])
        #expect(Set(video.ssrcs.filter { $0.attribute == "cname" }.map(\.ssrc)) == [2222, 3333])
        #expect(audio.ssrcs.contains(SDPSSRCAttribute(ssrc: 1111, attribute: "msid", value: "stream1 audio1")))
        #expect(video.rtcpFeedback(for: 96).count == 5 && audio.rtcpFeedback(for: 111).map(\.type) == ["transport-cc"])
        // One id means one URI across the bundle (RFC 8843 §9.1).
        var uris: [UInt8: String] = [:]
        for extmap in offer.media.flatMap(\.extmaps) {
            #expect(uris[extmap.id, default: extmap.uri] == extmap.uri)
            uris[extmap.id] = extmap.uri
        }
    }

    @Test func chromiumAnswerIsRead() throws {
        let answer = try SessionDescription(parsing: SDPVectors.chromeSubscriberAnswer)
        let result = try JSEP.readSubscriberAnswer(answer, offer: try Self.offer)
        #expect(result.remote.setup == .active)
        #expect(result.remote.iceUfrag == answer.media[0].iceUfrag && result.remote.fingerprint == answer.media[0].fingerprint)
        #expect(result.media.map(\.mid) == ["0", "1"] && result.rejectedMids.isEmpty)
        let audio = result.media[0], video = result.media[1]
        #expect(audio.direction == .sendonly && video.direction == .sendonly)
        #expect(audio.payloadType == 111 && video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.ssrcs == [2222] && video.rtxSSRCs == [2222: 3333])
        #expect(audio.extensionIDs[SDPHeaderExtension.audioLevel] == 1 && video.extensionIDs[SDPHeaderExtension.transportWideCC] == 3)
        #expect(video.hasFeedback("transport-cc") && video.hasFeedback("nack", "pli") && video.hasFeedback("goog-remb"))
    }

    /// Firefox puts its fingerprint at session level: read from there.
    @Test func firefoxAnswerIsRead() throws {
        let answer = try SessionDescription(parsing: SDPVectors.firefoxSubscriberAnswer)
        let result = try JSEP.readSubscriberAnswer(answer, offer: try Self.offer)
        #expect(result.remote.setup == .active && result.remote.fingerprint == answer.fingerprint)
        #expect(result.media.map(\.direction) == [.sendonly, .sendonly])
        #expect(result.media[1].rtxPayloadType == 97 && result.media[0].extensionIDs[SDPHeaderExtension.mid] == 4)
    }

    static let refused: [(String, String, SDPNegotiationError.Reason, String?)] = [
        ("passive answer", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("a=setup:active", "a=setup:passive"),
         .unusableSetup(.passive), "0"),
        ("actpass answer", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("a=setup:active", "a=setup:actpass"),
         .unusableSetup(.actpass), "0"),
        ("payload type not offered", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("SAVPF 96 97", "SAVPF 96 98"),
         .payloadTypeNotOffered, "1"),
        ("codec dropped", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("SAVPF 96 97", "SAVPF 97"), .payloadTypeNotOffered, "1"),
        ("sendrecv answer", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("a=recvonly", "a=sendrecv"),
         .unexpectedDirection(.sendrecv), "0"),
        ("no rtcp-mux", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("a=rtcp-mux\r\n", ""), .rtcpMuxRequired, "0"),
        ("mid changed", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("a=mid:1", "a=mid:x"), .answerDoesNotMatchOffer, "1"),
        ("kind changed", SDPVectors.chromeSubscriberAnswer.replacingOccurrences("m=video 9", "m=audio 9"), .answerDoesNotMatchOffer, "1"),
        ("section missing", SDPVectors.chromeSubscriberAnswer.split(separator: "m=video", maxSplits: 1).map(String.init)[0], .answerDoesNotMatchOffer, nil),
        ("no BUNDLE", JSEPPublisherAnswerTests.dropLines(SDPVectors.chromeSubscriberAnswer, "a=group:BUNDLE"), .bundleRequired, nil),
    ]

    @Test(arguments: refused)
    func unusableAnswersAreRefusedWith1600(_ name: String, _ text: String, _ reason: SDPNegotiationError.Reason, _ mid: String?) throws {
        let answer = try SessionDescription(parsing: text)
        #expect(throws: SDPNegotiationError(.subscriberAnswer, reason, mid: mid), "\(name)") {
            try JSEP.readSubscriberAnswer(answer, offer: try Self.offer)
        }
        #expect(SDPNegotiationError(.subscriberAnswer, reason).openTokCode == 1600)
    }

    /// A browser that rejects the video (port 0) still gets its audio.
    @Test func rejectedSectionIsListed() throws {
        let text = SDPVectors.chromeSubscriberAnswer.replacingOccurrences("m=video 9", "m=video 0")
        let result = try JSEP.readSubscriberAnswer(try SessionDescription(parsing: text), offer: try Self.offer)
        #expect(result.media.map(\.mid) == ["0"] && result.rejectedMids == ["1"])
    }

    @Test func badTracksAreRefusedBeforeAnyOfferIsMade() {
        let local = JSEPPublisherAnswerTests.local
        #expect(throws: SDPNegotiationError.self) { try JSEP.subscriberOffer(tracks: [], local: local, sessionID: 1) }
        #expect(throws: SDPNegotiationError.self) { try JSEP.subscriberOffer(tracks: [Self.tracks[0], Self.tracks[0]], local: local, sessionID: 1) }
        var spaced = Self.tracks[0]
        spaced.cname = "two words"
        #expect(throws: SDPNegotiationError.self) { try JSEP.subscriberOffer(tracks: [spaced], local: local, sessionID: 1) }
    }
}
