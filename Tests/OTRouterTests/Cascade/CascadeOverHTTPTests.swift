import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing

/// The cascade control call on a real `Router`'s HTTP port (libwebsockets):
/// `POST /cluster/v1/cascade` with the cluster secret from the configuration opens an
/// egress that a second media router connects to over ICE + DTLS; wrong or missing
/// secrets and unknown streams are refused, counted, and shown in `/metrics`.
@Suite(.serialized) struct CascadeOverHTTPTests {
    @Test func aReceivingRouterOpensItsIngressOverHTTP() throws {
        var configuration = Fixture.configuration()
        configuration.clusterSecret = "http-cluster-secret"
        let media = try MediaRouter()
        let router = try Router(configuration: configuration, media: media)
        defer { router.stop() }
        _ = try media.addPublisher(streamId: "s1", audio: true, video: true)
        let b = try MediaRouter()
        try b.openCascadeIngress(streamId: "s1", node: "b", origin: CascadeControlOrigin.http(router.baseURL, secret: "http-cluster-secret"))
        #expect(b.isCascaded(streamId: "s1") && media.cascadeCounters.snapshot.egressLegs == 1)
        #expect(media.cascadeEgressNodes(streamId: "s1") == ["b"])

        let url = router.baseURL + CascadeControl.path
        let body = Array(#"{"action":"close","streamId":"s1","node":"b"}"#.utf8)
        let missing = try HTTPClient.request("POST", url, headers: ["Content-Type": "application/json"], body: body)
        #expect(missing.status == 401)
        let wrong = try HTTPClient.request("POST", url, headers: ["X-OTKit-Cluster-Secret": "guess"], body: body)
        #expect(wrong.status == 403)
        #expect(throws: MediaError.self) {
            try b.openCascadeIngress(streamId: "s2", node: "b", origin: CascadeControlOrigin.http(router.baseURL, secret: "http-cluster-secret"))
        }
        #expect(media.cascadeCounters.snapshot.requestsRefused == 2 && media.cascadeCounters.snapshot.requestsUnknownStream == 1)
        #expect(media.cascadeCounters.snapshot.egressLegs == 1, "refused calls closed nothing")
        let metrics = String(decoding: try HTTPClient.request("GET", router.baseURL + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("otkit_cascade_legs{direction=\"egress\"} 1"), "\(metrics.suffix(2000))")
        #expect(metrics.contains("otkit_cascade_requests_refused_total{reason=\"credentials\"} 2"))
        b.closeCascadeIngress(streamId: "s1")  // closes A's egress too, over HTTP
        #expect(!b.isCascaded(streamId: "s1") && media.cascadeCounters.snapshot.egressLegs == 0)
    }
}
