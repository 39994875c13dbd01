import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct MetricsTests {
    @Test func prometheusTextHasEveryCounter() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        _ = try h.publish(a)
        h.service.webSocketReceived(a, text: "garbage")
        let bad = h.open()
        h.request(bad, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: "garbage")))
        _ = h.service.handle(HTTPRequest(method: "GET", path: "/nope"))
        let response = h.service.handle(HTTPRequest(method: "GET", path: "/metrics"))
        #expect(response.status == 200)
        #expect(response.contentType == "text/plain; version=0.0.4")
        let text = response.text
        for line in ["otkit_sessions 1", "otkit_connections 1", "otkit_streams 1", "otkit_subscribers 0",
                     "otkit_packets_in_total 11", "otkit_packets_out_total 22", "otkit_packets_dropped_total 3",
                     "otkit_muted_audio_packets_dropped_total 4", "otkit_bad_packets_total 5",
                     "otkit_bad_tokens_total{reason=\"malformed\"} 1", "otkit_bad_tokens_total{reason=\"expired\"} 0",
                     "otkit_bad_messages_total 1", "otkit_signals_total 0", "otkit_rest_requests_total{status=\"404\"} 1",
                     "# TYPE otkit_bad_tokens_total counter", "# HELP otkit_connections "] {
            #expect(text.contains(line), "missing \(line)")
        }
        // Every sample line is `name{labels} value`.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.split(separator: " ").count == 2, "\(line)")
        }
    }

    @Test func logLinesAreJSONWithoutTokens() throws {
        let lines = LinesBox()
        let log = RouterLog(level: .info) { lines.append($0) }
        log.log(.debug, "hidden")
        log.log(.warning, "token.refused", session: "s\"1", ["reason": "expired"])
        #expect(lines.all.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any])
        #expect(object["event"] as? String == "token.refused" && object["session"] as? String == "s\"1")
        #expect((object["fields"] as? [String: String])?["reason"] == "expired")
    }
}

import Foundation
import Synchronization

final class LinesBox: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
