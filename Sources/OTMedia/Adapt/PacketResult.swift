/// One sent packet as transport-wide feedback reports it.
///
/// (PACE's copy of the shared definition, with doc comments for
/// scripts/check-doc-comments.py; ESTIMATE owns the file, the declarations are the same.)
public struct PacketResult: Sendable, Equatable {
    /// Transport-wide sequence number, unwrapped.
    public var sequenceNumber: UInt64
    /// When it was sent, sender's clock (nanoseconds).
    public var sendNanoseconds: UInt64
    /// When it arrived, receiver's clock (only differences matter); nil = lost.
    public var arrivalNanoseconds: UInt64?
    /// Bytes on the wire.
    public var size: Int
    /// Builds a result.
    public init(sequenceNumber: UInt64, sendNanoseconds: UInt64, arrivalNanoseconds: UInt64?, size: Int) {
        self.sequenceNumber = sequenceNumber
        self.sendNanoseconds = sendNanoseconds
        self.arrivalNanoseconds = arrivalNanoseconds
        self.size = size
    }
}
