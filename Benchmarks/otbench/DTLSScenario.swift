import CBareDTLS
import OTMedia

/// `otbench dtls`: full DTLS-SRTP handshakes per CPU second, OTKit's `DTLSTransport`
/// (a client and a server transport in one process, flights handed over in memory)
/// against a bare C OpenSSL loop doing the same handshake (`CBareDTLS`: same context
/// settings, P-256 certificates, use_srtp list, memory BIOs), in the same run.
///
/// Per handshake, both sides: two SSL objects made, the four flights moved, each side's
/// peer certificate hashed and compared with the expected fingerprint, the GCM profile
/// read, the keys exported on both ends and compared, both SSLs freed. Certificates and
/// contexts are made once, outside the timing (a router makes them at start).
/// Timed on the thread's CPU clock in blocks of `blockSize` handshakes; the sides
/// alternate block by block and the first side flips every run. Goal: OTKit ≥ 0.9 of
/// the bare rate (the figures are the medians over runs).
enum DTLSScenario: Scenario {
    static let name = "dtls"
    static let summary = "DTLS-SRTP handshakes per CPU second vs a bare OpenSSL DTLS loop"

    static let defaultHandshakes = 200
    static let defaultRuns = 7
    static let blockSize = 10

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        let handshakes = max(blockSize, options.frames ?? defaultHandshakes)
        let runs = options.runs ?? defaultRuns
        let pair = try OTKitPair()
        guard let bare = bare_dtls_create() else { throw ScenarioError("dtls: the bare OpenSSL loop could not set up") }
        defer { bare_dtls_destroy(bare) }

        // Both sides work before anything is timed.
        try pair.handshake()
        let warm = bare_dtls_handshakes(bare, 1)
        guard warm == 0 else { throw ScenarioError("dtls: the bare loop failed at step \(warm)") }
        log("dtls: OTKit and bare handshakes complete (GCM, identical keys on both ends)")

        var otkitRates: [Double] = [], bareRates: [Double] = []
        for run in 0..<runs {
            var otkitNanoseconds: UInt64 = 0, bareNanoseconds: UInt64 = 0
            for block in 0..<(handshakes / blockSize) {
                let otkitNow = (block % 2 == 0) == (run % 2 == 0)
                for side in 0..<2 {
                    let start = threadCPUNanoseconds()
                    if (side == 0) == otkitNow {
                        for _ in 0..<blockSize { try pair.handshake() }
                        otkitNanoseconds += threadCPUNanoseconds() - start
                    } else {
                        let status = bare_dtls_handshakes(bare, Int32(blockSize))
                        guard status == 0 else { throw ScenarioError("dtls: the bare loop failed at step \(status)") }
                        bareNanoseconds += threadCPUNanoseconds() - start
                    }
                }
            }
            let done = Double(handshakes / blockSize * blockSize)
            otkitRates.append(done / (Double(otkitNanoseconds) / 1e9))
            bareRates.append(done / (Double(bareNanoseconds) / 1e9))
            log("  dtls run \(run + 1)/\(runs): OTKit \(TableReport.format(otkitRates.last!)) bare \(TableReport.format(bareRates.last!)) handshakes/CPU s")
        }
        let otkit = median(otkitRates.sorted()), baseline = median(bareRates.sorted())
        log("  dtls: OTKit \(TableReport.format(otkit)) (\(TableReport.format(otkitRates.min()!))–\(TableReport.format(otkitRates.max()!))), "
            + "bare \(TableReport.format(baseline)) (\(TableReport.format(bareRates.min()!))–\(TableReport.format(bareRates.max()!))) handshakes/CPU s")
        return [
            .comparedAtLeast("DTLS handshakes per CPU second", value: otkit, unit: "handshakes/CPU s", baseline: baseline, goal: 0.9),
            .info("DTLS handshake CPU (client + server)", value: 1e6 / otkit, unit: "µs", baseline: 1e6 / baseline),
        ]
    }
}

/// OTKit's side: a client and a server context with their own certificates, and the
/// reusable storage that carries flights between two transports.
private final class OTKitPair {
    let clientContext: DTLSContext
    let serverContext: DTLSContext
    /// Flights in transit: bytes and each datagram's end, reused across handshakes.
    var toServer = Flight(), toClient = Flight()

    struct Flight {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        mutating func take(from transport: DTLSTransport) {
            for index in 0..<transport.outgoingCount {
                bytes.append(contentsOf: transport.outgoingDatagram(index))
                ends.append(bytes.count)
            }
        }
        mutating func clear() {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
        }
    }

    init() throws {
        clientContext = try DTLSContext(certificate: DTLSCertificate(commonName: "bench-client"))
        serverContext = try DTLSContext(certificate: DTLSCertificate(commonName: "bench-server"))
        toServer.bytes.reserveCapacity(16_384)
        toClient.bytes.reserveCapacity(16_384)
    }

    /// One full handshake; throws unless both ends connect with GCM and matching keys.
    func handshake() throws {
        let client = try DTLSTransport(context: clientContext, role: .client, remoteFingerprint: serverContext.certificate.fingerprint)
        let server = try DTLSTransport(context: serverContext, role: .server, remoteFingerprint: clientContext.certificate.fingerprint)
        toServer.clear()
        toClient.clear()
        client.start(now: 0)
        server.start(now: 0)
        toServer.take(from: client)
        var rounds = 0
        while client.state != .connected || server.state != .connected {
            rounds += 1
            guard rounds < 32, !client.state.isFinal, !server.state.isFinal else {
                throw ScenarioError("dtls: OTKit handshake stuck or failed: client \(client.state), server \(server.state)")
            }
            deliver(&toServer, to: server, answers: &toClient)
            deliver(&toClient, to: client, answers: &toServer)
        }
        guard let clientKeys = client.srtpKeys, let serverKeys = server.srtpKeys, clientKeys.profile == .aeadAES128GCM,
              clientKeys.local == serverKeys.remote, clientKeys.remote == serverKeys.local else {
            throw ScenarioError("dtls: OTKit's two ends exported different keys")
        }
    }

    private func deliver(_ flight: inout Flight, to transport: DTLSTransport, answers: inout Flight) {
        var start = 0
        flight.bytes.withUnsafeBytes { raw in
            for end in flight.ends {
                transport.receive(UnsafeRawBufferPointer(rebasing: raw[start..<end]), now: 0)
                answers.take(from: transport)
                start = end
            }
        }
        flight.clear()
    }
}
