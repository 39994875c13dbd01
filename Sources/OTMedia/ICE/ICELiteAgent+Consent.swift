extension ICELiteAgent {
    /// Removes every leg whose last consent refresh is more than `consentTimeoutNanoseconds`
    /// before `now` (RFC 7675 section 5.1: stop sending after 30 s without a valid check) and
    /// returns their ids, for the caller to tear down. A leg never checked counts from its
    /// registration. Call it from the worker's timer (once a second is plenty). Cost: one
    /// pass over the legs; allocates only when some expire.
    public mutating func expire(now: UInt64) -> [ICELegID] {
        var expired: [ICELegID] = []
        for leg in legs.values where now > leg.lastConsent && now - leg.lastConsent > consentTimeoutNanoseconds {
            expired.append(leg.id)
        }
        for id in expired { remove(id) }
        counters.expired += expired.count
        return expired
    }
}
