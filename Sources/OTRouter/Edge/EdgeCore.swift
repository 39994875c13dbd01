import Glibc
import OTMedia
import Synchronization

/// What the edge hands the router for each SRTP or SRTCP packet a leg's peer sent, once
/// unprotected: the leg, the plain RTP or RTCP bytes (valid only during the call: copy
/// what must outlive it) and whether it is RTCP. Called on a worker thread; it must not
/// block.
public typealias EdgeReceiveHandler = @Sendable (_ leg: EdgeLegID, _ packet: UnsafeRawBufferPointer, _ isRTCP: Bool) -> Void

/// What the workers of one edge share: configuration, legs, counters, DTLS context and
/// admission caps, the clock, the receive handler and the stop flag. Immutable apart
/// from the thread-safe parts.
final class EdgeCore: Sendable {
    let configuration: MediaEdgeConfiguration
    let registry: EdgeLegRegistry
    let counters = EdgeCounterSet()
    let context: DTLSContext
    let admission: DTLSHandshakeAdmission
    let clock: any MediaClock
    let receive: EdgeReceiveHandler
    let ended: EdgeLegEndedHandler?
    let stopping = Atomic<Bool>(false)
    /// The CPU clocks of the running workers (each adds its own as it starts).
    let workerClocks = Mutex<[clockid_t]>([])

    init(configuration: MediaEdgeConfiguration, context: DTLSContext, clock: any MediaClock,
         ended: EdgeLegEndedHandler?, receive: @escaping EdgeReceiveHandler) {
        self.configuration = configuration
        registry = EdgeLegRegistry(maximumLegs: configuration.maximumLegs)
        self.context = context
        admission = DTLSHandshakeAdmission(perSource: configuration.handshakesPerSource, total: configuration.handshakesTotal)
        self.clock = clock
        self.receive = receive
        self.ended = ended
    }

    /// Ends a leg's handshake bookkeeping: gives back its admission slot (once).
    func releaseAdmission(_ state: inout EdgeLegState) {
        if let source = state.admittedFrom {
            admission.finished(from: source)
            state.admittedFrom = nil
        }
    }

    /// Frees what a removed leg holds: its admission slot, its SSL object and
    /// its SRTP sessions. Takes the leg's locks briefly.
    func tearDown(_ leg: EdgeLeg) {
        leg.state.withLock { state in
            releaseAdmission(&state)
            state.dtls?.close()
            state.dtls = nil
            state.receiver = nil
        }
        leg.sender.withLock { $0.session = nil }
    }
}
