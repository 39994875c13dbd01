import Testing
@testable import OTSignaling

/// Numbers in client messages are range-checked as they decode (`ClientMessageLimits`):
/// what no field can hold, or what no video has, is refused with `.outOfRange` (the
/// router answers 1011), before any code converts or multiplies it.
@Suite struct SignalingCodecRangeTests {
    static func preferences(_ fields: String) -> String {
        #"{"type":"subscriberPreferences","requestId":1,"body":{"subscriberId":"s",\#(fields)}}"#
    }

    static func publish(width: String, height: String = "480") -> String {
        #"{"type":"publish","requestId":1,"body":{"name":"n","hasAudio":true,"hasVideo":true,"audioTrack":true,"videoTrack":true,"videoWidth":\#(width),"videoHeight":\#(height),"videoType":"camera"}}"#
    }

    /// Out of range: refused naming the field.
    static let outOfRange: [(String, String)] = [
        (preferences(#""preferredFrameRate":1e300"#), "preferredFrameRate"),
        (preferences(#""preferredFrameRate":-1e300"#), "preferredFrameRate"),
        (preferences(#""preferredFrameRate":-1"#), "preferredFrameRate"),
        (preferences(#""preferredFrameRate":1000.5"#), "preferredFrameRate"),
        (preferences(#""preferredFrameRate":9223372036854775807"#), "preferredFrameRate"),
        (preferences(#""preferredWidth":9223372036854775807"#), "preferredWidth"),
        (preferences(#""preferredWidth":-1"#), "preferredWidth"),
        (preferences(#""preferredHeight":16385"#), "preferredHeight"),
        (publish(width: "9223372036854775807"), "videoWidth"),
        (publish(width: "-9223372036854775808"), "videoWidth"),
        (publish(width: "640", height: "100000"), "videoHeight"),
        // A stream's new encoded size (issue 15: videoDimensions changes).
        (#"{"type":"streamChanged","requestId":1,"body":{"streamId":"s","videoWidth":16385,"videoHeight":10}}"#, "videoWidth"),
        (#"{"type":"streamChanged","requestId":1,"body":{"streamId":"s","videoWidth":10,"videoHeight":-1}}"#, "videoHeight"),
    ]

    @Test(arguments: outOfRange)
    func outOfRangeNumbersAreRefused(_ text: String, _ field: String) {
        do {
            _ = try SignalingCodec.decodeClientMessage(text)
            Issue.record("accepted: \(text)")
        } catch {
            guard case .outOfRange(let what) = error else { Issue.record("\(error) for \(text)"); return }
            #expect(what.contains(field))
        }
    }

    /// What no Swift number holds, or not JSON: refused as malformed, never a trap.
    @Test(arguments: [
        preferences(#""preferredWidth":1e300"#),
        preferences(#""preferredWidth":18446744073709551616"#),
        preferences(#""preferredFrameRate":NaN"#),
        publish(width: "-9223372036854775809"),
        publish(width: "1e30"),
        #"{"type":"ping","requestId":1e300}"#,
        #"{"type":"ping","requestId":18446744073709551616}"#,
    ])
    func unrepresentableNumbersAreRefused(_ text: String) {
        #expect(throws: SignalingDecodingError.self) { try SignalingCodec.decodeClientMessage(text) }
    }

    /// At the edges of the ranges: accepted as sent.
    @Test func numbersAtTheEdgesAreAccepted() throws {
        let rates: [Double] = [0, 0.5, 7.5, 1000]
        for rate in rates {
            let (message, _) = try SignalingCodec.decodeClientMessage(Self.preferences(#""preferredWidth":16384,"preferredHeight":0,"preferredFrameRate":\#(rate)"#))
            #expect(message == .subscriberPreferences(SubscriberPreferences(subscriberId: "s", preferredWidth: 16384, preferredHeight: 0,
                                                                            preferredFrameRate: rate)))
        }
        let (publish, _) = try SignalingCodec.decodeClientMessage(Self.publish(width: "16384", height: "0"))
        guard case .publish(let request) = publish else { Issue.record("not a publish"); return }
        #expect(request.videoWidth == 16384 && request.videoHeight == 0)
    }

    /// A client clamps before it sends: huge means the most there is, NaN/0/negative none.
    @Test func clientsClampToTheSameRanges() {
        #expect(ClientMessageLimits.clampedFrameRate(.nan) == nil)
        #expect(ClientMessageLimits.clampedFrameRate(-1e300) == nil)
        #expect(ClientMessageLimits.clampedFrameRate(0) == nil)
        #expect(ClientMessageLimits.clampedFrameRate(15) == 15)
        #expect(ClientMessageLimits.clampedFrameRate(1e300) == ClientMessageLimits.maximumFrameRate)
        #expect(ClientMessageLimits.clampedFrameRate(.infinity) == ClientMessageLimits.maximumFrameRate)
        #expect(ClientMessageLimits.clampedDimension(Int.max) == ClientMessageLimits.maximumDimension)
        #expect(ClientMessageLimits.clampedDimension(Int.min) == nil)
        #expect(ClientMessageLimits.clampedDimension(640) == 640)
    }
}
