import OTMedia
import OTSignaling

/// SRTP keys of a media leg as the router handed them over (SDES style).
enum MediaLegKeys {
    /// send = what the client protects (clientKey), receive = what the router sends
    /// (routerKey). Throws a publisher (1610) or subscriber (1600) WebRTC error for an
    /// unknown profile or malformed keys.
    static func make(_ leg: WireMediaLeg, publisherDomain: Bool) throws(OTError) -> SRTPLegKeys {
        func failure(_ message: String) -> OTError {
            publisherDomain ? OTError(OTPublisherErrorCode.webRTCError, message) : OTError(OTSubscriberErrorCode.webRTCError, message)
        }
        guard let profile = SRTPProfile(rfcName: leg.profile) else { throw failure("unknown SRTP profile \"\(leg.profile)\" from the router") }
        // A leg on the router's edge carries no key.
        guard let clientKey = leg.clientKey, let routerKey = leg.routerKey else {
            throw failure("the router's media leg has neither SRTP keys nor an edge transport")
        }
        do {
            return SRTPLegKeys(send: try SRTPKeyMaterial(profile: profile, base64: clientKey),
                               receive: try SRTPKeyMaterial(profile: profile, base64: routerKey))
        } catch {
            throw failure("malformed SRTP keys from the router: \(error)")
        }
    }
}
