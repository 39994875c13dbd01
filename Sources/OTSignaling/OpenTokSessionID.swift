/// An OpenTok-format session id: a two-character sentinel (`1_` or `2_`) followed by
/// unpadded base64url of `~`-separated fields `1~{apiKey}~{location}~{createTime}~{random}~`.
///
/// OpenTok server SDKs decode it to check that it belongs to their API key before they
/// issue a token (they accept the key as any `~` piece); OTKit mints and reads them. The
/// minted form uses only `[A-Za-z0-9_-]`, so it is safe raw in URL paths. Creating or
/// parsing one costs a base64 pass and a few small allocations.
public struct OpenTokSessionID: Hashable, Sendable, CustomStringConvertible {
    /// The session id text, e.g. `1_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4`.
    public let rawValue: String
    /// The API key (project) the session belongs to: the second `~` field.
    public let apiKey: String
    /// The location hint (third field; empty when none was given).
    public let location: String
    /// The creation-time field as written (OTKit writes Unix milliseconds; OpenTok's own
    /// fixtures use other forms, so it is kept as text).
    public let createTime: String
    /// All `~` fields of the decoded text, in order.
    public let fields: [String]

    /// The longest session id OpenTok documents (255 characters).
    public static let maximumLength = 255

    /// The text form (``rawValue``).
    public var description: String { rawValue }

    /// Mints a new session id for `apiKey` with a fresh 96-bit random field.
    ///
    /// - Parameters:
    ///   - apiKey: the project's API key; must be non-empty and contain no `~`.
    ///   - location: an optional location hint (an IPv4 address in OpenTok); no `~`.
    ///   - createTimeMilliseconds: creation time in Unix milliseconds (default: now).
    /// - Throws: ``OTSignalingError/invalidArgument(reason:)`` for a bad key or location.
    public static func create(
        apiKey: String,
        location: String = "",
        createTimeMilliseconds: Int64 = UnixTime.now() * 1000
    ) throws(OTSignalingError) -> OpenTokSessionID {
        try create(apiKey: apiKey, location: location, createTimeMilliseconds: createTimeMilliseconds,
                   random: Crypto.hex(Crypto.randomBytes(12)))
    }

    /// Builds the session id from every field, deterministically (for tests and for a
    /// router that supplies its own random part). Same rules as ``create(apiKey:location:createTimeMilliseconds:)``;
    /// `random` must contain no `~`.
    public static func create(
        apiKey: String, location: String, createTimeMilliseconds: Int64, random: String
    ) throws(OTSignalingError) -> OpenTokSessionID {
        guard !apiKey.isEmpty else { throw .invalidArgument(reason: "the API key is empty") }
        for (name, value) in [("API key", apiKey), ("location", location), ("random part", random)] where value.contains("~") {
            throw .invalidArgument(reason: "the \(name) must not contain ~")
        }
        let text = "1~\(apiKey)~\(location)~\(createTimeMilliseconds)~\(random)~"
        return try OpenTokSessionID(parsing: "1_" + Base64URL.encode(text))
    }

    /// Parses a session id and reads its API key.
    ///
    /// Stricter than the Python SDK (which accepts any two-character prefix and any text
    /// that holds the key as one `~` piece): the prefix must be `1_` or `2_`, the rest
    /// base64url (padding optional, `+` `/` tolerated) of UTF-8 text with at least two
    /// `~` fields and a non-empty second field, at most 255 characters in all.
    /// - Throws: ``OTSignalingError/malformed(reason:)``.
    public init(parsing text: String) throws(OTSignalingError) {
        guard !text.isEmpty else { throw .malformed(reason: "the session id is empty") }
        guard text.count <= Self.maximumLength else {
            throw .malformed(reason: "the session id is longer than \(Self.maximumLength) characters")
        }
        guard text.hasPrefix("1_") || text.hasPrefix("2_") else {
            throw .malformed(reason: "a session id starts with 1_ or 2_")
        }
        guard let bytes = Base64URL.decode(String(text.dropFirst(2))) else {
            throw .malformed(reason: "the session id is not base64url after its prefix")
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .malformed(reason: "the session id does not decode to UTF-8 text")
        }
        let fields = decoded.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 2, !fields[1].isEmpty else {
            throw .malformed(reason: "the session id has no API key field")
        }
        rawValue = text
        apiKey = fields[1]
        location = fields.count > 2 ? fields[2] : ""
        createTime = fields.count > 3 ? fields[3] : ""
        self.fields = fields
    }

    /// Whether `apiKey` equals one of the `~` fields exactly: the rule the OpenTok server
    /// SDKs apply before issuing a token for this session.
    public func belongs(toAPIKey apiKey: String) -> Bool { !apiKey.isEmpty && fields.contains(apiKey) }
}
