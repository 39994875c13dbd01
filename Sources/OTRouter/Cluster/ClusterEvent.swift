import Foundation

/// A message on the cluster's pub/sub channel (JSON): a session created somewhere, or
/// nodes pruned. Payloads from the channel are size-checked and decoded, never trusted.
struct ClusterEvent: Codable, Sendable {
    /// `session` or `pruned`.
    var kind: String
    /// The node that published it.
    var from: String
    /// For `session`: the record.
    var session: ClusterSessionRecord?
    /// For `pruned`: the node ids removed.
    var nodes: [String]?

    /// Largest payload read from the channel, bytes.
    static let maxPayloadBytes = 64 << 10

    /// JSON bytes. Cost: an encode.
    func encoded() -> [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }

    /// The event in `payload`, nil when it is too large or not an event.
    static func decode(_ payload: [UInt8]) -> ClusterEvent? {
        guard payload.count <= maxPayloadBytes else { return nil }
        return try? JSONDecoder().decode(ClusterEvent.self, from: Data(payload))
    }
}
