import OTSignaling

extension RESTAPI {
    /// Checks the `X-OPENTOK-AUTH` project JWT of a call for `apiKey`: verified with the
    /// project's secret, `exp - iat` within the configured lifetime, its `jti` not seen
    /// before (a JWT without `jti` cannot be checked for replay and is let through).
    /// Nil when accepted; otherwise the refusal (401 missing or unreadable, 403 refused,
    /// 429 when too many JWTs are live), counted by reason in `/metrics`. An API key the
    /// router does not serve is refused exactly like a bad signature, so the answers do not
    /// tell which keys exist. Cost: one HMAC-SHA256, a JSON parse, one lock.
    func authenticate(_ header: String?, apiKey: String) -> RESTError? {
        guard let credentials = hub.configuration.project(apiKey) else {
            let error: OTSignalingError = (header ?? "").isEmpty ? .missingAuthentication : .badSignature
            return refused("unknown_api_key", RESTError(error.httpStatus, "authentication failed: \(error.description)"))
        }
        let now = UnixTime.now()
        let claims: ProjectJWT.Claims
        do {
            claims = try ProjectJWT.verify(header, credentials: credentials, now: now,
                                           maximumLifetime: hub.configuration.maxProjectJWTLifetimeSeconds)
        } catch {
            let reason = error == .missingAuthentication ? "missing" : TokenRejection.reason(error)
            return refused(reason, RESTError(error.httpStatus, "authentication failed: \(error.description)"))
        }
        guard let jti = claims.jti else { return nil }
        guard jti.utf8.count <= 256 else {
            return refused("malformed", RESTError(401, "authentication failed: malformed credential: jti longer than 256 bytes"))
        }
        // verify bounded exp to now + leeway + lifetime: the sum cannot overflow.
        switch replays.admit(apiKey: apiKey, jti: jti, forgetAfter: claims.expireTime + ProjectJWT.defaultLeeway, now: now) {
        case .fresh:
            return nil
        case .replayed:
            return refused("replayed", RESTError(403, "authentication failed: this JWT (jti) was already used; sign a fresh JWT per request"))
        case .full:
            return refused("too_many_live_jwts", RESTError(429, "too many REST calls within one JWT lifetime; retry shortly"))
        }
    }

    private func refused(_ reason: String, _ error: RESTError) -> RESTError {
        hub.counters.restAuthRefused(reason)
        return error
    }
}
