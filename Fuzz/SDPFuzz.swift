import OTSignaling

/// libFuzzer target: SDP text as a browser (or an attacker) sends it over signaling.
/// - parse → serialize → parse must give the same description and the same text (a
///   description that parses once is written in a form that parses again);
/// - whatever parses is answered as a publisher's offer and read as a subscriber's answer
///   to the router's offer: each is a value or a thrown error, never a trap, and an answer
///   the router makes must parse back to itself.
/// A violated property is reported with `fatalError`, which libFuzzer records as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let parsed = try? SessionDescription(parsing: bytes) else { return 0 }
    let text = parsed.text
    guard let again = try? SessionDescription(parsing: text) else { fatalError("serialized SDP does not parse:\n\(text)") }
    guard again == parsed, again.text == text else { fatalError("parse → serialize → parse is not stable:\n\(text)") }
    if let answer = try? JSEP.answer(offer: parsed, local: SDPFuzzFixture.local, sessionID: 1) {
        guard (try? SessionDescription(parsing: answer.answer.text)) == answer.answer else {
            fatalError("the router's answer does not parse back:\n\(answer.answer.text)")
        }
    }
    _ = try? JSEP.readSubscriberAnswer(parsed, offer: SDPFuzzFixture.subscriberOffer)
    for section in parsed.media {
        // Every typed reader on whatever parsed.
        _ = (section.rtpMaps, section.formatParameters, section.rtcpFeedback, section.extmaps, section.rids,
             section.simulcast, section.ssrcs, section.ssrcGroups, section.msid, section.candidates, section.fingerprint,
             section.setup, section.direction, section.payloadTypes)
    }
    return 0
}

/// The router's transport and its offer to a subscriber (audio + video).
enum SDPFuzzFixture {
    static let local = SDPLocalTransport(iceUfrag: "rOtR", icePwd: "routerPasswordRouterPwd1",
                                         fingerprint: SDPFingerprint(algorithm: "sha-256", bytes: Array(0..<32)),
                                         candidates: [SDPHostCandidate(address: "127.0.0.1", port: 50_000)])
    static let subscriberOffer: SessionDescription = {
        let tracks = [
            SDPOutgoingTrack(kind: .audio, mid: "0", ssrc: 1111, cname: "router", streamID: "stream1", trackID: "audio1"),
            SDPOutgoingTrack(kind: .video, mid: "1", ssrc: 2222, rtxSSRC: 3333, cname: "router", streamID: "stream1", trackID: "video1"),
        ]
        guard let offer = try? JSEP.subscriberOffer(tracks: tracks, local: local, sessionID: 43) else { fatalError("fixture offer") }
        return offer
    }()
}
