import Foundation

/// Splits a received HTTP/1.1 response into status, headers and body, deciding when the
/// body is complete (Content-Length, chunked, or end of stream). Cost: scans the bytes
/// received so far once per call.
struct HTTPResponseReader {
    struct Head {
        var status: Int
        var headers: [String: String]
        var bodyStart: Int
    }

    /// Parses the status line and headers once `bytes` holds all of them.
    static func head(_ bytes: [UInt8]) throws(WebError) -> Head? {
        guard let end = find([13, 10, 13, 10], in: bytes, from: 0) else { return nil }
        let text = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { throw WebError("empty HTTP response") }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else {
            throw WebError("bad HTTP status line: \(lines.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return Head(status: status, headers: headers, bodyStart: end + 4)
    }

    /// The body when it is complete, nil when more bytes are needed. `ended`: the peer
    /// closed the stream.
    static func body(_ bytes: [UInt8], head: Head, method: String, ended: Bool) throws(WebError) -> [UInt8]? {
        let available = bytes[head.bodyStart...]
        if method == "HEAD" || head.status == 204 || head.status == 304 || (100..<200).contains(head.status) { return [] }
        if head.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            if let decoded = try dechunk(available) { return decoded }
            if ended { throw WebError("connection closed inside a chunked body") }
            return nil
        }
        if let lengthText = head.headers["content-length"] {
            guard let length = Int(lengthText) else { throw WebError("bad Content-Length \(lengthText)") }
            if available.count >= length { return Array(available.prefix(length)) }
            if ended { throw WebError("connection closed after \(available.count) of \(length) body bytes") }
            return nil
        }
        return ended ? Array(available) : nil
    }

    /// Decodes a complete chunked body; nil while incomplete.
    private static func dechunk(_ bytes: ArraySlice<UInt8>) throws(WebError) -> [UInt8]? {
        var output: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: index) else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw WebError("bad chunk size \(sizeText)")
            }
            let dataStart = lineEnd + 2
            if size == 0 { return output }  // trailers are ignored
            guard bytes.endIndex >= dataStart + size + 2 else { return nil }
            output.append(contentsOf: bytes[dataStart..<(dataStart + size)])
            index = dataStart + size + 2
        }
    }

    private static func find<C: RandomAccessCollection>(_ needle: [UInt8], in bytes: C, from start: C.Index) -> C.Index?
    where C.Element == UInt8, C.Index == Int {
        guard bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.endIndex {
            if bytes[index] == needle[0] && zip(needle.indices, index...).allSatisfy({ bytes[$0.1] == needle[$0.0] }) { return index }
            index += 1
        }
        return nil
    }
}
