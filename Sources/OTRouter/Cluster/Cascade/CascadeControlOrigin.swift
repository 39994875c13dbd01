import Foundation
import OTMedia
import OTNet
import OTSignaling

/// A `CascadeOrigin` reached through its control call's wire format: requests are encoded
/// as `CascadeControlRequest` JSON with the cluster secret and handed to `send` — another
/// router's `CascadeControl` in this process (`local`), or `POST /cluster/v1/cascade` on
/// its HTTP port (`http`) — and the replies decoded. Refusals become `MediaError`
/// (`invalidArgument` with the origin's status and message; `networkFailure` when it
/// cannot be reached). Cost per call: a JSON encode and decode, plus the transport.
public struct CascadeControlOrigin: CascadeOrigin {
    private let send: @Sendable (_ body: [UInt8]) throws(MediaError) -> (status: Int, body: [UInt8])

    /// An origin reached by `send` (status and body of the reply).
    public init(send: @escaping @Sendable (_ body: [UInt8]) throws(MediaError) -> (status: Int, body: [UInt8])) {
        self.send = send
    }

    /// The origin `control` in this process, called with `secret`.
    public static func local(_ control: CascadeControl, secret: String?) -> CascadeControlOrigin {
        CascadeControlOrigin { body throws(MediaError) in
            let reply = control.handle(presented: secret, body: body)
            return (reply.status, Array(reply.body.utf8))
        }
    }

    /// The origin whose REST base is `baseURL` (`http://host:port`), called with `secret`
    /// (one blocking HTTP request per call, 5 s at most).
    public static func http(_ baseURL: String, secret: String) -> CascadeControlOrigin {
        let url = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) + CascadeControl.path : baseURL + CascadeControl.path
        return CascadeControlOrigin { body throws(MediaError) in
            do {
                let reply = try HTTPClient.request("POST", url, headers: [CascadeControl.secretHeader: secret,
                                                                          "Content-Type": "application/json"],
                                                   body: body, timeoutSeconds: 5)
                return (reply.status, reply.body)
            } catch {
                throw MediaError(.networkFailure, "the origin at \(baseURL) cannot be reached: \(error)")
            }
        }
    }

    /// `open` (see `CascadeOrigin`): one call, the reply decoded as a `WireMediaLeg`.
    public func openEgress(streamId: String, node: String, transport: WireTransport) throws(MediaError) -> WireMediaLeg {
        let reply = try call(CascadeControlRequest(action: .open, streamId: streamId, node: node, transport: transport))
        guard let leg = try? JSONDecoder().decode(WireMediaLeg.self, from: Data(reply)) else {
            throw MediaError(.networkFailure, "the origin's cascade answer is not a media leg")
        }
        return leg
    }

    /// `close` (see `CascadeOrigin`): one call, errors dropped.
    public func closeEgress(streamId: String, node: String) {
        _ = try? call(CascadeControlRequest(action: .close, streamId: streamId, node: node))
    }

    /// `preferences` (see `CascadeOrigin`): one call, errors dropped.
    public func setPreferences(streamId: String, node: String, width: Int?, height: Int?, frameRate: Double?) {
        _ = try? call(CascadeControlRequest(action: .preferences, streamId: streamId, node: node, width: width, height: height,
                                            frameRate: frameRate))
    }

    private func call(_ request: CascadeControlRequest) throws(MediaError) -> [UInt8] {
        let body: [UInt8]
        do { body = Array(try JSONEncoder().encode(request)) } catch {
            throw MediaError(.invalidArgument, "cannot encode the cascade request")
        }
        let reply = try send(body)
        guard reply.status == 200 else {
            let message = (try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])?["message"] as? String ?? ""
            throw MediaError(.invalidArgument, "the origin refused the cascade request: \(reply.status) \(message.prefix(200))")
        }
        return reply.body
    }
}
