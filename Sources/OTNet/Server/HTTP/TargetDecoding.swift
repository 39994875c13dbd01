/// Splits and decodes a request target (`/p%20q/x?a=1+2&b=%2B`): the path is
/// percent-decoded and a leading `//` folded; each query argument is split at its first
/// `=`, with `+` read as a space and `%XX` decoded after the split (so an escaped `&` or
/// `=` stays inside its value). A malformed escape is kept as written. Cost: one pass.
enum TargetDecoding {
    /// The decoded path and query of `target` (which starts with `/`).
    static func split(_ target: Substring) -> (path: String, query: [ParsedRequest.QueryArgument]) {
        let question = target.firstIndex(of: "?")
        let rawPath = question.map { target[..<$0] } ?? target
        var query: [ParsedRequest.QueryArgument] = []
        if let question {
            for part in target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
                if let equals = part.firstIndex(of: "=") {
                    query.append(.init(name: decode(part[..<equals], plusIsSpace: true),
                                       value: decode(part[part.index(after: equals)...], plusIsSpace: true)))
                } else {
                    query.append(.init(name: decode(part, plusIsSpace: true), value: ""))
                }
            }
        }
        return (fold(decode(rawPath, plusIsSpace: false)), query)
    }

    /// `//v2/x` → `/v2/x` (some SDKs join a base URL ending in `/` with a path starting with one).
    static func fold(_ path: String) -> String {
        guard path.hasPrefix("//") else { return path.isEmpty ? "/" : path }
        return "/" + path.drop { $0 == "/" }
    }

    /// Percent-decodes `text` (and `+` → space when asked); bytes that are not UTF-8 are
    /// replaced with U+FFFD.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count, let high = hex(utf8[index + 1]), let low = hex(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
