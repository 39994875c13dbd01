import Testing
@testable import OTSignaling

/// The router's answer to browser publishers' offers: what it accepts, echoes and rejects.
@Suite struct JSEPPublisherAnswerTests {
    static let local = SDPLocalTransport(iceUfrag: "rOtR", icePwd: "routerPasswordRouterPwd1",
                                         fingerprint: SDPFingerprint(algorithm: "sha-256", bytes: Array(0..<32)),
                                         candidates: [SDPHostCandidate(address: "127.0.0.1", port: 50_000)])

    static func answer(_ offerText: String) throws -> (SessionDescription, JSEPPublisherAnswer) {
        let offer = try SessionDescription(parsing: offerText)
        return (offer, try JSEP.answer(offer: offer, local: local, sessionID: 42))
    }

    static let offers = SDPVectors.all.filter { !["rfc8866Example", "chromeSubscriberAnswer", "firefoxSubscriberAnswer"].contains($0.0) }

    /// The invariants of every answer: it parses back; one answer section per offered one;
    /// accepted sections echo the offer's payload types, every offered supported extension
    /// id (1-14) and nothing else, RTX with `apt`; rejected ones have port 0; BUNDLE lists
    /// exactly the accepted mids; the router is ICE-lite and the DTLS server.
    @Test(arguments: offers)
    func answerInvariants(_ name: String, _ text: String) throws {
        let (offer, result) = try Self.answer(text)
        let answer = result.answer
        #expect(try SessionDescription(parsing: answer.text) == answer, "\(name)")
        #expect(answer.media.count == offer.media.count)
        #expect(answer.has("ice-lite"))
        #expect(answer.bundle == result.media.map(\.mid))
        for (offered, answered) in zip(offer.media, answer.media) {
            #expect(answered.kind == offered.kind && answered.mid == offered.mid, "\(name)")
            guard let negotiated = result.media.first(where: { $0.mid == offered.mid }) else {
                #expect(answered.port == 0, "\(name) mid \(offered.mid ?? "?") rejected")
                #expect(answered.formats == offered.formats)
                continue
            }
            #expect(answered.port == 50_000 && answered.setup == .passive && answered.rtcpMux)
            #expect(answered.iceUfrag == "rOtR" && answered.fingerprint == Self.local.fingerprint)
            #expect(answered.candidates.map(\.address) == ["127.0.0.1"] && answered.has("end-of-candidates"))
            #expect(answered.payloadTypes.allSatisfy(offered.payloadTypes.contains))
            #expect(answered.payloadTypes.first == negotiated.payloadType)
            let codec = try #require(offered.rtpMap(for: negotiated.payloadType))
            #expect(codec.isEncoding(negotiated.kind == .video ? "VP8" : "opus"))
            if let rtx = negotiated.rtxPayloadType {
                #expect(answered.formatParameters(for: rtx)?.associatedPayloadType == negotiated.payloadType)
                #expect(offered.formatParameters(for: rtx)?.associatedPayloadType == negotiated.payloadType)
            }
            let supported = negotiated.kind == .video ? SDPHeaderExtension.video : SDPHeaderExtension.audio
            let expected = offered.extmaps.filter { supported.contains($0.uri) && $0.id <= 14 }.map { SDPExtmap(id: $0.id, uri: $0.uri) }
            #expect(answered.extmaps == expected, "\(name)")
            #expect(negotiated.extensionIDs.count == expected.count)
            for feedback in answered.rtcpFeedback {
                #expect(offered.rtcpFeedback(for: negotiated.payloadType).contains {
                    $0.type == feedback.type && $0.parameter == feedback.parameter
                })
            }
            #expect(answered.direction == .recvonly)
        }
    }

    @Test func chromePublisherIsAnsweredWithItsOwnNumbers() throws {
        let (offer, result) = try Self.answer(SDPVectors.chromePublisher)
        #expect(result.media.map(\.mid) == ["0", "1"])
        let audio = result.media[0], video = result.media[1]
        #expect(audio.payloadType == 111 && audio.rtxPayloadType == nil)
        #expect(video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(audio.extensionIDs == [SDPHeaderExtension.audioLevel: 1, SDPHeaderExtension.absSendTime: 2,
                                       SDPHeaderExtension.transportWideCC: 3, SDPHeaderExtension.mid: 4])
        #expect(video.extensionIDs == [SDPHeaderExtension.absSendTime: 2, SDPHeaderExtension.transportWideCC: 3,
                                       SDPHeaderExtension.mid: 4, SDPHeaderExtension.rtpStreamID: 10,
                                       SDPHeaderExtension.repairedRTPStreamID: 11])
        for (type, parameter) in [("nack", nil), ("nack", "pli"), ("ccm", "fir"), ("goog-remb", nil), ("transport-cc", nil)] as [(String, String?)] {
            #expect(video.hasFeedback(type, parameter))
        }
        #expect(audio.hasFeedback("transport-cc") && audio.rtcpFeedback.count == 1)
        #expect(result.answer.media[1].formats == ["96", "97"] && result.answer.media[0].formats == ["111"])
        // The browser's transport, for the ICE-lite agent and the DTLS fingerprint check.
        #expect(result.remote.iceUfrag == offer.media[0].iceUfrag && result.remote.setup == .actpass)
        #expect(result.remote.fingerprint == offer.media[0].fingerprint)
        // Its announced sources: one audio SSRC; video SSRC with its RTX pair.
        #expect(audio.ssrcs.count == 1 && video.ssrcs.count == 1)
        #expect(video.rtxSSRCs[video.ssrcs[0]] != nil)
    }

    @Test func simulcastIsReceivedWithTheOfferedRids() throws {
        let (_, result) = try Self.answer(SDPVectors.chromeSimulcast)
        #expect(result.media[1].rids == ["q", "h", "f"])
        let video = result.answer.media[1]
        #expect(video.rids == ["q", "h", "f"].map { SDPRid(id: $0, direction: .recv) })
        #expect(video.simulcast == SDPSimulcast(recv: [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]]))
        #expect(video.simulcast?.send == nil)
    }

    /// Simulcast needs the rtp-stream-id extension to tell layers apart: without it the
    /// answer has no rids (the browser then sends one layer).
    @Test func simulcastWithoutStreamIDExtensionIsNotAccepted() throws {
        let text = SDPVectors.chromeSimulcast.replacingOccurrences("a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\n", "")
        let (_, result) = try Self.answer(text)
        #expect(result.media[1].rids.isEmpty && result.answer.media[1].simulcast == nil && result.answer.media[1].rids.isEmpty)
    }

    @Test func h264OnlyVideoAndDataChannelAreRejectedWithPortZero() throws {
        let (offer, result) = try Self.answer(SDPVectors.chromeH264AndDataChannel)
        #expect(offer.media.map(\.kind) == ["audio", "video", "application"])
        #expect(result.media.map(\.mid) == ["0"])
        #expect(result.answer.media.map(\.port) == [50_000, 0, 0])
        #expect(result.answer.bundle == ["0"])
        #expect(result.answer.media[2].formats == ["webrtc-datachannel"] && result.answer.media[2].mid == "2")
    }

    @Test func sendrecvOfferIsAnsweredRecvonly() throws {
        let (offer, result) = try Self.answer(SDPVectors.chromeAddTrack)
        #expect(offer.media.allSatisfy { $0.direction == .sendrecv })
        #expect(result.media.allSatisfy { $0.direction == .recvonly })
    }

    /// RFC 8829's example uses other numbers than Chrome (Opus 96, VP8 100, RTX 101, mid
    /// extension 1): they are echoed, never the router's own.
    @Test func rfc8829OfferNumbersAreEchoed() throws {
        let (_, result) = try Self.answer(SDPVectors.rfc8829Offer)
        #expect(result.media.map(\.mid) == ["a1", "v1"])
        #expect(result.media[0].payloadType == 96 && result.media[1].payloadType == 100 && result.media[1].rtxPayloadType == 101)
        #expect(result.answer.media[1].formats == ["100", "101"])
        #expect(result.media[0].extensionIDs == [SDPHeaderExtension.mid: 1, SDPHeaderExtension.audioLevel: 2])
        #expect(result.media[1].extensionIDs == [SDPHeaderExtension.mid: 1])
        #expect(result.remote.iceUfrag == "ETEn")
        #expect(result.answer.bundle == ["a1", "v1"])
    }

    /// Firefox's offers: its own payload types (Opus 109, VP8 120 / RTX 124), a
    /// session-level fingerprint, no candidates (trickle), a `/recvonly` extmap.
    @Test func firefoxOffersAreAnsweredWithTheirNumbers() throws {
        let (offer, result) = try Self.answer(SDPVectors.firefoxPublisher)
        #expect(result.media.map(\.payloadType) == [109, 120] && result.media[1].rtxPayloadType == 124)
        #expect(result.remote.fingerprint == offer.fingerprint && offer.media[0].fingerprint == nil)
        let (_, simulcast) = try Self.answer(SDPVectors.firefoxSimulcast)
        #expect(simulcast.media[1].rids == ["q", "h", "f"])
    }

    /// A two-byte-only id (above 14) is not echoed: the answer has no `extmap-allow-mixed`,
    /// so the browser may only use one-byte header extensions.
    @Test func twoByteExtensionIDsAreNotEchoed() throws {
        let text = SDPVectors.chromePublisher.replacingOccurrences("a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=extmap:16 urn:ietf:params:rtp-hdrext:sdes:mid")
        let (_, result) = try Self.answer(text)
        #expect(result.media.allSatisfy { $0.extensionIDs[SDPHeaderExtension.mid] == nil })
        #expect(result.answer.media.allSatisfy { !$0.extmaps.contains { $0.uri == SDPHeaderExtension.mid } })
        #expect(!result.answer.has("extmap-allow-mixed"))
    }

    /// An `active` offerer is fine (the router is passive either way).
    @Test func activeOffererIsAccepted() throws {
        let (_, result) = try Self.answer(SDPVectors.chromePublisher.replacingOccurrences("a=setup:actpass", "a=setup:active"))
        #expect(result.remote.setup == .active)
        #expect(result.answer.media.allSatisfy { $0.setup == .passive })
    }

    static let refused: [(String, String, SDPNegotiationError.Reason)] = [
        ("passive offer", SDPVectors.chromePublisher.replacingOccurrences("a=setup:actpass", "a=setup:passive"), .unusableSetup(.passive)),
        ("holdconn offer", SDPVectors.chromePublisher.replacingOccurrences("a=setup:actpass", "a=setup:holdconn"), .unusableSetup(.holdconn)),
        ("no setup", SDPVectors.chromePublisher.replacingOccurrences("a=setup:actpass\r\n", ""), .unusableSetup(nil)),
        ("no rtcp-mux", SDPVectors.chromePublisher.replacingOccurrences("a=rtcp-mux\r\n", ""), .rtcpMuxRequired),
        ("no VP8 nor Opus", SDPVectors.chromePublisher.replacingOccurrences("VP8/", "VP7/").replacingOccurrences("opus/", "opuz/"),
         .noAcceptableMedia),
        ("no fingerprint", dropLines(SDPVectors.chromePublisher, "a=fingerprint:"), .missingFingerprint),
        ("sha-1 fingerprint", SDPVectors.chromePublisher.replacingOccurrences("a=fingerprint:sha-256", "a=fingerprint:sha-1"),
         .unsupportedFingerprint("sha-1")),
        ("no ice-ufrag", dropLines(SDPVectors.chromePublisher, "a=ice-ufrag:"), .missingICECredentials),
        ("no BUNDLE", dropLines(SDPVectors.chromePublisher, "a=group:BUNDLE"), .bundleRequired),
        ("no mid", dropLines(SDPVectors.chromePublisher, "a=mid:"), .missingMid),
    ]

    @Test(arguments: refused)
    func unusableOffersAreRefusedWith1610(_ name: String, _ text: String, _ reason: SDPNegotiationError.Reason) throws {
        let offer = try SessionDescription(parsing: text)
        #expect(throws: SDPNegotiationError(.publisherOffer, reason, mid: reason == .bundleRequired || reason == .missingMid
                                                || reason == .noAcceptableMedia ? nil : "0")) {
            try JSEP.answer(offer: offer, local: Self.local, sessionID: 1)
        }
        #expect(SDPNegotiationError(.publisherOffer, reason).openTokCode == 1610)
    }

    @Test func invalidLocalTransportIsAnInternalError() throws {
        let offer = try SessionDescription(parsing: SDPVectors.chromePublisher)
        var local = Self.local
        local.icePwd = "short"
        #expect(throws: SDPNegotiationError(.local, .invalidLocalTransport(field: "ice-pwd"))) {
            try JSEP.answer(offer: offer, local: local, sessionID: 1)
        }
        local = Self.local
        local.candidates = []
        do {
            _ = try JSEP.answer(offer: offer, local: local, sessionID: 1)
            Issue.record("answered without candidates")
        } catch {
            #expect(error.openTokCode == 2000)
        }
    }

    static func dropLines(_ text: String, _ prefix: String) -> String {
        text.split(separator: "\r\n").filter { !$0.hasPrefix(prefix) }.joined(separator: "\r\n") + "\r\n"
    }
}
