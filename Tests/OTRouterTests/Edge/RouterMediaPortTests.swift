import Foundation
import OTMedia
@testable import OTRouter
import OTSignaling
import Testing

/// The router's media port as configured: the file's `mediaPort`/`publicIP`/`mediaWorkers`,
/// the port a `Router` opens, and the address edge legs announce behind NAT.
@Suite struct RouterMediaPortTests {
    @Test func theFileSetsTheMediaPortThePublicIPAndTheWorkersWithinRange() throws {
        let path = NSTemporaryDirectory() + "otkit-router-\(UUID().uuidString).json"
        try #"{"mediaPort": 0, "publicIP": "203.0.113.7", "mediaWorkers": 3, "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        var base = RouterConfiguration()
        base.mediaPort = RouterConfiguration.defaultMediaPort
        let configuration = try RouterConfiguration.load(file: path, environment: [:], base: base)
        #expect(configuration.mediaPort == 0 && configuration.publicIP == "203.0.113.7" && configuration.mediaWorkers == 3,
                "the file's 0 wins over the CLI's default")
        #expect(try RouterConfiguration.load(file: nil, environment: ["OTKIT_PROJECTS": "1:a"], base: base).mediaPort == 7882)
        for bad in [#"{"mediaPort": 70000}"#, #"{"mediaPort": -1}"#, #"{"mediaWorkers": 0}"#] {
            let file = NSTemporaryDirectory() + "otkit-router-\(UUID().uuidString).json"
            try bad.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(throws: RouterConfigurationError.self) { try RouterConfiguration.load(file: file, environment: ["OTKIT_PROJECTS": "1:a"]) }
        }
    }

    @Test func aRouterOpensItsMediaPortAndEdgeLegsAnnounceThePublicIP() throws {
        var configuration = Fixture.configuration()
        configuration.publicIP = "203.0.113.7"
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let port = try #require(router.mediaPort)
        #expect(port > 0)
        let media = try #require(router.service.hub.media as? MediaRouter)
        #expect(media.mediaPort == port && media.edge?.workerCount == 2)
        let (_, _, transport) = try EdgeRouterRig.identity()
        let leg = try media.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 1, transport: transport)
        #expect(leg.host == "203.0.113.7" && leg.port == port, "the edge leg names the public address")
        let sdes = try media.addSubscriber(subscriberId: "old", streamId: "s1", audio: true, video: true)
        #expect(sdes.host == "127.0.0.1", "SDES legs keep the media host")
        #expect(throws: RouterError.self) {
            var bad = Fixture.configuration()
            bad.publicIP = "not an address"
            _ = try Router(configuration: bad)
        }
    }
}
