/// Reads HTTP/1.1 requests (RFC 9112) from the bytes of one connection as they arrive,
/// strictly: a request line of exactly three parts (`HTTP/1.1` or `HTTP/1.0`; another
/// version is 505), header lines `name: value` with a token name, no whitespace before the
/// colon, no obsolete line folding, no control characters, CRLF line ends; at most
/// `maximumHeadBytes` for the whole head and `maximumHeaders` lines (431; a request line
/// past `maximumRequestLineBytes` is 414). The body is framed by `RequestFraming` (both
/// Content-Length and Transfer-Encoding, a repeated or non-numeric length, chunked: 400/411);
/// a body past `maximumBodyBytes` is read and thrown away, then answered 413. Pipelined
/// requests come out one at a time, in order. After a failure, or after a WebSocket
/// upgrade request, it reads nothing more: the bytes behind it are never taken for a request.
///
/// Service thread only. Cost: the buffered bytes of one request head plus its body; the
/// head is scanned once for its end.
struct HTTPRequestReader {
    /// Why a request is refused; the connection closes after the answer.
    enum FailureKind: Equatable {
        /// The body's framing is ambiguous or unsupported (counted as `framingRefused`).
        case framing
        /// The request line or headers break the syntax or its limits.
        case malformed
        /// The body is over the limit (read and discarded first).
        case bodyTooLarge
    }

    /// What the bytes read so far completed.
    enum Event: Equatable {
        /// A whole request.
        case request(ParsedRequest)
        /// Answer with this status and close.
        case failure(status: Int, message: String, kind: FailureKind)
    }

