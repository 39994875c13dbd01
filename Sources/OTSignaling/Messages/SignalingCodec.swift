import Foundation

/// Turns signaling messages into JSON text and back. Every message is one object:
///
/// ```
/// {"type":"publish","requestId":3,"body":{"name":"cam","hasAudio":true,...}}
/// {"type":"streamDestroyed","body":{"streamId":"…","reason":"clientDisconnected"}}
/// {"type":"pong","requestId":9}
/// ```
/// `type` names the case, `requestId` pairs a reply with its request (absent on events),
/// `seq` numbers an event for acknowledgement and replay after a resume (events only;
/// ``decodeServerFrame(_:)`` returns it), `body` holds the case's fields (absent when it
/// has none). Unknown types, missing
/// fields, wrong JSON types, numbers outside ``ClientMessageLimits`` and messages over
/// ``maximumMessageBytes`` are refused with ``SignalingDecodingError``. Cost: one Foundation JSON encode or decode per message
/// (signaling is not on the media path).
public enum SignalingCodec {
    /// The largest message accepted: an 8 KiB signal, escaped, plus room to spare.
    public static let maximumMessageBytes = 64 * 1024

    /// The JSON text of a client message.
    public static func encode(_ message: ClientMessage, requestId: Int) -> String {
        switch message {
        case .connect(let body): return write("connect", requestId, body)
        case .publish(let body): return write("publish", requestId, body)
        case .unpublish(let streamId): return write("unpublish", requestId, StreamRef(streamId: streamId))
        case .subscribe(let body): return write("subscribe", requestId, body)
        case .unsubscribe(let subscriberId): return write("unsubscribe", requestId, SubscriberRef(subscriberId: subscriberId))
        case .signal(let body): return write("signal", requestId, body)
        case .streamChanged(let body): return write("streamChanged", requestId, body)
        case .subscriptionChanged(let body): return write("subscriptionChanged", requestId, body)
        case .subscriberPreferences(let body): return write("subscriberPreferences", requestId, body)
        case .forceMuteAll(let excluded): return write("forceMuteAll", requestId, Exclusions(excludedStreamIds: excluded))
        case .forceMuteStream(let streamId): return write("forceMuteStream", requestId, StreamRef(streamId: streamId))
        case .disableForceMute: return write("disableForceMute", requestId, Empty?.none)
        case .forceDisconnect(let connectionId): return write("forceDisconnect", requestId, ConnectionRef(connectionId: connectionId))
        case .reportIssue(let body): return write("reportIssue", requestId, body)
        case .ping: return write("ping", requestId, Empty?.none)
        case .acknowledgeEvents(let through): return write("ack", requestId, EventRef(eventSeq: through))
        case .disconnect: return write("disconnect", requestId, Empty?.none)
        case .subscriberAnswer(let body): return write("subscriberAnswer", requestId, body)
        }
    }

    /// The JSON text of a server message; `requestId` is set on replies, nil on events.
    /// `eventSeq` (events only) numbers the event for acknowledgement and replay.
    public static func encode(_ message: ServerMessage, requestId: Int? = nil, eventSeq: Int? = nil) -> String {
        func write<Body: Encodable>(_ type: String, _ requestId: Int?, _ body: Body?) -> String {
            SignalingCodec.write(type, requestId, body, seq: eventSeq)
        }
        switch message {
        case .connected(let body): return write("connected", requestId, body)
        case .published(let body): return write("published", requestId, body)
        case .subscribed(let body): return write("subscribed", requestId, body)
        case .issueReported(let issueId): return write("issueReported", requestId, IssueRef(issueId: issueId))
        case .ok: return write("ok", requestId, Empty?.none)
        case .error(let body): return write("error", requestId, body)
        case .pong: return write("pong", requestId, Empty?.none)
        case .connectionCreated(let body): return write("connectionCreated", requestId, body)
        case .connectionDestroyed(let id, let reason):
            return write("connectionDestroyed", requestId, ConnectionGone(connectionId: id, reason: reason))
        case .streamCreated(let body): return write("streamCreated", requestId, body)
        case .streamDestroyed(let id, let reason):
            return write("streamDestroyed", requestId, StreamGone(streamId: id, reason: reason))
        case .streamChanged(let body): return write("streamChanged", requestId, body)
        case .streamInterrupted(let id): return write("streamInterrupted", requestId, StreamRef(streamId: id))
        case .streamResumed(let id): return write("streamResumed", requestId, StreamRef(streamId: id))
        case .signal(let type, let data, let from):
            return write("signal", requestId, SignalEvent(type: type, data: data, from: from))
        case .muteForced(let streamId, let active):
            return write("muteForced", requestId, MuteForced(streamId: streamId, active: active))
        case .archiveStarted(let body): return write("archiveStarted", requestId, body)
        case .archiveStopped(let id): return write("archiveStopped", requestId, ArchiveRef(archiveId: id))
        case .disconnected(let reason, let code):
            return write("disconnected", requestId, Disconnected(reason: reason, code: code))
        case .subscriberQuality(let body): return write("subscriberQuality", requestId, body)
        case .encodingPreferences(let body): return write("encodingPreferences", requestId, body)
        case .relayedReceiversRevoked(let body): return write("relayedReceiversRevoked", requestId, body)
        case .mediaFailed(let body): return write("mediaFailed", requestId, body)
        case .move(let body): return write("move", requestId, body)
        }
    }

