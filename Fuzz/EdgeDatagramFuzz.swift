// fuzz-sources: Sources/OTRouter/Media/*.swift Sources/OTRouter/Edge/*.swift Sources/OTRouter/Logging/*.swift Sources/OTRouter/Cluster/Cascade/CascadeControl.swift Sources/OTRouter/Cluster/Cascade/CascadeControlRequest.swift Sources/OTRouter/Cluster/Cascade/CascadeCounters.swift Sources/OTRouter/Cluster/Cascade/CascadeEgressKey.swift Sources/OTRouter/Cluster/Cascade/CascadeIngress.swift Sources/OTRouter/Cluster/Cascade/CascadeIngressLink.swift Sources/OTRouter/Cluster/Cascade/CascadeOrigin.swift Sources/OTRouter/Cluster/Cascade/MediaRouter+CascadeEgress.swift Sources/OTRouter/Cluster/Cascade/MediaRouter+CascadeIngress.swift
import Glibc
import OTMedia

/// libFuzzer target: any datagram arriving on the router's one-port edge, through the
/// path each worker runs per datagram (`EdgeWorker.handle(_:from:now:)`): RFC 7983
/// classification; STUN to the leg named by its USERNAME and that leg's ICE-lite agent;
/// DTLS to admission and the leg's DTLS server; RTP/RTCP to the leg's SRTP unprotect and
/// the receive handler. No socket is read: the worker's seam takes the bytes, a source
/// and the time (its answers still go out of a loopback socket, to nobody).
///
/// The first input byte picks one of four fixed source addresses (its low two bits) and,
/// when its bit 6 is set, a segment size of 16-256 bytes (bits 2-5): the rest is then cut
/// as a coalesced (UDP GRO) message; otherwise the rest is one datagram. Three legs are
/// registered with known credentials (ufrags `edg1`–`edg3`,
/// password `edgefuzzpassword000001`, peer ufrag `peer`) and a fixed peer fingerprint, so
/// a seed's signed Binding request nominates its source and DTLS/SRTP from it reach the
/// leg. A `ManualClock` moves 5 ms per input; every 64 inputs the timers run (consent,
/// retransmissions, handshake bound); every 1,024 leg 3 is removed and registered again.
///
/// After every input: each counter only grew, the five per-class counters add up to the
/// datagrams handled, and the three legs are registered. A trap, a failed invariant or an
/// AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEdgeDatagram(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    EdgeDatagramFuzzing.shared.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// One edge core, one worker and three legs, driven from the fuzzer's thread.
final class EdgeDatagramFuzzing {
    nonisolated(unsafe) static let shared = try! EdgeDatagramFuzzing()

    static let password = "edgefuzzpassword000001"
    let clock = ManualClock(start: 1_000_000_000)
    let core: EdgeCore
    let worker: EdgeWorker
    let sources = (1 ... 4).map { SocketAddress.ipv4Loopback(port: UInt16(40_000 + $0)) }
    var legs: [EdgeLeg] = []
    var handled = 0
    var runs = 0
    var last = EdgeCounters()
    /// `EDGE_FUZZ_TRACE=1` prints the counters after each input (to check what seeds reach).
    let trace = getenv("EDGE_FUZZ_TRACE") != nil

    init() throws {
        let configuration = MediaEdgeConfiguration(workerCount: 1, batchSize: 4)
        let context = try DTLSContext(certificate: try DTLSCertificate(commonName: "edge fuzz"))
        core = EdgeCore(configuration: configuration, context: context, clock: clock, ended: nil) { _, _, _ in }
        // Coalescing on, as the edge runs: 64 KB receive buffers, so no input is truncated.
        let socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 16, receiveCoalescing: true)
        worker = EdgeWorker(index: 0, socket: socket, core: core)
        for number in 1 ... 3 { legs.append(try register(number)) }
    }

    /// Registers leg `number` as `MediaEdge.register` does (agent, leg, registry).
    func register(_ number: Int) throws -> EdgeLeg {
        let local = try ICECredentials(ufrag: "edg\(number)", password: Self.password)
        let description = try EdgeLegDescription(local: local, remoteUfrag: "peer", remotePassword: Self.password,
                                                 remoteFingerprint: DTLSFingerprint(sha256: [UInt8](repeating: 0xAB, count: 32))!)
        var agent = ICELiteAgent(maximumLegs: 1, consentTimeoutNanoseconds: core.configuration.consentTimeout)
        let id = ICELegID(UInt64(number))
        try agent.register(id, local: local, remoteUfrag: "peer", now: clock.nanoseconds())
        let leg = EdgeLeg(id: id, description: description, agent: agent, packetBytes: core.configuration.maximumPacketBytes)
        try core.registry.insert(leg)
        return leg
    }

    func run(_ input: UnsafeRawBufferPointer) {
        guard let first = input.first else { return }
        runs += 1
        clock.advance(by: 5_000_000)
        let now = clock.nanoseconds()
        let datagram = UnsafeRawBufferPointer(rebasing: input[1...])
        let segmentSize = first & 0x40 != 0 ? (Int(first & 0x3C) >> 2 + 1) * 16 : 0
        worker.handle(datagram, from: sources[Int(first) % sources.count], segmentSize: segmentSize, now: now)
        handled += segmentSize > 0 && segmentSize < datagram.count ? (datagram.count + segmentSize - 1) / segmentSize : 1
        if runs % 64 == 0 { worker.tick(now: now) }
        if runs % 1_024 == 0 {  // as `MediaEdge.remove`, then back
            if let leg = core.registry.remove(legs[2].id) { core.tearDown(leg) }
            legs[2] = try! register(3)
        }
        check()
    }

    /// The invariants every input must keep.
    func check() {
        let now = core.counters.snapshot
        let fields: [KeyPath<EdgeCounters, Int>] = [
            \.stunPackets, \.dtlsPackets, \.rtpPackets, \.rtcpPackets, \.unknownPackets, \.stunAnswered, \.stunUnknownUfrag,
            \.stunBadSignature, \.stunMalformed, \.dtlsGarbage, \.handshakesStarted, \.handshakesCompleted,
            \.handshakesFailed, \.handshakesTimedOut, \.handshakesRefused, \.srtpAuthFailures, \.mediaWithoutLeg,
            \.mediaDelivered, \.mediaSent, \.consentLapses, \.consentRestored, \.mediaWithheld,
        ]
        for field in fields { precondition(now[keyPath: field] >= last[keyPath: field], "a counter went down: \(field)") }
        precondition(now.stunPackets + now.dtlsPackets + now.rtpPackets + now.rtcpPackets + now.unknownPackets == handled,
                     "the per-class counters do not add up to the datagrams handled")
        // STUN is answered or dropped for one reason, exactly once.
        precondition(now.stunAnswered + now.stunUnknownUfrag + now.stunBadSignature + now.stunMalformed == now.stunPackets,
                     "STUN outcomes do not add up")
        precondition(core.registry.count == legs.count, "a leg went missing")
        for leg in legs {
            precondition(core.registry.leg(id: leg.id) === leg && core.registry.leg(ufrag: leg.description.local.ufrag) === leg,
                         "a leg is no longer registered")
        }
        last = now
        if trace { print(now) }
    }
}
