extension ICELiteAgent {
    /// Marks every leg whose last consent refresh is more than `consentTimeoutNanoseconds`
    /// before `now` as lapsed (RFC 7675 section 5.1: stop sending after 30 s without a valid
    /// check) and returns the ones that lapsed in this call (each is reported once per
    /// lapse). A lapsed leg is NOT removed: its credentials and selected address stay, and
    /// the next valid check from the selected address (or a new nomination) restores its
    /// consent (`ICEEvent.consentRestored`). The caller stops sending to it meanwhile; it
    /// lives until the caller removes it (signaling says the client left). A leg never
    /// checked counts from its registration. Call it from the worker's timer (once a second
    /// is plenty). Cost: one pass over the legs; allocates only when some lapse.
    public mutating func lapse(now: UInt64) -> [ICELegID] {
        var lapsed: [ICELegID] = []
        for (key, leg) in legs where !leg.lapsed && now > leg.lastConsent && now - leg.lastConsent > consentTimeoutNanoseconds {
            lapsed.append(leg.id)
            legs[key]?.lapsed = true
        }
        counters.lapses += lapsed.count
        return lapsed
    }

    /// Whether leg `id` has consent (false when unknown or lapsed): whether anything may
    /// be sent to it. Cost: two hash lookups.
    public func hasConsent(_ id: ICELegID) -> Bool {
        guard let key = ufragByLeg[id], let leg = legs[key] else { return false }
        return !leg.lapsed
    }
}