    /// Parses a message a client sent, with its request id.
    public static func decodeClientMessage(_ text: String) throws(SignalingDecodingError) -> (message: ClientMessage, requestId: Int) {
        let envelope = try read(text)
        guard let requestId = envelope.requestId else { throw .missingField("requestId") }
        let message: ClientMessage
        switch envelope.type {
        case "connect": message = .connect(try body(envelope))
        case "publish": message = .publish(try body(envelope))
        case "unpublish": message = .unpublish(streamId: try body(envelope, StreamRef.self).streamId)
        case "subscribe": message = .subscribe(try body(envelope))
        case "unsubscribe": message = .unsubscribe(subscriberId: try body(envelope, SubscriberRef.self).subscriberId)
        case "signal": message = .signal(try body(envelope))
        case "streamChanged": message = .streamChanged(try body(envelope))
        case "subscriptionChanged": message = .subscriptionChanged(try body(envelope))
        case "subscriberPreferences": message = .subscriberPreferences(try body(envelope))
        case "forceMuteAll": message = .forceMuteAll(excludedStreamIds: try body(envelope, Exclusions.self).excludedStreamIds)
        case "forceMuteStream": message = .forceMuteStream(streamId: try body(envelope, StreamRef.self).streamId)
        case "disableForceMute": message = .disableForceMute
        case "forceDisconnect": message = .forceDisconnect(connectionId: try body(envelope, ConnectionRef.self).connectionId)
        case "reportIssue": message = .reportIssue(try body(envelope))
        case "ping": message = .ping
        case "ack": message = .acknowledgeEvents(through: try body(envelope, EventRef.self).eventSeq)
        case "disconnect": message = .disconnect
        case "subscriberAnswer": message = .subscriberAnswer(try body(envelope))
        default: throw .unknownType(envelope.type)
        }
        try ClientMessageLimits.check(message)
        return (message, requestId)
    }

    /// Parses a message the router sent, with its request id (nil on events).
    public static func decodeServerMessage(_ text: String) throws(SignalingDecodingError) -> (message: ServerMessage, requestId: Int?) {
        let frame = try decodeServerFrame(text)
        return (frame.message, frame.requestId)
    }

    /// Parses a message the router sent, with its request id (nil on events) and its event
    /// sequence number (nil on replies and from routers that number nothing).
    public static func decodeServerFrame(_ text: String) throws(SignalingDecodingError)
        -> (message: ServerMessage, requestId: Int?, eventSeq: Int?) {
        let envelope = try read(text)
        let message: ServerMessage
        switch envelope.type {
        case "connected": message = .connected(try body(envelope))
        case "published": message = .published(try body(envelope))
        case "subscribed": message = .subscribed(try body(envelope))
        case "issueReported": message = .issueReported(issueId: try body(envelope, IssueRef.self).issueId)
        case "ok": message = .ok
        case "error": message = .error(try body(envelope))
        case "pong": message = .pong
        case "connectionCreated": message = .connectionCreated(try body(envelope))
        case "connectionDestroyed":
            let gone = try body(envelope, ConnectionGone.self)
            message = .connectionDestroyed(connectionId: gone.connectionId, reason: gone.reason)
        case "streamCreated": message = .streamCreated(try body(envelope))
        case "streamDestroyed":
            let gone = try body(envelope, StreamGone.self)
            message = .streamDestroyed(streamId: gone.streamId, reason: gone.reason)
        case "streamChanged": message = .streamChanged(try body(envelope))
        case "streamInterrupted": message = .streamInterrupted(streamId: try body(envelope, StreamRef.self).streamId)
        case "streamResumed": message = .streamResumed(streamId: try body(envelope, StreamRef.self).streamId)
        case "signal":
            let signal = try body(envelope, SignalEvent.self)
            message = .signal(type: signal.type, data: signal.data, from: signal.from)
        case "muteForced":
            let mute = try body(envelope, MuteForced.self)
            message = .muteForced(streamId: mute.streamId, active: mute.active)
        case "archiveStarted": message = .archiveStarted(try body(envelope))
        case "archiveStopped": message = .archiveStopped(archiveId: try body(envelope, ArchiveRef.self).archiveId)
        case "disconnected":
            let gone = try body(envelope, Disconnected.self)
            message = .disconnected(reason: gone.reason, code: gone.code)
        case "subscriberQuality": message = .subscriberQuality(try body(envelope))
        case "encodingPreferences": message = .encodingPreferences(try body(envelope))
        case "relayedReceiversRevoked": message = .relayedReceiversRevoked(try body(envelope))
        case "mediaFailed": message = .mediaFailed(try body(envelope))
        case "move": message = .move(try body(envelope))
        default: throw .unknownType(envelope.type)
        }
        return (message, envelope.requestId, envelope.seq)
    }

