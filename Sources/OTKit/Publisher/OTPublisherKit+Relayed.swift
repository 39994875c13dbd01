import Foundation
import OTMedia
import OTSignaling

/// Relayed (peer-to-peer) sessions: the publisher is its subscribers' media source. It
/// binds its own socket before publishing and announces it in `PublishRequest.relayedLeg`
/// (address, fresh SRTP keys for both directions, SSRCs it chose); the router hands that
/// leg to each subscriber, whose pipeline sends its RTCP there, and the pipeline sends the
/// stream to every subscriber it heard authenticated RTCP from
/// (`PublisherConfiguration.relayedFanOut`).
extension OTPublisherKit {
    /// Where media goes before any subscriber has been heard from: the discard port on
    /// loopback (nothing listens; unconnected UDP reports no error).
    static let relayedPlaceholderDestination = SocketAddress(ipv4: "127.0.0.1", port: 9)!

    /// Binds the relayed pipeline (not started) and returns the leg to announce. Work
    /// queue. Throws like routed publishing does (a source or the socket refused).
    func prepareRelayedMedia(settings: OTSessionSettings) throws(OTError) -> WireMediaLeg {
        let keys = SRTPLegKeys.random()
        let videoSSRC = Self.randomSSRC(excluding: [])
        let audioSSRC = Self.randomSSRC(excluding: [videoSSRC])
        let (pipeline, meter) = try makePipeline(destination: Self.relayedPlaceholderDestination, keys: keys,
                                                 videoSSRC: videoSSRC, audioSSRC: audioSSRC, relayed: true)
        lock.withLock { preparedRelayed = (pipeline, meter) }
        let host = settings.relayedMediaHost
            ?? LocalRoute.host(ofURL: settings.routerURL).flatMap(LocalRoute.address(toward:))
            ?? "127.0.0.1"
        // The subscribers' view: they send with clientKey (we receive with it), we send with routerKey.
        return WireMediaLeg(host: host, port: Int(pipeline.localAddress.port), profile: keys.send.profile.rfcName,
                            clientKey: keys.receive.base64, routerKey: keys.send.base64,
                            audioSSRC: pipeline.configuration.audio == nil ? nil : audioSSRC,
                            videoSSRC: pipeline.configuration.video == nil ? nil : videoSSRC)
    }

    /// A nonzero SSRC that is not the probe SSRC nor in `taken`.
    static func randomSSRC(excluding taken: Set<UInt32>) -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        while true {
            let ssrc: UInt32 = generator.next()
            if ssrc != 0, ssrc != RTPProbe.ssrc, !taken.contains(ssrc) { return ssrc }
        }
    }
}
