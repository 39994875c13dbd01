import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// Numbers a client makes up, over a real router's WebSocket signaling with the real SFU
/// behind it: every numeric field of every client message type (`ClientMessage.swift`),
/// the envelope's `requestId` included, gets values no field can hold (1e300, NaN as
/// JSON text, 1e400, integers past 64 bits). Each is answered with OpenTok's 1011 and
/// counted; the session goes on serving: another client still gets signals, and the
/// sender's own subscription still takes valid preferences. Before the codec checked
/// ranges, `preferredFrameRate: 1e300` trapped in `ForwardingGroup.setPreferences` and
/// took every session on the router down.
@Suite(.serialized) struct SignalingNumberRangeTests {
    /// Values that fit no numeric field: out of `Int`/`UInt32` range, not JSON, or a
    /// double far outside any frame rate.
    static let badNumbers = ["1e300", "-1e300", "NaN", "1e400", "1e30", "18446744073709551616", "-9223372036854775809"]

    /// One client message per row: its `type`, and its body with `#` where the number
    /// under test goes (nil body: none; the templates mark fields as `<W>`). `requestId` rows put the number in the envelope.
    struct Row: CustomStringConvertible {
        var type: String
        var field: String
        var body: String?
        var description: String { "\(type).\(field)" }
    }