    /// Methods the server serves; others get 501.
    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]

    let maximumHeadBytes: Int
    let maximumHeaders: Int
    let maximumRequestLineBytes: Int
    let maximumBodyBytes: Int

    private enum State {
        /// Looking for the end of a head; the search resumes at `scanned`.
        case head(scanned: Int)
        /// Reading (or, when too large, discarding) a body.
        case body(ParsedRequest, remaining: Int, discard: Bool)
        /// After a failure or an upgrade.
        case stopped
    }

    private var state = State.head(scanned: 0)
    private var buffer: [UInt8] = []
    private var head = 0

    /// A reader with the given limits.
    init(maximumHeadBytes: Int = 16 << 10, maximumHeaders: Int = 100, maximumRequestLineBytes: Int = 8 << 10,
         maximumBodyBytes: Int = 1 << 20) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumHeaders = maximumHeaders
        self.maximumRequestLineBytes = maximumRequestLineBytes
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Bytes received and not yet part of a returned request.
    var bufferedBytes: Int { buffer.count - head }

    /// Whether a request has begun arriving and is not complete.
    var isMidRequest: Bool {
        switch state {
        case .head: buffer.count > head
        case .body: true
        case .stopped: false
        }
    }

    /// Whether it has stopped reading (after a failure or an upgrade request).
    var isStopped: Bool {
        if case .stopped = state { return true }
        return false
    }

    /// Adds received bytes; call `next()` until it returns nil.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !isStopped, !bytes.isEmpty else { return }
        if case .body(let request, let remaining, true) = state {
            // Discarded bytes are never buffered.
            let dropped = min(remaining, bytes.count)
            state = .body(request, remaining: remaining - dropped, discard: true)
            if dropped < bytes.count { buffer.append(contentsOf: bytes[dropped...]) }
            return
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes (an array).
    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// The bytes after an upgrade request's head (the first WebSocket frames, if the client
    /// did not wait for the 101); empties the buffer.
    mutating func takeRemainder() -> [UInt8] {
        defer { buffer = []; head = 0 }
        return Array(buffer[head...])
    }

    /// The next complete request or failure, or nil when more bytes are needed (or after stopping).
    mutating func next() -> Event? {
        switch state {
        case .stopped:
            return nil
        case .body(var request, let remaining, let discard):
            if discard {
                guard remaining == 0 else { return nil }
                return fail(413, "request body larger than \(maximumBodyBytes) bytes", .bodyTooLarge)
            }
            let available = buffer.count - head
            let take = min(available, remaining)
            request.body.append(contentsOf: buffer[head..<(head + take)])
            head += take
            compact()
            guard take == remaining else {
                state = .body(request, remaining: remaining - take, discard: false)
                return nil
            }
            state = .head(scanned: head)
            return .request(request)
        case .head(let scanned):
            // RFC 9112 §2.2: empty lines before a request line are ignored.
            while buffer.count - head >= 2 && buffer[head] == 13 && buffer[head + 1] == 10 { head += 2 }
            guard let end = findHeadEnd(from: max(head, scanned - 3)) else {
                if buffer.count - head > maximumHeadBytes { return fail(431, "request head too large", .malformed) }
                state = .head(scanned: buffer.count)
                return nil
            }
            guard end - head <= maximumHeadBytes else { return fail(431, "request head too large", .malformed) }
            let lines = buffer[head..<end]
            head = end + 4
            return parse(lines)
        }
    }

    private func findHeadEnd(from start: Int) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = max(start, 0)
        while index + 3 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    private mutating func compact() {
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            head = 0
        } else if head >= 64 << 10 && head * 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
    }

    private mutating func parse(_ bytes: ArraySlice<UInt8>) -> Event? {
        // Split at CRLF; a lone CR or LF, NUL or another control character is refused.
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 13 {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 10 else { return fail(400, "bare CR in the request head", .malformed) }
                lines.append(bytes[start..<index])
                index += 2
                start = index
                continue
            }
            if byte == 10 { return fail(400, "bare LF in the request head", .malformed) }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return fail(400, "control character in the request head", .malformed) }
            index += 1
        }
        lines.append(bytes[start..<bytes.endIndex])
        guard let requestLine = lines.first else { return fail(400, "empty request", .malformed) }
        guard requestLine.count <= maximumRequestLineBytes else { return fail(414, "request line too long", .malformed) }
        guard lines.count - 1 <= maximumHeaders else { return fail(431, "too many header fields", .malformed) }

        let parts = requestLine.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].contains(0x20), !parts[1].contains(0x09) else {
            return fail(400, "malformed request line", .malformed)
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard method.utf8.allSatisfy(Self.isTokenByte) else { return fail(400, "malformed method", .malformed) }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            let shaped = version.utf8.count == 8 && version.hasPrefix("HTTP/") && version.utf8.dropFirst(5).enumerated().allSatisfy {
                $0.offset == 1 ? $0.element == UInt8(ascii: ".") : (0x30...0x39).contains($0.element)
            }
            return shaped ? fail(505, "HTTP version not supported", .malformed) : fail(400, "malformed HTTP version", .malformed)
        }
        guard Self.methods.contains(method) else { return fail(501, "method not implemented", .malformed) }
        guard target.hasPrefix("/") || (method == "OPTIONS" && target == "*") else {
            return fail(400, "request target must be a path", .malformed)
        }

        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                // Also catches obsolete line folding (a line starting with whitespace).
                return fail(400, "malformed header field", .malformed)
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            let text = String(decoding: value, as: UTF8.self)
            if let existing = headers[name] { headers[name] = existing + ", " + text } else { headers[name] = text }
        }
        // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host.
        if version == "HTTP/1.1" {
            guard let host = headers["host"], !host.contains(",") else { return fail(400, "missing or repeated Host", .malformed) }
        }
        let connectionTokens = headers["connection"].map(Self.tokens) ?? []
        let keepAlive = version == "HTTP/1.1" ? !connectionTokens.contains("close") : connectionTokens.contains("keep-alive")
        let isUpgrade = headers["upgrade"].map { Self.tokens($0).contains("websocket") } ?? false
        let (path, query) = TargetDecoding.split(target[...])
        var request = ParsedRequest(method: method, version: version, path: path, query: query, headers: headers,
                                    keepAlive: keepAlive, isUpgrade: isUpgrade)
        let framing = RequestFraming.judge(contentLength: headers["content-length"], transferEncoding: headers["transfer-encoding"],
                                           maximumBody: maximumBodyBytes)
        switch framing {
        case .refuse(let status, let message):
            return fail(status, message, .framing)
        case .none:
            compact()
            state = isUpgrade ? .stopped : .head(scanned: head)
            return .request(request)
        case .body(let length), .tooLarge(let length):
            // An upgrade has no body: one that announces one could slip those bytes in as frames.
            if isUpgrade { return fail(400, "a WebSocket upgrade with a body", .framing) }
            if case .tooLarge = framing {
                let dropped = min(length, buffer.count - head)
                head += dropped
                compact()
                state = .body(request, remaining: length - dropped, discard: true)
            } else {
                request.body.reserveCapacity(length)
                state = .body(request, remaining: length, discard: false)
            }
            return next()
        }
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// The comma-separated tokens of a header value, trimmed and lower-cased.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }).lowercased() }
    }

    private mutating func fail(_ status: Int, _ message: String, _ kind: FailureKind) -> Event {
        state = .stopped
        buffer = []
        head = 0
        return .failure(status: status, message: message, kind: kind)
    }
}
