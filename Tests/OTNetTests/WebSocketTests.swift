import Foundation
import OTNet
import Testing

@Suite(.serialized) struct WebSocketTests {
    let handler = EchoHandler()
    let server: WebServer
    var url: String { "ws://127.0.0.1:\(server.port)/ws/echo" }

    init() throws {
        server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
    }

    @Test func aThousandMessagesEchoInOrder() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        let expected = (0..<1000).map { "message \($0)" }
        for text in expected { #expect(client.send(text)) }  // queued before the socket opens
        #expect(eventually { recorder.texts.count == 1000 })
        #expect(recorder.texts == expected)
        #expect(recorder.opened == 1)
        #expect(handler.snapshot().openedPaths == ["/ws/echo"])
        client.close()
        #expect(recorder.closes.count == 1)
        #expect(recorder.closes.first! == nil)
    }

    @Test func hostNamesAreResolvedBeforeConnecting() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://localhost:\(server.port)/ws/named")
        client.send("by name")
        #expect(eventually { recorder.texts == ["by name"] })
        #expect(client.remoteAddress == "127.0.0.1:\(server.port)")
        client.close()
    }

    @Test func aLargeMessageArrivesIntact() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        let big = String((0..<200_000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        client.send(big)
        #expect(eventually { recorder.texts.count == 1 })
        #expect(recorder.texts.first == big)
        #expect(handler.snapshot().received.first == big)
        client.close()
    }

    @Test func messagesOverTheServerLimitCloseWith1009() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        client.send(String(repeating: "x", count: 300 << 10))
        #expect(eventually { recorder.closes.count == 1 })
        #expect(handler.snapshot().received.isEmpty)
        #expect(eventually { handler.snapshot().closed.count == 1 })
        client.close()
        #expect(recorder.closes.count == 1)
    }

    @Test func sendsFromFourThreadsAllArrive() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        #expect(eventually { recorder.opened == 1 })
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<250 { client.send("t\(thread)-\(index)") }
        }
        #expect(eventually { recorder.texts.count == 1000 })
        let texts = recorder.texts
        #expect(Set(texts).count == 1000)
        for thread in 0..<4 {  // each thread's own messages stay in order
            let mine = texts.filter { $0.hasPrefix("t\(thread)-") }
            #expect(mine == (0..<250).map { "t\(thread)-\($0)" })
        }
        client.close()
    }

    @Test func aServerInitiatedCloseReachesTheClientOnce() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        #expect(eventually { handler.snapshot().peers.count == 1 })
        let peer = handler.snapshot().peers[0]
        peer.send("bye")
        peer.close(code: 1000, reason: "done")
        #expect(eventually { recorder.closes.count == 1 })
        #expect(recorder.texts == ["bye"])  // queued messages go out before the close frame
        #expect(recorder.closes.first! == nil)
        #expect(eventually { handler.snapshot().closed == [peer.id] })
        #expect(peer.send("late") == false)
        client.close()
        usleep(50_000)
        #expect(recorder.closes.count == 1)
        #expect(handler.snapshot().closed.count == 1)
    }

    @Test func aClientCloseReachesTheHandlerOnce() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect(url)
        client.send("hello")
        #expect(eventually { recorder.texts == ["hello"] })
        client.close()
        client.close()  // idempotent
        #expect(client.send("after") == false)
        #expect(recorder.closes.count == 1)
        #expect(recorder.closes.first! == nil)
        #expect(eventually { handler.snapshot().closed.count == 1 })
        usleep(50_000)
        #expect(handler.snapshot().closed.count == 1)
    }

    @Test func stoppingTheServerClosesEveryClient() throws {
        let recorders = (0..<5).map { _ in ClientRecorder() }
        let clients = try recorders.map { try $0.connect(url) }
        #expect(eventually { handler.snapshot().opened.count == 5 })
        server.stop()
        #expect(handler.snapshot().closed.count == 5)  // reported before stop() returns
        #expect(Set(handler.snapshot().closed) == Set(handler.snapshot().opened))
        #expect(eventually { recorders.allSatisfy { $0.closes.count == 1 } })
        #expect(recorders.allSatisfy { $0.closes == [nil] })  // the server sent close frames (1001)
        for peer in handler.snapshot().peers { #expect(peer.send("x") == false) }
        server.stop()  // idempotent
        clients.forEach { $0.close() }
        #expect(recorders.allSatisfy { $0.closes.count == 1 })
    }

    @Test func aRefusedConnectionReportsAFailure() throws {
        let port = server.port
        server.stop()
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://127.0.0.1:\(port)/ws")
        #expect(eventually { recorder.closes.count == 1 })
        let failure = try #require(recorder.closes.first)
        #expect(failure?.contains("cannot connect") == true)
        #expect(recorder.opened == 0)
        client.close()
        #expect(recorder.closes.count == 1)
    }

    @Test func aRefusedUpgradePathReportsAFailure() throws {
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://127.0.0.1:\(server.port)/not-a-socket")
        #expect(eventually { recorder.closes.count == 1 })
        let failure = try #require(recorder.closes.first)
        #expect(failure?.contains("cannot connect") == true)
        #expect(recorder.opened == 0)
        #expect(handler.snapshot().opened.isEmpty)
        client.close()
    }

    @Test func badURLsThrow() {
        defer { server.stop() }
        for url in ["http://127.0.0.1:1/x", "ws://", "ws://127.0.0.1:99999/", "ws://no-such-host.invalid/ws"] {
            #expect(throws: WebError.self) { _ = try ClientRecorder().connect(url) }
        }
    }

    @Test func thirtyClientsComeAndGoWithoutLeakingThreads() throws {
        defer { server.stop() }
        // Warm up once so lazily created process-wide threads are counted in "before".
        let warm = ClientRecorder()
        try warm.connect(url).close()
        let before = threadCount()
        for round in 0..<30 {
            let recorder = ClientRecorder()
            var client: WebSocketClient? = try recorder.connect(url)
            if round % 3 == 0 {
                client!.send("r\(round)")
                #expect(eventually { recorder.texts == ["r\(round)"] })
            }
            if round % 2 == 0 { client!.close() }
            client = nil  // deinit closes and joins
            #expect(recorder.closes.count == 1)
        }
        #expect(eventually { handler.snapshot().closed.count == handler.snapshot().opened.count })
        // Other suites run in this process meanwhile (their threads come and go); a leak
        // here would be at least 30 threads, one per client.
        #expect(eventually { threadCount() <= before + 8 }, "threads \(before) → \(threadCount())")
    }
}
