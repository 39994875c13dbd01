import CSSL

/// OpenSSL's per-thread error queue, read as text for error messages.
enum OpenSSLErrorQueue {
    /// Empties the calling thread's queue and returns its entries joined by "; " (or
    /// "no detail" when empty). Cost: one `ERR_get_error` per entry; error paths only.
    static func drain() -> String {
        var entries: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if entries.count < 4 {
                entries.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return entries.isEmpty ? "no detail" : entries.joined(separator: "; ")
    }

    /// Empties the calling thread's queue without reading it (before a call whose
    /// `SSL_get_error` must not see a stale entry). Cost: one call.
    static func clear() { ERR_clear_error() }
}
