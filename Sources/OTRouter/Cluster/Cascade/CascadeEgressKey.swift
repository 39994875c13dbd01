/// One cascade egress: a stream of this router sent to one other node. At most one leg
/// per key, however many subscribers that node has.
struct CascadeEgressKey: Hashable, Sendable {
    /// The stream forwarded.
    let streamId: String
    /// The node it is forwarded to.
    let node: String

    /// The subscriber id of the egress leg (never a client's: ids from signaling have no "/").
    var subscriberId: String { "cascade/\(node)/\(streamId)" }
}
