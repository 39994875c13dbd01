import Glibc
import OTMedia
@testable import OTRouter
import Testing

/// What one subscriber leg's state costs on the heap (issue 20: the router's memory per
/// leg against Janus's), measured as resident-size growth around making many of each piece: the
/// figures `docs/benchmarks.md` breaks the leg down with. Bounds are loose (the heap is
/// shared with tests running beside this one): they catch a piece growing back by
/// multiples, not by bytes.
@Suite(.serialized) struct RouterLegMemoryTests {
    /// The process's resident bytes now (`/proc/self/statm`, second field, in pages).
    static func heapInUse() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0, resident = 0
        guard withUnsafeMutablePointer(to: &size, { sizePointer in
            withUnsafeMutablePointer(to: &resident) { fscanfTwo(file, sizePointer, $0) }
        }) else { return 0 }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func fscanfTwo(_ file: UnsafeMutablePointer<FILE>, _ a: UnsafeMutablePointer<Int>,
                                  _ b: UnsafeMutablePointer<Int>) -> Bool {
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, 256, file) != nil else { return false }
        let fields = String(cString: line).split(separator: " ")
        guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
        a.pointee = first
        b.pointee = second
        return true
    }

    /// Bytes per item of making `count` items with `make` (kept alive until measured):
    /// the least of three tries, since tests running beside this one in the process only
    /// ever add to the growth seen.
    static func perItem<T>(_ count: Int, _ make: () throws -> T) rethrows -> (bytes: Int, items: [T]) {
        var best = Int.max
        var kept: [T] = []
        for _ in 0..<3 {
            var items: [T] = []
            items.reserveCapacity(count)
            let before = heapInUse()
            for _ in 0..<count { items.append(try make()) }
            best = min(best, (heapInUse() - before) / count)
            kept.append(contentsOf: items)
        }
        return (best, kept)
    }

    @Test func aSubscriberLegsPiecesStayWithinTheirBudgets() throws {
        let n = 200
        let adaptation = Self.perItem(n) { LegAdaptation() }
        let pool = Self.perItem(n) {
            PacketBufferPool(initialCount: SubscriberLeg.poolInitialCount, maximumCount: 144, bufferSize: 2048, headroom: 0)
        }
        let history = try Self.perItem(n) {
            try LegHistory(slots: SubscriberLeg.historyCapacity, arenaBytes: SubscriberLeg.historyArenaBytes,
                           ageNanoseconds: SubscriberLeg.historyAgeNanoseconds)
        }
        let guardSlots = Self.perItem(n) { LegResendGuard(slots: SubscriberLeg.historyCapacity) }
        let srtp = try Self.perItem(n) {
            (try SRTPSession(keys: .random(profile: .aesCM128HMACSHA1_80), direction: .sender),
             try SRTPSession(keys: .random(profile: .aesCM128HMACSHA1_80), direction: .receiver))
        }
        var ssrcs = SSRCAllocator()
        let leg = try Self.perItem(50) {
            try SubscriberLeg(subscriberId: "s", bindingTo: SocketAddress(ipv4: "127.0.0.1", port: 0)!, host: "127.0.0.1",
                              profile: .aesCM128HMACSHA1_80, audio: true, video: true, carriesAudio: true, carriesVideo: true,
                              ssrcs: &ssrcs)
        }
        for item in leg.items { item.closeOwnSocket(SocketGauge()) }
        let serverContext = try DTLSContext(certificate: DTLSCertificate(commonName: "router"))
        let clientContext = try DTLSContext(certificate: DTLSCertificate(commonName: "client"))
        var clients: [DTLSTransport] = []
        let dtls = try Self.perItem(20) { () throws -> DTLSTransport in
            let server = try DTLSTransport(context: serverContext, role: .server,
                                           remoteFingerprint: clientContext.certificate.fingerprint)
            let client = try DTLSTransport(context: clientContext, role: .client,
                                           remoteFingerprint: serverContext.certificate.fingerprint)
            try Self.handshake(client, server)
            clients.append(client)
            return server
        }
        print("router leg heap: connected DTLS server (SSL kept) \(dtls.bytes) B (with its peer client's share)")
        print("router leg heap: LegAdaptation \(adaptation.bytes) B, send pool \(pool.bytes) B, history tables \(history.bytes) B "
              + "(+ arena pages as written), resend guard \(guardSlots.bytes) B, two SRTP sessions \(srtp.bytes) B, "
              + "whole SubscriberLeg (own socket, SDES) \(leg.bytes) B")
        #expect(adaptation.bytes < 96 << 10)
        #expect(pool.bytes < 48 << 10)
        #expect(history.bytes < 16 << 10)
        #expect(leg.bytes < 192 << 10)
        // Both ends of a connected pair: ~132 KB before the idle buffers went back, ~95–105 KB after.
        #expect(dtls.bytes < 120 << 10)
        withExtendedLifetime((dtls.items, clients)) {}
        withExtendedLifetime((adaptation.items, pool.items, history.items, guardSlots.items, srtp.items)) {}
    }

    /// Runs a DTLS handshake between two transports in memory.
    static func handshake(_ client: DTLSTransport, _ server: DTLSTransport) throws {
        var toServer: [[UInt8]] = [], toClient: [[UInt8]] = []
        func take(_ from: DTLSTransport) -> [[UInt8]] { (0..<from.outgoingCount).map { Array(from.outgoingDatagram($0)) } }
        client.start(now: 0)
        server.start(now: 0)
        toServer = take(client)
        for _ in 0..<32 where client.state != .connected || server.state != .connected {
            for datagram in toServer { datagram.withUnsafeBytes { server.receive($0, now: 0) }; toClient += take(server) }
            toServer = []
            for datagram in toClient { datagram.withUnsafeBytes { client.receive($0, now: 0) }; toServer += take(client) }
            toClient = []
        }
        guard client.state == .connected, server.state == .connected else { throw MediaError(.systemError, "handshake stuck") }
    }
}
