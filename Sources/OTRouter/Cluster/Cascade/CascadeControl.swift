import Foundation
import OTMedia
import OTSignaling
import Synchronization

/// The origin's end of the cascade control call, `POST /cluster/v1/cascade` on the
/// router's HTTP port: authenticates the caller by the cluster secret (header
/// `X-OTKit-Cluster-Secret`, compared in constant time), reads the request
/// (`CascadeControlRequest.parse`) and opens, closes or steers the egress
/// (`MediaRouter+CascadeEgress`). The reply to `open` is the egress leg as JSON
/// (`WireMediaLeg`: edge address, ICE credentials, fingerprint, SSRCs; no key);
/// the others answer `{}`. Refusals: 401 without a secret, 403 with a wrong one or when
/// this router has none configured, 400 for a bad body, 404 for a stream not published
/// here, 503 when the edge refuses the leg; each is counted (`requestsRefused`,
/// `requestsUnknownStream` in the router's `cascadeCounters`). Cost per call: one JSON
/// decode and encode, plus the egress' own cost.
public struct CascadeControl: Sendable {
    /// The header that carries the cluster secret.
    public static let secretHeader = "x-otkit-cluster-secret"
    /// The path of the call.
    public static let path = "/cluster/v1/cascade"

    /// The router whose streams are cascaded.
    public let router: MediaRouter
    private let secret: [UInt8]?

    /// A control for `router`, accepting callers that present `secret` (nil or empty:
    /// every call is refused with 403).
    public init(router: MediaRouter, secret: String?) {
        self.router = router
        self.secret = secret.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    /// Handles one call: `presented` is the secret header's value (nil when absent).
    /// Returns the status and JSON body.
    public func handle(presented: String?, body: [UInt8]) -> (status: Int, body: String) {
        switch answer(presented: presented, body: body) {
        case .success(let text): return (200, text)
        case .failure(let refusal):
            let text = (try? JSONSerialization.data(withJSONObject: ["code": refusal.status, "message": refusal.message]))
                .flatMap { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return (refusal.status, text)
        }
    }

    private func answer(presented: String?, body: [UInt8]) -> Result<String, CascadeControlError> {
        guard let presented, !presented.isEmpty else {
            router.cascadeCounters.requestsRefused.add(1, ordering: .relaxed)
            return .failure(CascadeControlError(401, "the cluster secret is missing (\(Self.secretHeader))"))
        }
        guard let secret, Self.same(Array(presented.utf8), secret) else {
            router.cascadeCounters.requestsRefused.add(1, ordering: .relaxed)
            return .failure(CascadeControlError(403, "the cluster secret is wrong"))
        }
        let request: CascadeControlRequest
        switch CascadeControlRequest.parse(body) {
        case .success(let parsed): request = parsed
        case .failure(let refusal):
            router.cascadeCounters.requestsRefused.add(1, ordering: .relaxed)
            return .failure(refusal)
        }
        switch request.action {
        case .open:
            do {
                let leg = try router.openCascadeEgress(streamId: request.streamId, node: request.node, transport: request.transport!)
                let data = try JSONEncoder().encode(leg)
                return .success(String(decoding: data, as: UTF8.self))
            } catch let error as MediaError {
                if !router.isForwarded(streamId: request.streamId) {
                    return .failure(CascadeControlError(404, "no stream \(request.streamId) is published on this router"))
                }
                return .failure(CascadeControlError(error.code == .invalidArgument ? 400 : 503, error.message))
            } catch {
                return .failure(CascadeControlError(500, "cannot encode the leg"))
            }
        case .close:
            router.closeCascadeEgress(streamId: request.streamId, node: request.node)
            return .success("{}")
        case .preferences:
            router.setCascadePreferences(streamId: request.streamId, node: request.node, width: request.width, height: request.height,
                                         frameRate: request.frameRate)
            return .success("{}")
        }
    }

    /// Constant-time comparison (the time does not tell how much of a guess was right).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}

extension MediaRouter {
    /// Whether `streamId` has a forwarding group here. Cost: a registry lookup.
    public func isForwarded(streamId: String) -> Bool { registry.withLock { $0.groups[streamId] != nil } }
}