    /// Every client message type with a valid body (the number goes into `requestId`),
    /// then every numeric body field.
    static func rows(subscriberId: String) -> [Row] {
        let publish = #"{"name":"n","hasAudio":true,"hasVideo":true,"audioTrack":true,"videoTrack":true,"videoWidth":<W>,"videoHeight":<H>,"videoType":"camera","simulcastLayers":<L>,"relayedLeg":{"host":"127.0.0.1","port":<P>,"profile":"AES_CM_128_HMAC_SHA1_80","clientKey":"a","routerKey":"b","audioSSRC":<A>,"videoSSRC":<V>,"simulcastSSRCs":[<S>]}}"#
        let valid = ["W": "640", "H": "480", "L": "1", "P": "5000", "A": "1", "V": "2", "S": "3"]
        func publishWith(_ key: String) -> String {
            valid.reduce(publish) { text, pair in text.replacingOccurrences(of: "<\(pair.key)>", with: pair.key == key ? "#" : pair.value) }
        }
        let preferences = #"{"subscriberId":"\#(subscriberId)","preferredWidth":<W>,"preferredHeight":<H>,"preferredFrameRate":<F>}"#
        func preferencesWith(_ key: String) -> String {
            ["W": "320", "H": "240", "F": "15"].reduce(preferences) { text, pair in
                text.replacingOccurrences(of: "<\(pair.key)>", with: pair.key == key ? "#" : pair.value)
            }
        }
        let everyType: [(String, String?)] = [
            ("connect", #"{"apiKey":"x","token":"y"}"#),
            ("publish", publishWith("")),
            ("unpublish", #"{"streamId":"s"}"#),
            ("subscribe", #"{"streamId":"s","subscribeToAudio":true,"subscribeToVideo":true}"#),
            ("unsubscribe", #"{"subscriberId":"x"}"#),
            ("signal", #"{"type":"t","data":"d"}"#),
            ("streamChanged", #"{"streamId":"s","hasAudio":true}"#),
            ("subscriptionChanged", #"{"subscriberId":"x","subscribeToVideo":true}"#),
            ("subscriberPreferences", preferencesWith("")),
            ("forceMuteAll", #"{"excludedStreamIds":[]}"#),
            ("forceMuteStream", #"{"streamId":"s"}"#),
            ("disableForceMute", nil),
            ("forceDisconnect", #"{"connectionId":"c"}"#),
            ("reportIssue", #"{"description":"","stats":[],"logs":[]}"#),
            ("ping", nil),
            ("disconnect", nil),
        ]
        var rows = everyType.map { Row(type: $0.0, field: "requestId", body: $0.1) }
        rows += [("W", "videoWidth"), ("H", "videoHeight"), ("L", "simulcastLayers"), ("P", "relayedLeg.port"),
                 ("A", "relayedLeg.audioSSRC"), ("V", "relayedLeg.videoSSRC"), ("S", "relayedLeg.simulcastSSRCs")]
            .map { Row(type: "publish", field: $0.1, body: publishWith($0.0)) }
        rows += [("W", "preferredWidth"), ("H", "preferredHeight"), ("F", "preferredFrameRate")]
            .map { Row(type: "subscriberPreferences", field: $0.1, body: preferencesWith($0.0)) }
        return rows
    }

    /// The JSON text of `row` with `number` in its place.
    static func text(_ row: Row, _ number: String, requestId: Int) -> String {
        let id = row.field == "requestId" ? number : String(requestId)
        let body = row.body.map { #","body":"# + $0.replacingOccurrences(of: "#", with: number) } ?? ""
        return #"{"type":"\#(row.type)","requestId":\#(id)\#(body)}"#
    }

    @Test func everyNumericFieldOfEveryMessageRefusesWhatNoFieldCanHold() throws {
        let sfu = try MediaRouter(host: "127.0.0.1")
        let router = try Router(configuration: Fixture.configuration(), media: sfu)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Fixture.project.apiKey)
        let url = router.signalingURL(sessionId: sessionId)
        func connect(_ role: Role) throws -> RouterOverNetworkTests.Client {
            let client = try RouterOverNetworkTests.Client(url: url)
            let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: role)
            client.send(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), id: 1)
            guard case .connected? = client.reply(1) else { throw HarnessError.unexpected }
            return client
        }
        let attacker = try connect(.moderator), bystander = try connect(.publisher)
        bystander.send(.publish(PublishRequest(name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                               videoWidth: 320, videoHeight: 240, videoType: "camera")), id: 2)
        guard case .published(let published)? = bystander.reply(2) else { Issue.record("no publish"); return }
        attacker.send(.subscribe(SubscribeRequest(streamId: published.stream.streamId)), id: 2)
        guard case .subscribed(let subscribed)? = attacker.reply(2) else { Issue.record("no subscribe"); return }
        // The real SFU leg is there: what used to trap is reachable.
        #expect(sfu.counters(streamId: published.stream.streamId) != nil)

        let rows = Self.rows(subscriberId: subscribed.subscriberId)
        var requestId = 100
        var cases = 0
        for row in rows {
            for number in Self.badNumbers {
                requestId += 1
                let before = attacker.inbox.messages.withLock { $0.count }
                attacker.socket.send(Self.text(row, number, requestId: requestId))
                // A ping after it: its pong proves the bad message was handled first.
                requestId += 1
                attacker.send(.ping, id: requestId)
                #expect(attacker.reply(requestId) == .pong, "\(row) = \(number): the router still answers")
                let answers = attacker.inbox.messages.withLock { Array($0[before...]) }
                let refused = answers.contains { message, _ in
                    if case .error(let error) = message { return error.code == 1011 }
                    return false
                }
                #expect(refused, "\(row) = \(number) is refused with 1011: \(answers)")
                cases += 1
            }
        }
        #expect(cases == 26 * Self.badNumbers.count)
        #expect(!attacker.isClosed && !bystander.isClosed)

        // Still serving: a signal reaches both clients, valid preferences are taken.
        bystander.send(.signal(SignalRequest(type: "after", data: "still here", to: nil)), id: 3)
        #expect(bystander.reply(3) == .ok)
        let signal = ServerMessage.signal(type: "after", data: "still here", from: published.stream.connectionId)
        #expect(eventually { attacker.events.contains(signal) })
        requestId += 1
        attacker.send(.subscriberPreferences(SubscriberPreferences(subscriberId: subscribed.subscriberId, preferredWidth: 320,
                                                                   preferredHeight: 240, preferredFrameRate: 15)), id: requestId)
        #expect(attacker.reply(requestId) == .ok)
        #expect(sfu.counters(streamId: published.stream.streamId) != nil)

        let metrics = try HTTPClient.request("GET", router.baseURL + "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("otkit_bad_messages_total \(cases)"), "every refusal counted")
    }
}
