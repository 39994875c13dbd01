/// One relayed receiver's own SRTP contexts on the publisher's side
/// (`PublisherConfiguration.relayedKeysPerReceiver`): a sender that protects each media
/// packet (and resend) for this receiver only, a receiver that checks its SRTCP, and an
/// RTCP sender for its sender reports. Keyed by the SSRC of the receiver's RTCP.
///
/// Cost: three libsrtp contexts and one CNAME copy, made once when the receiver's first
/// SRTCP authenticates (a context takes microseconds to make on the OpenSSL primitives
/// OTKit runs libsrtp2 on, about ten times more on Debian's NSS ones: docs/sessions.md;
/// the checking one is made first and the other two only when it passes); per packet
/// one protect (no allocation). Transport thread only.
final class RelayedReceiverContexts {
    /// The SSRC the receiver's RTCP carries (its keys are derived from it).
    let ssrc: UInt32
    /// Protects what goes to this receiver; repeats allowed, as resends are protected again.
    let media: SRTPSession
    /// Checks what this receiver sends (SRTCP).
    let feedback: SRTPSession
    /// Sends this receiver's sender reports, protected with its keys.
    let rtcp: RTCPSender

    /// The contexts of the receiver whose keys (`SRTPLegKeys.relayedReceiver(ssrc:)`, the
    /// publisher's view) are `keys`, around the `feedback` session already made from them.
    init(ssrc: UInt32, keys: SRTPLegKeys, feedback: SRTPSession, pipeline: PublisherPipeline) throws(MediaError) {
        self.ssrc = ssrc
        self.feedback = feedback
        do { media = try SRTPSession(keys: keys.send, direction: .sender, allowRepeatedIndex: true) } catch {
            throw MediaError(.invalidArgument, "relayed receiver keys: \(error)")
        }
        rtcp = try RTCPSender(socket: pipeline.socket, pool: pipeline.pool, keys: keys.send, cname: pipeline.configuration.cname)
    }
}
