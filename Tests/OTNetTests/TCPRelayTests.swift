import Foundation
import OTNet
import Testing

@Suite(.serialized) struct TCPRelayTests {
    @Test func httpFlowsThroughTheRelayAndStopsInTheBlackHole() throws {
        let server = try WebServer(configuration: WebServerConfiguration(), handler: EchoHandler())
        defer { server.stop() }
        let relay = try TCPRelay(target: "127.0.0.1:\(server.port)")
        defer { relay.stop() }
        let base = "http://127.0.0.1:\(relay.port)"

        let first = try HTTPClient.request("POST", base + "/through?x=1", body: Array("abc".utf8))
        #expect(first.status == 200)
        #expect(jsonObject(first.body)["body"] as? String == "abc")

        relay.setBlackhole(true)
        #expect(throws: WebError.self) { _ = try HTTPClient.request("GET", base + "/lost", timeoutSeconds: 0.5) }

        relay.setBlackhole(false)
        let after = try HTTPClient.request("GET", base + "/again")
        #expect(after.status == 200)
        #expect(jsonObject(after.body)["path"] as? String == "/again")
    }

    @Test func aBlackHoleKeepsWebSocketsUpButSilentAndStoppingDropsThem() throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let relay = try TCPRelay(target: "127.0.0.1:\(server.port)")
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://127.0.0.1:\(relay.port)/ws")
        client.send("one")
        #expect(eventually { recorder.texts == ["one"] })

        relay.setBlackhole(true)
        client.send("two")
        usleep(200_000)
        #expect(recorder.texts == ["one"])
        #expect(recorder.closes.isEmpty)  // the path is dead, not closed

        relay.stop()  // an abrupt drop: no close frame
        #expect(eventually { recorder.closes.count == 1 })
        let failure = try #require(recorder.closes.first)
        #expect(failure?.contains("lost") == true)
        #expect(eventually { handler.snapshot().closed.count == 1 })
        client.close()
        #expect(recorder.closes.count == 1)
    }

    @Test func aClientThatCannotSendRefusesMessagesPastTheQueueLimit() throws {
        let server = try WebServer(configuration: WebServerConfiguration(), handler: EchoHandler())
        defer { server.stop() }
        let relay = try TCPRelay(target: "127.0.0.1:\(server.port)")
        defer { relay.stop() }
        relay.setBlackhole(true)  // TCP connects, the handshake never completes
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://127.0.0.1:\(relay.port)/ws")
        var accepted = 0
        while accepted < 5000 && client.send("queued \(accepted)") { accepted += 1 }
        #expect(accepted == 4096)
        #expect(client.send("still no") == false)
        #expect(recorder.opened == 0)
        client.close()
        #expect(recorder.closes == [nil])
    }

    @Test func aMalformedTargetThrows() {
        #expect(throws: WebError.self) { _ = try TCPRelay(target: "127.0.0.1") }
    }
}
