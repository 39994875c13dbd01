// fuzz-sources: Sources/OTRouter/Cluster/RedisReply.swift Sources/OTRouter/Cluster/RedisReplyParser.swift Sources/OTRouter/Cluster/RedisProtocolLimits.swift Sources/OTRouter/Cluster/RedisProtocolError.swift
import Foundation

/// libFuzzer target: `RedisReplyParser`, the reader of every byte a Redis server sends
/// the router (a hostile or broken server must not crash it or make it allocate without
/// bound). The files are compiled into the target (the `fuzz-sources` line).
///
/// Input: `[split][bytes…]`: the bytes are fed in two pieces cut at `split` (so replies
/// arriving in parts are exercised), with small limits (bulk 4 KiB, 64 elements, depth 4)
/// so the fuzzer reaches them. Checks that every reply returned stays within the limits
/// and that a valid reply re-encoded and parsed again gives the same value. A trap or an
/// AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedisReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    var limits = RedisProtocolLimits()
    limits.maxBulkBytes = 4096
    limits.maxArrayElements = 64
    limits.maxDepth = 4
    limits.maxLineBytes = 512
    limits.maxBufferedBytes = 1 << 16
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let split = min(Int(data[0]), bytes.count)
    var parser = RedisReplyParser(limits: limits)
    var replies: [RedisReply] = []
    do {
        try parser.feed(Array(bytes[..<split]))
        while let reply = try parser.next() { replies.append(reply) }
        try parser.feed(Array(bytes[split...]))
        while let reply = try parser.next() { replies.append(reply) }
    } catch {
        return 0
    }
    // Invalid UTF-8 in a status line reads as U+FFFD (3 bytes): the re-read allows for it.
    var relaxed = limits
    relaxed.maxLineBytes = limits.maxLineBytes * 3
    relaxed.maxBufferedBytes = limits.maxBufferedBytes * 4
    for reply in replies {
        check(reply, depth: 0, limits: limits)
        var again = RedisReplyParser(limits: relaxed)
        do {
            try again.feed(encode(reply))
            let reread = try again.next()
            precondition(reread == reply, "a reply re-encoded does not parse to itself")
        } catch {
            preconditionFailure("a reply re-encoded is refused: \(error)")
        }
    }
    return 0
}

private func check(_ reply: RedisReply, depth: Int, limits: RedisProtocolLimits) {
    precondition(depth <= limits.maxDepth, "depth \(depth) past the limit")
    switch reply {
    case .bulk(let bytes?): precondition(bytes.count <= limits.maxBulkBytes, "bulk of \(bytes.count) bytes")
    case .array(let items?):
        precondition(items.count <= limits.maxArrayElements, "array of \(items.count)")
        for item in items { check(item, depth: depth + 1, limits: limits) }
    case .status(let line), .error(let line): precondition(line.utf8.count <= limits.maxLineBytes * 3, "line of \(line.utf8.count) bytes")
    default: break
    }
}

/// RESP2 for `reply` (status and error lines as their UTF-8 text).
private func encode(_ reply: RedisReply) -> [UInt8] {
    switch reply {
    case .status(let line): return Array("+\(line)\r\n".utf8)
    case .error(let line): return Array("-\(line)\r\n".utf8)
    case .integer(let value): return Array(":\(value)\r\n".utf8)
    case .bulk(nil): return Array("$-1\r\n".utf8)
    case .bulk(let bytes?): return Array("$\(bytes.count)\r\n".utf8) + bytes + [13, 10]
    case .array(nil): return Array("*-1\r\n".utf8)
    case .array(let items?): return Array("*\(items.count)\r\n".utf8) + items.flatMap(encode)
    }
}
