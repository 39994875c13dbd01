import Foundation
import OTSignaling

/// A client connected to a session (`OTConnection`): your own (`OTSession.connection`)
/// or another one (`session(_:connectionCreated:)`, a signal's sender). Immutable.
public final class OTConnection: Sendable, Hashable, CustomStringConvertible {
    /// The router-assigned id, unique within the session; kept across reconnections.
    public let connectionId: String
    /// When the client connected.
    public let creationTime: Date
    /// The token's connection data (`data=` when the token was made), nil when none.
    public let data: String?

    /// A connection with every field given (the SDK makes these; public for tests and
    /// tools that fabricate events).
    public init(connectionId: String, creationTime: Date, data: String?) {
        self.connectionId = connectionId
        self.creationTime = creationTime
        self.data = data
    }

    convenience init(_ wire: WireConnection) {
        self.init(connectionId: wire.connectionId,
                  creationTime: Date(timeIntervalSince1970: Double(wire.creationTime) / 1000), data: wire.data)
    }

    /// Connections are equal when their ids are.
    public static func == (lhs: OTConnection, rhs: OTConnection) -> Bool { lhs.connectionId == rhs.connectionId }
    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(connectionId) }
    /// "OTConnection(<id>)".
    public var description: String { "OTConnection(\(connectionId))" }
}
