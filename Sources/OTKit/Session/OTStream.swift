import Foundation
import OTSignaling
import Synchronization

/// The kind of video a stream carries (`OTStreamVideoType`, OpenTok's numbers).
public enum OTStreamVideoType: Int32, Sendable, CaseIterable {
    /// A camera.
    case camera = 1
    /// A screen capture.
    case screen = 2
    /// A custom capturer.
    case custom = 3

    init(wire: String) {
        switch wire {
        case "screen": self = .screen
        case "custom": self = .custom
        default: self = .camera
        }
    }

    var wire: String {
        switch self {
        case .camera: return "camera"
        case .screen: return "screen"
        case .custom: return "custom"
        }
    }
}

/// A video size in pixels (CGSize stands in on iOS).
public struct OTVideoDimensions: Sendable, Hashable {
    /// Width, pixels.
    public var width: Int
    /// Height, pixels.
    public var height: Int
    /// A size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A published stream in a session (`OTStream`): yours (`OTPublisherKit.stream`) or
/// another client's (`session(_:streamCreated:)`, `OTSession.streams`). `hasAudio` and
/// `hasVideo` follow the publisher's publishAudio / publishVideo (and forced mutes) as
/// the router announces them. Cost: a lock-protected pair of flags.
public final class OTStream: Sendable, Hashable, CustomStringConvertible {
    /// The router-assigned id (a UUID string).
    public let streamId: String
    /// The connection that publishes it.
    public let connection: OTConnection
    /// When it was published.
    public let creationTime: Date
    /// The publisher's name; nil when it published without one (as OpenTok's `String?`).
    public let name: String?
    /// The kind of video.
    public let videoType: OTStreamVideoType
    /// Encoded picture size, as the publisher last announced it (it changes when the
    /// publisher's quality adaptation changes its resolution).
    public var videoDimensions: OTVideoDimensions { dimensions.withLock { $0 } }
    private let dimensions: Mutex<OTVideoDimensions>
    private let flags: Mutex<(audio: Bool, video: Bool)>
    private let owner: Mutex<WeakSession>

    /// Whether the publisher sends audio now.
    public var hasAudio: Bool { flags.withLock { $0.audio } }
    /// Whether the publisher sends video now.
    public var hasVideo: Bool { flags.withLock { $0.video } }
    /// The session it belongs to (nil once that session is gone).
    public var session: OTSession? { owner.withLock { $0.session } }

    /// A stream with every field given (the SDK makes these; public for tests and tools).
    public init(streamId: String, connection: OTConnection, session: OTSession?, creationTime: Date, name: String?,
                hasAudio: Bool, hasVideo: Bool, videoDimensions: OTVideoDimensions, videoType: OTStreamVideoType) {
        self.streamId = streamId
        self.connection = connection
        self.creationTime = creationTime
        self.name = name
        self.videoType = videoType
        self.dimensions = Mutex(videoDimensions)
        self.flags = Mutex((hasAudio, hasVideo))
        self.owner = Mutex(WeakSession(session))
    }

    convenience init(_ wire: WireStream, connection: OTConnection, session: OTSession?) {
        self.init(streamId: wire.streamId, connection: connection, session: session,
                  creationTime: Date(timeIntervalSince1970: Double(wire.creationTime) / 1000),
                  name: wire.name.isEmpty ? nil : wire.name,
                  hasAudio: wire.hasAudio, hasVideo: wire.hasVideo,
                  videoDimensions: OTVideoDimensions(width: wire.videoWidth, height: wire.videoHeight),
                  videoType: OTStreamVideoType(wire: wire.videoType))
    }

    /// Applies a change; returns whether anything changed.
    @discardableResult
    func update(hasAudio: Bool?, hasVideo: Bool?) -> Bool {
        flags.withLock { flags in
            let before = flags
            if let hasAudio { flags.audio = hasAudio }
            if let hasVideo { flags.video = hasVideo }
            return before != flags
        }
    }

    /// Sets a new encoded size; returns whether it changed.
    @discardableResult
    func update(videoDimensions new: OTVideoDimensions) -> Bool {
        dimensions.withLock { current in
            defer { current = new }
            return current != new
        }
    }

    /// Streams are equal when their ids are.
    public static func == (lhs: OTStream, rhs: OTStream) -> Bool { lhs.streamId == rhs.streamId }
    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(streamId) }
    /// "OTStream(<id>)".
    public var description: String { "OTStream(\(streamId))" }
}

/// A weak reference that can sit in a Mutex.
struct WeakSession: @unchecked Sendable {
    weak var session: OTSession?
    init(_ session: OTSession?) { self.session = session }
}
