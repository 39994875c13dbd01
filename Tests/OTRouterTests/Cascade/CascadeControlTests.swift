import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing

/// The origin's cascade control call refuses what it must, with OpenTok-style JSON
/// errors, and counts each refusal; a receiving router whose request is refused opens
/// nothing.
@Suite struct CascadeControlTests {
    static func transport() throws -> WireTransport {
        let credentials = ICECredentials.generate()
        let certificate = try DTLSCertificate(commonName: "cascade control test")
        return WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                             fingerprint: certificate.fingerprint.sdpValue)
    }

    static func body(_ request: CascadeControlRequest) throws -> [UInt8] { Array(try JSONEncoder().encode(request)) }

    @Test func refusesMissingAndWrongSecretsAndCountsThem() throws {
        let router = try MediaRouter()
        _ = try router.addAVPublisher("s1")
        let control = CascadeControl(router: router, secret: "right")
        let open = try Self.body(CascadeControlRequest(action: .open, streamId: "s1", node: "b", transport: Self.transport()))
        let missing = control.handle(presented: nil, body: open)
        #expect(missing.status == 401 && missing.body.contains("\"message\""), "\(missing)")
        let wrong = control.handle(presented: "wrong", body: open)
        #expect(wrong.status == 403, "\(wrong)")
        let longer = control.handle(presented: "right-and-more", body: open)
        #expect(longer.status == 403)
        let none = CascadeControl(router: router, secret: nil).handle(presented: "right", body: open)
        #expect(none.status == 403, "a router without a secret refuses every call")
        #expect(router.cascadeCounters.snapshot.requestsRefused == 4)
        #expect(router.cascadeCounters.snapshot.egressLegs == 0, "nothing was opened")
        let right = control.handle(presented: "right", body: open)
        #expect(right.status == 200, "\(right)")
        let leg = try JSONDecoder().decode(WireMediaLeg.self, from: Data(right.body.utf8))
        #expect(leg.transport != nil && leg.clientKey == nil && leg.routerKey == nil, "no key in the control answer")
        #expect(router.cascadeCounters.snapshot.egressLegs == 1)
    }

    @Test func anUnknownStreamIsA404AndCounted() throws {
        let router = try MediaRouter()
        let control = CascadeControl(router: router, secret: "right")
        let reply = control.handle(presented: "right",
                                   body: try Self.body(CascadeControlRequest(action: .open, streamId: "nope", node: "b",
                                                                             transport: Self.transport())))
        #expect(reply.status == 404 && reply.body.contains("nope"), "\(reply)")
        #expect(router.cascadeCounters.snapshot.requestsUnknownStream == 1)
    }

    @Test func badBodiesAre400s() throws {
        let router = try MediaRouter()
        _ = try router.addAVPublisher("s1")
        let control = CascadeControl(router: router, secret: "right")
        let bodies: [[UInt8]] = [
            Array("not json".utf8),
            Array(#"{"action":"explode","streamId":"s1","node":"b"}"#.utf8),
            Array(#"{"action":"open","streamId":"s1","node":"b"}"#.utf8),  // no transport
            Array(#"{"action":"open","streamId":"","node":"b","transport":{"iceUfrag":"a","icePassword":"b","fingerprint":"c"}}"#.utf8),
            Array(#"{"action":"close","streamId":"s1","node":"b/../c"}"#.utf8),
            Array(#"{"action":"preferences","streamId":"s1","node":"b","width":-3}"#.utf8),
            Array(#"{"action":"preferences","streamId":"s1","node":"b","frameRate":1e308}"#.utf8),
            Array(#"{"action":"open","streamId":"s1","node":"b","transport":{"iceUfrag":"a","icePassword":"b","fingerprint":"c"}}"#.utf8),
            [UInt8](repeating: 0x20, count: CascadeControlRequest.maximumBodyBytes + 1),
        ]
        for body in bodies {
            let reply = control.handle(presented: "right", body: body)
            #expect(reply.status == 400, "\(String(decoding: body.prefix(80), as: UTF8.self)) → \(reply)")
        }
        #expect(router.cascadeCounters.snapshot.egressLegs == 0)
    }

    @Test func aReceivingRouterWithTheWrongSecretOpensNothing() throws {
        let a = try MediaRouter()
        let b = try MediaRouter()
        _ = try a.addAVPublisher("s1")
        let origin = CascadeControlOrigin.local(CascadeControl(router: a, secret: "right"), secret: "wrong")
        #expect(throws: MediaError.self) { try b.openCascadeIngress(streamId: "s1", node: "b", origin: origin) }
        #expect(!b.isCascaded(streamId: "s1") && b.counters(streamId: "s1") == nil && b.openSockets == 0)
        #expect(a.cascadeCounters.snapshot.requestsRefused == 1 && a.cascadeCounters.snapshot.egressLegs == 0)
        let right = CascadeControlOrigin.local(CascadeControl(router: a, secret: "right"), secret: "right")
        #expect(throws: MediaError.self) { try b.openCascadeIngress(streamId: "unknown", node: "b", origin: right) }
        #expect(b.openSockets == 0)
    }

    @Test func theClusterSecretComesFromTheConfigurationFile() throws {
        let path = NSTemporaryDirectory() + "cascade-config-\(UInt64.random(in: 1 ... .max)).json"
        try Data(#"{"clusterSecret":"from-the-file"}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try RouterConfiguration.load(file: path, environment: ["OTKIT_PROJECTS": "12345678:0123456789abcdef0123456789abcdef01234567"])
        #expect(configuration.clusterSecret == "from-the-file")
        #expect(RouterConfiguration().clusterSecret == nil, "none by default: cascade calls are refused")
    }
}
