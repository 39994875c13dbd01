import Foundation
import OTSignaling

/// One cascade control request, the body of `POST /cluster/v1/cascade` (JSON):
/// `{"action":"open"|"close"|"preferences","streamId":…,"node":…,"transport":{"iceUfrag",
/// "icePassword","fingerprint"},"width":…,"height":…,"frameRate":…}` — `transport` for
/// `open` only, the sizes for `preferences` only (each optional: absent = no limit).
///
/// `parse` checks everything a request carries before it is used: at most 16 KiB, a
/// known action, a stream id of 1...256 bytes, a node id of 1...64 of `A-Z a-z 0-9 . _ -`,
/// width and height in 1...16384, a finite frame rate in (0, 1000]. The transport's ICE
/// and fingerprint grammar is checked later by the edge (`WireTransport.problem`).
/// Fuzzed by `Fuzz/CascadeControlFuzz.swift`. Cost: one JSON decode of the body.
public struct CascadeControlRequest: Codable, Sendable, Equatable {
    /// What the request asks.
    public enum Action: String, Codable, Sendable {
        /// Open (or re-open) the egress of `streamId` towards `node`.
        case open
        /// Close it.
        case close
        /// Set its layer preferences (the receiving node's aggregate).
        case preferences
    }

    /// What is asked.
    public var action: Action
    /// The stream, as published on the origin.
    public var streamId: String
    /// The receiving node's id.
    public var node: String
    /// The receiving node's ICE credentials and certificate fingerprint (`open`).
    public var transport: WireTransport?
    /// The largest width any subscriber there wants (`preferences`; nil: no limit).
    public var width: Int?
    /// The largest height (`preferences`; nil: no limit).
    public var height: Int?
    /// The highest frame rate (`preferences`; nil: no limit).
    public var frameRate: Double?

    /// The largest body accepted.
    public static let maximumBodyBytes = 16 << 10

    /// A request with every field given.
    public init(action: Action, streamId: String, node: String, transport: WireTransport? = nil, width: Int? = nil,
                height: Int? = nil, frameRate: Double? = nil) {
        self.action = action
        self.streamId = streamId
        self.node = node
        self.transport = transport
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// The request in `body`, or a sentence saying what is wrong with it (for a 400).
    public static func parse(_ body: [UInt8]) -> Result<CascadeControlRequest, CascadeControlError> {
        guard body.count <= maximumBodyBytes else { return .failure(.badRequest("the body is over \(maximumBodyBytes) bytes")) }
        let request: CascadeControlRequest
        do { request = try JSONDecoder().decode(CascadeControlRequest.self, from: Data(body)) } catch {
            return .failure(.badRequest("the body is not a cascade request (JSON with action, streamId, node)"))
        }
        if let problem = request.problem { return .failure(.badRequest(problem)) }
        return .success(request)
    }

    /// What is wrong with the fields, nil when nothing.
    var problem: String? {
        guard (1...256).contains(streamId.utf8.count) else { return "streamId must be 1-256 bytes" }
        guard (1...64).contains(node.utf8.count),
              node.utf8.allSatisfy({ $0 == 0x2E || $0 == 0x5F || $0 == 0x2D || (0x30...0x39).contains($0) ||
                                     (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return "node must be 1-64 of A-Z a-z 0-9 . _ -" }
        if action == .open, transport == nil { return "an open request needs the node's transport" }
        for size in [width, height] {
            if let size, !(1...16_384).contains(size) { return "width and height must be 1-16384" }
        }
        if let frameRate, !(frameRate.isFinite && frameRate > 0 && frameRate <= 1_000) { return "frameRate must be in (0, 1000]" }
        return nil
    }
}

/// Why a cascade control request was refused: its HTTP status and a sentence.
public struct CascadeControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400 bad request, 401 no secret, 403 wrong secret (or none configured), 404 unknown
    /// stream, 503 the origin cannot open the leg.
    public var status: Int
    /// What went wrong, for a person.
    public var message: String

    /// A refusal with `status` and `message`.
    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A 400.
    static func badRequest(_ message: String) -> CascadeControlError { CascadeControlError(400, message) }

    /// "<status> <message>".
    public var description: String { "\(status) \(message)" }
}
