/// One sent packet as transport-wide feedback reports it.
///
/// Produced by the pacing layer from the sent-packet history and a transport-wide
/// congestion control feedback message (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1: sequence number and receive delta per packet; RFC 8888 carries the same facts),
/// consumed by the bandwidth estimator. A plain value: no allocation, no references.
public struct PacketResult: Sendable, Equatable {
    /// Transport-wide sequence number, unwrapped to 64 bits.
    public var sequenceNumber: UInt64
    /// When the sender put the packet on the wire, on the sender's clock (nanoseconds).
    public var sendNanoseconds: UInt64
    /// When the receiver got it, on the receiver's clock (nanoseconds); only differences
    /// between two arrivals mean anything. nil: the feedback reports it lost.
    public var arrivalNanoseconds: UInt64?
    /// Bytes on the wire (RTP header, payload, padding, SRTP tag).
    public var size: Int
    /// Creates a result; costs nothing beyond the copy.
    public init(sequenceNumber: UInt64, sendNanoseconds: UInt64, arrivalNanoseconds: UInt64?, size: Int) {
        self.sequenceNumber = sequenceNumber
        self.sendNanoseconds = sendNanoseconds
        self.arrivalNanoseconds = arrivalNanoseconds
        self.size = size
    }
}
