import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Browsers on otkit.js and native OTKit clients in one session on the embedded router:
/// real headless Chromium (two tabs), the router's `/otkit.js`, the native client's
/// signaling protocol. Issue 16 acceptance (c) without media: connections, streams and
/// signals in every direction, moderation, a refused token.
@Suite(.serialized) struct BrowserSignalingTests {
    static let project = ProjectCredentials(apiKey: "4816", apiSecret: "0123456789abcdef0123456789abcdef01234816")
    let kit = SessionTestKit(project: Self.project)

    /// A router, a session, an app page server and one browser, closed at the end of `body`.
    func withSession(_ body: (Router, String, ChromiumBrowser, ChromiumPageServer) throws -> Void) throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let server = try ChromiumPageServer(pages: ["app.html": BrowserClient.appPage])
        defer { server.stop() }
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        try body(router, sessionId, browser, server)
    }

    func joined(_ client: BrowserClient, _ router: Router, _ sessionId: String, _ role: Role = .publisher, data: String,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try client.join(router.baseURL, apiKey: Self.project.apiKey, sessionId: sessionId,
                                     token: try kit.token(sessionId, role, data: data))
        return try #require(try? result.get(), "browser connect failed: \(result)", sourceLocation: sourceLocation)
    }

    @Test func browsersAndANativeClientSeeEachOtherSignalAndSeeStreams() throws {
        try withSession { router, sessionId, browser, server in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            let nativeId = try #require(native.connection?.connectionId)

            let first = try BrowserClient(browser, server), second = try BrowserClient(browser, server)
            let firstId = try joined(first, router, sessionId, data: "browser-1")
            let secondId = try joined(second, router, sessionId, data: "browser-2")

            // Connections, both ways, with their data. The first browser learns the native
            // client from its connect reply (sessionConnected's list, then connectionCreated)
            // and the second one as it joins; the second learns both from its reply.
            #expect(recorder.wait { $0.contains("connectionCreated \(firstId)") && $0.contains("connectionCreated \(secondId)") })
            let nativeData = native.connectionData(of: [firstId, secondId])
            #expect(nativeData == [firstId: "browser-1", secondId: "browser-2"])
            // As OpenTok.js, connectionCreated comes for one's own connection too (first).
            let firstEvents = try first.wait(what: "both connections") { events in
                Set(events.compactMap { $0.type == "connectionCreated" ? $0.connection?.connectionId : nil }) == [firstId, nativeId, secondId]
            }
            #expect(firstEvents.filter { $0.type == "connectionCreated" }.first?.connection?.connectionId == firstId)
            #expect(firstEvents.first?.type == "sessionConnected")
            #expect(firstEvents.first?.connections?.map(\.connectionId) == [nativeId])
            #expect(firstEvents.first { $0.connection?.connectionId == nativeId }?.connection?.data == "native")
            #expect(firstEvents.first { $0.connection?.connectionId == secondId }?.connection?.data == "browser-2")
            let secondEvents = try second.wait(what: "both connections") { events in
                Set(events.compactMap { $0.type == "connectionCreated" ? $0.connection?.connectionId : nil }) == [secondId, nativeId, firstId]
            }
            #expect(secondEvents.first { $0.connection?.connectionId == firstId }?.connection?.data == "browser-1")
            #expect(secondEvents.first { $0.connection?.connectionId == secondId }?.connection?.data == "browser-2")
            #expect(secondEvents.filter { $0.type == "connectionCreated" }.count == 3, "each connection once")

            // Browser → native, to one connection.
            #expect(try first.signal(type: "chat", data: "b1 to native", to: nativeId) == nil)
            #expect(recorder.wait { $0.contains("signal chat from \(firstId): b1 to native") })

            // Native → one browser, then native → everyone: the signals leave one sender in
            // order, so the first browser having the second and not the first proves the
            // first went to the second browser only.
            let secondConnection = OTConnection(connectionId: secondId, creationTime: Date(), data: nil)
            try native.signal(type: "note", string: "native to b2", connection: secondConnection)
            try native.signal(type: "note", string: "native to all", connection: nil)
            for client in [first, second] {
                try client.wait(what: "the signal to all") { $0.contains { $0.type == "signal" && $0.data == "native to all" } }
            }
            let firstSignals = try first.events().filter { $0.type == "signal" }
            #expect(!firstSignals.contains { $0.data == "native to b2" }, "a signal to one connection reached another")
            let toSecond = try #require(try second.events().first { $0.type == "signal" && $0.data == "native to b2" })
            #expect(toSecond.signalType == "signal:note")
            #expect(toSecond.from?.connectionId == nativeId)
            #expect(toSecond.from?.data == "native")
            #expect(recorder.wait { $0.contains("signal note from \(nativeId): native to all") }, "the sender gets its own signal to all")

            // Browser → browser: a typed signal fires both "signal" and "signal:chat".
            #expect(try first.signal(type: "chat", data: "b1 to b2", to: secondId) == nil)
            let chat = try second.wait(what: "the chat signal") { events in
                events.contains { $0.type == "signal:chat" && $0.data == "b1 to b2" }
            }
            let handled = chat.filter { $0.data == "b1 to b2" }
            #expect(handled.map(\.type).sorted() == ["signal", "signal:chat"])
            #expect(handled.allSatisfy { $0.signalType == "signal:chat" && $0.from?.connectionId == firstId })
            // An untyped signal to everyone: "signal" only, and it reaches the native client.
            #expect(try second.signal(type: nil, data: "b2 untyped") == nil)
            let untyped = try first.wait(what: "the untyped signal") { $0.contains { $0.data == "b2 untyped" } }
            #expect(untyped.filter { $0.data == "b2 untyped" }.map(\.type) == ["signal"])
            #expect(untyped.first { $0.data == "b2 untyped" }?.signalType == "signal")
            #expect(recorder.wait { $0.contains("signal  from \(secondId): b2 untyped") || $0.contains("signal nil from \(secondId): b2 untyped") })

            // A native publisher's stream reaches both browsers with its fields, and leaves.
            let (publisher, streamId) = try kit.publishPattern(native, recorder, name: "native cam", width: 320, height: 240, fps: 15)
            for client in [first, second] {
                let events = try client.wait(what: "streamCreated") { $0.contains { $0.type == "streamCreated" } }
                let stream = try #require(events.first { $0.type == "streamCreated" }?.stream)
                #expect(stream.streamId == streamId)
                #expect(stream.name == "native cam")
                #expect(stream.hasAudio && stream.hasVideo)
                #expect(stream.videoType == "custom", "a test-pattern capturer is a custom video source")
                #expect(stream.width == 320 && stream.height == 240)
                #expect(stream.connection == BrowserClient.Connection(connectionId: nativeId, data: "native",
                                                                      creationTime: stream.connection?.creationTime ?? 0))
            }
            try native.unpublish(publisher)
            for client in [first, second] {
                let events = try client.wait(what: "streamDestroyed") { $0.contains { $0.type == "streamDestroyed" } }
                let destroyed = try #require(events.first { $0.type == "streamDestroyed" })
                #expect(destroyed.stream?.streamId == streamId)
                #expect(destroyed.reason == "unpublished" || destroyed.reason == "clientDisconnected", "\(destroyed.reason ?? "nil")")
            }
            native.disconnect()
        }
    }

    @Test func aBrowserResumesAfterACutAndGetsWhatItMissedOnce() throws {
        try withSession { router, sessionId, browser, server in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            let nativeId = try #require(native.connection?.connectionId)
            // The browser signals through a relay the test can black-hole (its TCP stays open).
            let relay = try TCPRelay(target: "127.0.0.1:\(router.port)")
            defer { relay.stop() }
            let client = try BrowserClient(browser, server)
            let result = try client.join(router.baseURL, apiKey: Self.project.apiKey, sessionId: sessionId,
                                         token: try kit.token(sessionId, .publisher, data: "cut"),
                                         signalingURL: "http://127.0.0.1:\(relay.port)")
            let browserId = try #require(try? result.get(), "\(result)")
            #expect(recorder.wait { $0.contains("connectionCreated \(browserId)") })

            relay.setBlackhole(true)
            // 3 s of silence: the page starts reconnecting (the router keeps the connection).
            try client.wait(20, what: "sessionReconnecting") { $0.contains { $0.type == "sessionReconnecting" } }
            let browserConnection = OTConnection(connectionId: browserId, creationTime: Date(), data: nil)
            for text in ["missed 1", "missed 2"] { try native.signal(type: "note", string: text, connection: browserConnection) }
            try native.signal(type: "note", string: "missed to all", connection: nil)
            // Sent while reconnecting: queued, then sent after the resume.
            // (`; true`: the evaluation must not await the signal's promise, which settles only after the resume.)
            try client.page.run("window.queued = sendSignal({type: 'chat', data: 'queued while away'}); true")
            relay.setBlackhole(false)

            let events = try client.wait(30, what: "the missed signals after sessionReconnected") { events in
                events.contains { $0.type == "sessionReconnected" } && events.contains { $0.data == "missed to all" }
            }
            let reconnected = try #require(events.firstIndex { $0.type == "sessionReconnected" })
            let missed = events.filter { $0.type == "signal" && ($0.data ?? "").hasPrefix("missed") }
            #expect(missed.map(\.data) == ["missed 1", "missed 2", "missed to all"], "each once, in order")
            #expect(events.firstIndex { $0.data == "missed 1" }.map { $0 > reconnected } == true)
            #expect(missed.allSatisfy { $0.from?.connectionId == nativeId })
            #expect(!events.contains { $0.type == "sessionDisconnected" })
            #expect(try client.page.evaluate("window.queued", as: BrowserClient.Failure?.self) == nil)
            #expect(recorder.wait { $0.contains("signal chat from \(browserId): queued while away") })
            #expect(recorder.calls.filter { $0 == "signal chat from \(browserId): queued while away" }.count == 1)
            #expect(!recorder.calls.contains("connectionDestroyed \(browserId)"), "the router kept the connection")
            native.disconnect()
        }
    }

    @Test func aModeratorForceDisconnectsABrowser() throws {
        try withSession { router, sessionId, browser, server in
            let recorder = DelegateRecorder()
            let moderator = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(moderator, recorder, token: try kit.token(sessionId, .moderator, data: "moderator"))
            let first = try BrowserClient(browser, server), second = try BrowserClient(browser, server)
            let firstId = try joined(first, router, sessionId, data: "browser-1")
            _ = try joined(second, router, sessionId, data: "browser-2")
            try second.wait(what: "the first browser's connection") { $0.contains { $0.connection?.connectionId == firstId } }
            #expect(recorder.wait { $0.contains("connectionCreated \(firstId)") })

            try moderator.forceDisconnect(OTConnection(connectionId: firstId, creationTime: Date(), data: nil))

            let gone = try first.wait(what: "sessionDisconnected") { $0.contains { $0.type == "sessionDisconnected" } }
            #expect(gone.first { $0.type == "sessionDisconnected" }?.reason == "forceDisconnected")
            let seen = try second.wait(what: "connectionDestroyed") { $0.contains { $0.type == "connectionDestroyed" } }
            let destroyed = try #require(seen.first { $0.type == "connectionDestroyed" })
            #expect(destroyed.connection?.connectionId == firstId)
            #expect(destroyed.connection?.data == "browser-1")
            #expect(destroyed.reason == "forceDisconnected")
            #expect(recorder.wait { $0.contains("connectionDestroyed \(firstId)") })
            // The disconnected page is really out: its session says so and a signal fails with 1010.
            #expect(try first.page.evaluate("session.isConnected()", as: Bool.self) == false)
            #expect(try first.signal(type: "chat", data: "after") == BrowserClient.Failure(
                name: "OT_NOT_CONNECTED", code: 1010, message: "the session is not connected"))
            moderator.disconnect()
        }
    }

    @Test func aBrowserModeratorMutesAndDisconnectsAndOthersMayNot() throws {
        try withSession { router, sessionId, browser, server in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            let nativeId = try #require(native.connection?.connectionId)
            let (_, streamId) = try kit.publishAudioOnly(native, recorder)
            let moderator = try BrowserClient(browser, server), other = try BrowserClient(browser, server)
            _ = try joined(moderator, router, sessionId, .moderator, data: "moderator")
            _ = try joined(other, router, sessionId, .publisher, data: "other")
            try moderator.wait(what: "the native stream") { $0.contains { $0.stream?.streamId == streamId } }
            #expect(try moderator.page.evaluate("session.capabilities.forceMute === 1 && session.capabilities.forceDisconnect === 1", as: Bool.self))
            #expect(try other.page.evaluate("session.capabilities.forceMute === 0", as: Bool.self))

            // Not a moderator: refused before anything is sent, with OpenTok.js's codes.
            let refusedMute = try other.page.evaluate("session.forceMuteAll().then(() => null, failure)", as: BrowserClient.Failure?.self)
            #expect(refusedMute?.code == 1540 && refusedMute?.name == "OT_UNABLE_TO_FORCE_MUTE", "\(String(describing: refusedMute))")
            let refusedKick = try other.page.evaluate("""
                new Promise((resolve) => session.forceDisconnect(\(other.js(nativeId)), (e) => resolve(failure(e))))
                """, as: BrowserClient.Failure?.self)
            #expect(refusedKick?.code == 1520 && refusedKick?.name == "OT_UNABLE_TO_FORCE_DISCONNECT", "\(String(describing: refusedKick))")

            // One stream: its publisher hears it.
            #expect(try moderator.page.evaluate("session.forceMuteStream(session.streams[0]).then(() => null, failure)",
                                                as: BrowserClient.Failure?.self) == nil)
            #expect(recorder.wait { $0.contains("publisher muteForced") })
            // Everyone: every client hears muteForced active, then inactive.
            #expect(try moderator.page.evaluate("session.forceMuteAll([]).then(() => null, failure)", as: BrowserClient.Failure?.self) == nil)
            #expect(recorder.wait { $0.contains("muteForced true") })
            for client in [moderator, other] {
                try client.wait(what: "muteForced active") { $0.contains { $0.type == "muteForced" && $0.active == true } }
            }
            #expect(try moderator.page.evaluate("session.disableForceMute().then(() => null, failure)", as: BrowserClient.Failure?.self) == nil)
            #expect(recorder.wait { $0.contains("muteForced false") })
            try other.wait(what: "muteForced lifted") { $0.contains { $0.type == "muteForced" && $0.active == false } }

            // A browser moderator disconnects the native client.
            #expect(try moderator.page.evaluate("""
                new Promise((resolve) => session.forceDisconnect(session.connections.find((c) => c.connectionId === \(moderator.js(nativeId))),
                  (e) => resolve(failure(e))))
                """, as: BrowserClient.Failure?.self) == nil)
            #expect(recorder.wait { $0.contains("didDisconnect") })
            let seen = try other.wait(what: "the native client's connectionDestroyed") { events in
                events.contains { $0.type == "connectionDestroyed" && $0.connection?.connectionId == nativeId }
            }
            #expect(seen.first { $0.type == "connectionDestroyed" }?.reason == "forceDisconnected")
            #expect(seen.contains { $0.type == "streamDestroyed" && $0.stream?.streamId == streamId && $0.reason == "forceDisconnected" })
        }
    }

    @Test func badSignalsFailWithOpenTokCodes() throws {
        try withSession { router, sessionId, browser, server in
            let client = try BrowserClient(browser, server)
            _ = try joined(client, router, sessionId, data: "b")
            let longType = String(repeating: "t", count: 129)
            #expect(try client.signal(type: longType, data: "x")?.code == 1461)
            #expect(try client.signal(type: "bad type!", data: "x")?.code == 1461)
            let tooLong = try #require(try client.signal(type: "big", data: String(repeating: "é", count: 4097)))  // 8194 bytes
            #expect(tooLong.code == 1413 && tooLong.name == "OT_INVALID_PARAMETER")
            #expect(try client.signal(type: "big", data: String(repeating: "e", count: 8192)) == nil, "8 KB is allowed")
            // Checked by the router: a connection that is not there.
            let unknown = try client.page.evaluate("sendSignal({type: 'x', data: 'y', to: 'no-such-connection'})", as: BrowserClient.Failure?.self)
            #expect(unknown?.code == 1550 && unknown?.name == "OT_UNABLE_TO_SIGNAL", "\(String(describing: unknown))")
            // After disconnect(): sessionDisconnected (clientDisconnected), then signals fail with 1010.
            try client.page.run("session.disconnect()")
            let events = try client.wait(what: "sessionDisconnected") { $0.contains { $0.type == "sessionDisconnected" } }
            #expect(events.last?.reason == "clientDisconnected")
            #expect(try client.signal(type: "x", data: "y")?.code == 1010)
        }
    }

    @Test func archivesStreamChangesAndRESTSignalsReachBrowsers() throws {
        try withSession { router, sessionId, browser, server in
            let rest = RouterREST(router: router, project: Self.project)
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            let (publisher, streamId) = try kit.publishAudioOnly(native, recorder)
            let early = try BrowserClient(browser, server)
            _ = try joined(early, router, sessionId, data: "early")
            try early.wait(what: "the native stream") { $0.contains { $0.type == "streamCreated" } }

            let started = try rest.post("archive", ["sessionId": sessionId, "name": "browser archive"])
            #expect(started.status == 200, "\(started)")
            let archiveId = try #require(started.body["id"] as? String)
            let events = try early.wait(what: "archiveStarted") { $0.contains { $0.type == "archiveStarted" } }
            #expect(events.first { $0.type == "archiveStarted" }.map { [$0.id, $0.name] } == [archiveId, "browser archive"])
            // A client that joins during the archive learns of it on connect.
            let late = try BrowserClient(browser, server)
            _ = try joined(late, router, sessionId, data: "late")
            let lateEvents = try late.wait(what: "archiveStarted on connect") { $0.contains { $0.type == "archiveStarted" } }
            #expect(lateEvents.first { $0.type == "archiveStarted" }?.id == archiveId)
            #expect(lateEvents.first { $0.type == "sessionConnected" } != nil)

            // The publisher turns its audio off: streamPropertyChanged with the old and new values.
            publisher.publishAudio = false
            let changed = try early.wait(what: "streamPropertyChanged") { $0.contains { $0.type == "streamPropertyChanged" } }
            let change = try #require(changed.first { $0.type == "streamPropertyChanged" })
            #expect(change.stream?.streamId == streamId)
            #expect(change.changedProperty == "hasAudio")
            #expect(change.oldValue == "true" && change.newValue == "false")
            #expect(change.stream?.hasAudio == false)

            // A signal from the REST API: from is null.
            let signalled = try rest.post("session/\(sessionId)/signal", ["type": "rest", "data": "from the server"])
            #expect(signalled.status == 204, "\(signalled)")
            let signals = try early.wait(what: "the REST signal") { $0.contains { $0.data == "from the server" } }
            let fromServer = try #require(signals.first { $0.type == "signal" && $0.data == "from the server" })
            #expect(fromServer.signalType == "signal:rest")
            #expect(fromServer.from == nil)

            let stopped = try rest.post("archive/\(archiveId)/stop")
            #expect(stopped.status == 200, "\(stopped)")
            for client in [early, late] {
                let seen = try client.wait(what: "archiveStopped") { $0.contains { $0.type == "archiveStopped" } }
                #expect(seen.first { $0.type == "archiveStopped" }?.id == archiveId)
            }
            native.disconnect()
        }
    }

    @Test func aBadTokenFailsTheConnectCallbackWith1004() throws {
        try withSession { router, sessionId, browser, server in
            let client = try BrowserClient(browser, server)
            // Signed with another secret: the router's signature check refuses it.
            let wrongSecret = ProjectCredentials(apiKey: Self.project.apiKey, apiSecret: "ffffffffffffffffffffffffffffffffffff4816")
            let forged = try OpenTokToken.generate(sessionID: sessionId, credentials: wrongSecret, role: .publisher, connectionData: "x")
            let result = try client.join(router.baseURL, apiKey: Self.project.apiKey, sessionId: sessionId, token: forged)
            guard case .failure(let failure) = result else {
                Issue.record("a forged token connected: \(result)")
                return
            }
            #expect(failure.failure.code == 1004)
            #expect(failure.failure.name == "OT_AUTHENTICATION_ERROR")
            #expect(try client.page.evaluate("session.isConnected()", as: Bool.self) == false)
            // No session event for a refused connect; OT's exception event says the same.
            let events = try client.events()
            #expect(events.map(\.type) == ["exception"], "\(events.map(\.type))")
            #expect(events.first?.data?.hasPrefix("1004 ") == true, "\(events.first?.data ?? "nil")")
            // A second attempt on the same object fails the same way (it may be retried).
            #expect(try client.page.evaluate("""
                new Promise((resolve) => { OT.once('exception', (e) => resolve(e.code));
                  session.connect(\(client.js(forged)), () => {}); })
                """, as: Int.self) == 1004)
        }
    }

    @Test func handlersTakeOpenTokJSForms() throws {
        try withSession { router, _, browser, server in
            let client = try BrowserClient(browser, server)
            // on(type list), once, on({type: handler}), off(type, handler), off(type); a throwing
            // handler does not stop the next one; the handler's `this` is the context given.
            let seen = try client.page.evaluate("""
                (async () => {
                  const {default: OT} = await import('\(router.baseURL)/otkit.js');
                  const s = OT.initSession('k', 's'), seen = [];
                  const h = function (e) { seen.push(e.type + (this && this.tag ? this.tag : '')); };
                  s.on('a b', h); s.once('c', h); s.on({d: h}, {tag: '!'});
                  s.on('e', () => { throw new Error('handler failure'); }); s.on('e', h);
                  for (const t of ['a', 'b', 'c', 'c', 'd', 'e']) s._dispatch({type: t});
                  s.off('a', h); s.off('d');
                  for (const t of ['a', 'b', 'd']) s._dispatch({type: t});
                  return seen.join(',');
                })()
                """, as: String.self)
            #expect(seen == "a,b,c,d!,e,b")
        }
    }

    /// otkit.js's media calls refuse what they cannot do with OpenTok's codes, through
    /// their callbacks (never a throw): bad publisher properties (1011), publishing from a
    /// subscriber token (1500) or a disconnected session (1010), a stream the router does
    /// not have (1604, the router's answer).
    @Test func mediaCallsRefuseWhatTheyCannotDoWithOpenTokCodes() throws {
        try withSession { router, sessionId, browser, server in
            let client = try BrowserClient(browser, server)
            _ = try joined(client, router, sessionId, .subscriber, data: "b")
            func outcome(_ script: String) throws -> BrowserClient.Failure? {
                try client.page.evaluate("new Promise((resolve) => { \(script) })", as: BrowserClient.Failure?.self, timeout: 30)
            }
            let badResolution = try outcome("OT.initPublisher(null, {resolution: '640by480'}, (e) => resolve(failure(e)))")
            #expect(badResolution?.code == 1011 && badResolution?.name == "OT_INVALID_PARAMETER", "\(String(describing: badResolution))")
            let badRate = try outcome("OT.initPublisher(null, {frameRate: 0}, (e) => resolve(failure(e)))")
            #expect(badRate?.code == 1011, "\(String(describing: badRate))")
            let nothing = try outcome("OT.initPublisher(null, {audioSource: null, videoSource: false}, (e) => resolve(failure(e)))")
            #expect(nothing?.code == 1011, "\(String(describing: nothing))")
            let subscriberRole = try outcome("session.publish(OT.initPublisher(null, {}), (e) => resolve(failure(e)))")
            #expect(subscriberRole?.code == 1500 && subscriberRole?.name == "OT_UNABLE_TO_PUBLISH", "\(String(describing: subscriberRole))")
            let unknown = try outcome("session.subscribe('no-such-stream', null, {}, (e) => resolve(failure(e)))")
            #expect(unknown?.code == 1604, "\(String(describing: unknown))")
            try client.page.run("session.disconnect()")
            let disconnected = try outcome("session.publish(OT.initPublisher(null, {}), (e) => resolve(failure(e)))")
            #expect(disconnected?.code == 1010 && disconnected?.name == "OT_NOT_CONNECTED", "\(String(describing: disconnected))")
        }
    }
}

extension OTSession {
    /// The connection data this session knows for `ids` (nil entries left out).
    func connectionData(of ids: [String]) -> [String: String] {
        lock.withLock {
            var data: [String: String] = [:]
            for id in ids { if let value = state.connections[id]?.data { data[id] = value } }
            return data
        }
    }
}
