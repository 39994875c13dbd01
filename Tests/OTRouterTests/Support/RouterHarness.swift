import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import Testing

/// Test fixtures: two projects, a service with a fake media plane, and helpers that
/// drive the signaling handler through fake peers.
enum Fixture {
    static let project = ProjectCredentials(apiKey: "12345678", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    static let other = ProjectCredentials(apiKey: "87654321", apiSecret: "fedcba9876543210fedcba9876543210fedcba98")

    static func configuration(grace: Double = 30, silence: Double = 5) -> RouterConfiguration {
        var configuration = RouterConfiguration()
        configuration.projects = [project, other]
        configuration.reconnectGraceSeconds = grace
        configuration.silenceTimeoutSeconds = silence
        configuration.logLevel = .off
        return configuration
    }
}

/// One router service plus what the tests need around it.
final class Harness {
    let media = FakeMedia()
    let service: RouterService
    let sessionId: String
    private var nextRequest = 100

    init(grace: Double = 30, silence: Double = 5, relayed: Bool = false, limits: RouterLimits = RouterLimits(),
         maxConnectionsPerSession: Int = 3000) throws {
        var configuration = Fixture.configuration(grace: grace, silence: silence)
        configuration.limits = limits
        configuration.maxConnectionsPerSession = maxConnectionsPerSession
        service = RouterService(configuration: configuration, media: media)
        sessionId = try service.createSession(apiKey: Fixture.project.apiKey, relayed: relayed)
    }

    deinit { service.stop() }

    func token(_ role: Role = .publisher, data: String? = nil, session: String? = nil) throws -> String {
        try OpenTokToken.generate(sessionID: session ?? sessionId, credentials: Fixture.project, role: role, connectionData: data)
    }

    /// Opens a socket on the session's signaling path.
    func open(session: String? = nil, from address: String = "127.0.0.1:9") -> FakePeer {
        let peer = FakePeer(remoteAddress: address)
        service.webSocketOpened(peer, path: "/v1/session/\(session ?? sessionId)/ws", query: [])
        return peer
    }

    /// Sends a request and returns its reply.
    @discardableResult
    func request(_ peer: FakePeer, _ message: ClientMessage) -> ServerMessage? {
        nextRequest += 1
        service.webSocketReceived(peer, text: SignalingCodec.encode(message, requestId: nextRequest))
        return peer.reply(to: nextRequest)
    }

    /// Connects a new client; returns its peer and connected reply.
    func join(_ role: Role = .publisher, data: String? = nil, session: String? = nil,
              from address: String = "127.0.0.1:9") throws -> (peer: FakePeer, reply: ConnectedReply) {
        let peer = open(session: session, from: address)
        let reply = request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try token(role, data: data, session: session))))
        guard case .connected(let connected)? = reply else {
            Issue.record("connect failed: \(String(describing: reply))")
            throw HarnessError.unexpected
        }
        return (peer, connected)
    }

    /// Publishes from `peer`; returns the published reply.
    func publish(_ peer: FakePeer, name: String = "cam") throws -> PublishedReply {
        let reply = request(peer, .publish(PublishRequest(name: name, hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                                          videoWidth: 640, videoHeight: 480, videoType: "camera")))
        guard case .published(let published)? = reply else {
            Issue.record("publish failed: \(String(describing: reply))")
            throw HarnessError.unexpected
        }
        return published
    }

    func http(_ method: String, _ path: String, body: String = "", auth: String? = nil, query: [(name: String, value: String)] = [],
              credentials: ProjectCredentials = Fixture.project) -> HTTPResponse {
        var headers = ["content-type": "application/json"]
        headers["x-opentok-auth"] = auth ?? ProjectJWT.sign(credentials: credentials)
        return service.handle(HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8)))
    }

    var projectPath: String { "/v2/project/\(Fixture.project.apiKey)" }
}

enum HarnessError: Error { case unexpected }

extension HTTPResponse {
    /// The body parsed as a JSON object.
    var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