    // MARK: - Envelope

    /// The message's head; the body is decoded in a second pass once `type` is known.
    private struct Envelope: Decodable {
        var type: String
        var requestId: Int?
        var seq: Int?
        var hasBody: Bool
        var data = Data()

        enum CodingKeys: String, CodingKey { case type, requestId, seq, body }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            requestId = try container.decodeIfPresent(Int.self, forKey: .requestId)
            seq = try container.decodeIfPresent(Int.self, forKey: .seq)
            hasBody = container.contains(.body)
        }
    }

    private struct TypedBody<Body: Decodable>: Decodable {
        var body: Body
    }

    private struct OutEnvelope<Body: Encodable>: Encodable {
        var type: String
        var requestId: Int?
        var seq: Int?
        var body: Body?
    }

    private static func write<Body: Encodable>(_ type: String, _ requestId: Int?, _ body: Body?, seq: Int? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding our own Codable structs of strings, numbers and bools cannot fail.
        let data = (try? encoder.encode(OutEnvelope(type: type, requestId: requestId, seq: seq, body: body))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func read(_ text: String) throws(SignalingDecodingError) -> Envelope {
        guard text.utf8.count <= maximumMessageBytes else { throw .tooLarge(text.utf8.count) }
        let data = Data(text.utf8)
        do {
            var envelope = try JSONDecoder().decode(Envelope.self, from: data)
            envelope.data = data
            return envelope
        } catch {
            throw .malformed(describe(error))
        }
    }

    private static func body<T: Decodable>(_ envelope: Envelope, _ type: T.Type = T.self) throws(SignalingDecodingError) -> T {
        guard envelope.hasBody else { throw .missingField("body") }
        do {
            return try JSONDecoder().decode(TypedBody<T>.self, from: envelope.data).body
        } catch {
            throw .malformed("\(envelope.type): \(describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            // The second pass sees paths from the envelope ("body.type"); report them from the body.
            let path = context.codingPath.map(\.stringValue).filter { $0 != "body" }.joined(separator: ".")
            if path.isEmpty { return "not JSON" }
            return "wrong type at \"\(path)\""
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "bad value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        default: return "not a signaling message"
        }
    }

    // MARK: - Small bodies

    private struct Empty: Codable {}
    private struct StreamRef: Codable { var streamId: String }
    private struct SubscriberRef: Codable { var subscriberId: String }
    private struct ConnectionRef: Codable { var connectionId: String }
    private struct IssueRef: Codable { var issueId: String }
    private struct ArchiveRef: Codable { var archiveId: String }
    private struct EventRef: Codable { var eventSeq: Int }
    private struct Exclusions: Codable { var excludedStreamIds: [String] }
    private struct ConnectionGone: Codable { var connectionId: String; var reason: String }
    private struct StreamGone: Codable { var streamId: String; var reason: String }
    private struct SignalEvent: Codable { var type: String; var data: String; var from: String? }
    private struct MuteForced: Codable { var streamId: String?; var active: Bool }
    private struct Disconnected: Codable { var reason: String; var code: Int? }
}

/// Why a signaling message was refused. The router answers it with OpenTok's
/// `OTNullOrInvalidParameter` (1011) and counts it; the client drops it and logs.
public enum SignalingDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not JSON, or a field of the wrong type; says where.
    case malformed(String)
    /// A required field is missing.
    case missingField(String)
    /// The `type` names no message.
    case unknownType(String)
    /// Longer than ``SignalingCodec/maximumMessageBytes``.
    case tooLarge(Int)
    /// A number outside its range (``ClientMessageLimits``); says which and why.
    case outOfRange(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .malformed(let what): return "malformed signaling message: \(what)"
        case .missingField(let field): return "signaling message without \"\(field)\""
        case .unknownType(let type): return "unknown signaling message type \"\(type)\""
        case .outOfRange(let what): return "signaling message with a number out of range: \(what)"
        case .tooLarge(let bytes): return "signaling message of \(bytes) bytes exceeds the \(SignalingCodec.maximumMessageBytes)-byte limit"
        }
    }
}
