/// The signaling WebSocket path: `/v1/session/{sessionId}/ws`.
enum SignalingPath {
    /// The session id in `path`, nil if the path is not a signaling path.
    static func sessionId(in path: String) -> String? {
        var path = Substring(path)
        while path.hasPrefix("//") { path = path.dropFirst() }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "session", !parts[3].isEmpty, parts[4] == "ws"
        else { return nil }
        return String(parts[3])
    }
}
