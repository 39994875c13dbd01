@testable import OTRouter
import Testing

/// The RESP2 reader: whole and split replies, binary bulks, and every limit and
/// malformation refused with an error instead of a trap or an unbounded allocation.
struct RedisReplyParserTests {
    private func parse(_ text: String, limits: RedisProtocolLimits = RedisProtocolLimits()) throws -> [RedisReply] {
        var parser = RedisReplyParser(limits: limits)
        try parser.feed(Array(text.utf8))
        var out: [RedisReply] = []
        while let reply = try parser.next() { out.append(reply) }
        return out
    }

    @Test func everyTypeParses() throws {
        let replies = try parse("+OK\r\n-ERR no\r\n:-42\r\n$3\r\nabc\r\n$-1\r\n$0\r\n\r\n*2\r\n:1\r\n*1\r\n+x\r\n*-1\r\n*0\r\n")
        #expect(replies == [.status("OK"), .error("ERR no"), .integer(-42), .bulk(Array("abc".utf8)), .bulk(nil), .bulk([]),
                            .array([.integer(1), .array([.status("x")])]), .array(nil), .array([])])
    }

    @Test func bulkIsBinarySafe() throws {
        var parser = RedisReplyParser()
        try parser.feed(Array("$6\r\n".utf8) + [0, 13, 10, 255, 36, 42] + [13, 10])
        #expect(try parser.next() == .bulk([0, 13, 10, 255, 36, 42]))
    }

    @Test func bytesArrivingOneByOneGiveTheSameReplies() throws {
        let text = "*3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n:9223372036854775807\r\n:-9223372036854775808\r\n"
        var parser = RedisReplyParser()
        var out: [RedisReply] = []
        for byte in text.utf8 {
            try parser.feed([byte])
            while let reply = try parser.next() { out.append(reply) }
        }
        #expect(out == [.array([.bulk(Array("message".utf8)), .bulk(Array("ch1".utf8)), .bulk(Array("hello".utf8))]),
                        .integer(.max), .integer(.min)])
        #expect(parser.bufferedBytes == 0)
    }

    @Test func malformedRepliesAreRefused() {
        let bad = ["?\r\n", ":12a\r\n", ":\r\n", ":-\r\n", ":9223372036854775808\r\n", "$-2\r\n", "*-5\r\n", "$3\r\nabcd\r\n",
                   "+OK\rX", "+O\nK\r\n", "$99999999999999999999\r\n", "$+3\r\nabc\r\n"]
        for text in bad {
            #expect(throws: RedisProtocolError.self, "\(text.debugDescription) was accepted") { try parse(text) }
        }
    }

    @Test func limitsAreEnforcedBeforeAllocating() {
        var limits = RedisProtocolLimits()
        limits.maxBulkBytes = 10
        limits.maxArrayElements = 4
        limits.maxDepth = 2
        limits.maxLineBytes = 16
        limits.maxBufferedBytes = 64
        #expect(throws: RedisProtocolError.self) { try parse("$11\r\n", limits: limits) }
        #expect(throws: RedisProtocolError.self) { try parse("*5\r\n", limits: limits) }
        #expect(throws: RedisProtocolError.self) { try parse("*2147483647\r\n", limits: limits) }
        #expect(throws: RedisProtocolError.self) { try parse("*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits) }
        #expect(throws: RedisProtocolError.self) { try parse("+" + String(repeating: "a", count: 40), limits: limits) }
        #expect(throws: RedisProtocolError.self) { try parse(String(repeating: "$", count: 65), limits: limits) }
        // Within every limit: fine.
        #expect((try? parse("*1\r\n*1\r\n$10\r\n0123456789\r\n", limits: limits)) == [.array([.array([.bulk(Array("0123456789".utf8))])])])
    }

    @Test func incompleteReplyWaitsWithoutConsuming() throws {
        var parser = RedisReplyParser()
        try parser.feed(Array("*2\r\n$3\r\nab".utf8))
        #expect(try parser.next() == nil)
        try parser.feed(Array("c\r\n:5\r\n".utf8))
        #expect(try parser.next() == .array([.bulk(Array("abc".utf8)), .integer(5)]))
        #expect(try parser.next() == nil)
    }
}
