import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct SignalingSignalTests {
    @Test func signalToAllReachesEveryoneIncludingTheSender() throws {
        let h = try Harness()
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        let (c, _) = try h.join()
        [a, b, c].forEach { $0.clear() }
        #expect(h.request(a, .signal(SignalRequest(type: "chat", data: "hi", to: nil))) == .ok)
        let expected = ServerMessage.signal(type: "chat", data: "hi", from: ra.connection.connectionId)
        for peer in [a, b, c] { #expect(peer.events == [expected]) }
        #expect(h.service.metrics.signals == 1)
    }

    @Test func signalToOneReachesOnlyIt() throws {
        let h = try Harness()
        let (a, ra) = try h.join()
        let (b, rb) = try h.join()
        let (c, _) = try h.join()
        [a, b, c].forEach { $0.clear() }
        #expect(h.request(a, .signal(SignalRequest(type: "", data: "x", to: rb.connection.connectionId))) == .ok)
        #expect(b.events == [.signal(type: "", data: "x", from: ra.connection.connectionId)])
        #expect(a.events.isEmpty && c.events.isEmpty)
        guard case .error(let error)? = h.request(a, .signal(SignalRequest(type: "t", data: "x", to: "no-such-connection"))) else {
            Issue.record("unknown target accepted"); return
        }
        #expect(error.code == 1550)
    }

    @Test(arguments: [
        (String(repeating: "t", count: 129), "d", 1461),
        ("bad type!", "d", 1461),
        ("ok-type_~9", String(repeating: "d", count: 8193), 1413),
    ])
    func signalLimits(type: String, data: String, code: Int) throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let (b, _) = try h.join()
        b.clear()
        guard case .error(let error)? = h.request(a, .signal(SignalRequest(type: type, data: data, to: nil))) else {
            Issue.record("accepted"); return
        }
        #expect(error.code == code)
        #expect(b.events.isEmpty)
    }

    @Test func limitsAreInclusive() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let request = SignalRequest(type: String(repeating: "t", count: 128), data: String(repeating: "é", count: 4096), to: nil)
        #expect(h.request(a, .signal(request)) == .ok)
    }

    @Test func publisherOnlyCannotSignal() throws {
        let h = try Harness()
        let (a, _) = try h.join(.publisheronly)
        guard case .error(let error)? = h.request(a, .signal(SignalRequest(type: "t", data: "d", to: nil))) else {
            Issue.record("accepted"); return
        }
        #expect(error.code == 1550)
    }
}
