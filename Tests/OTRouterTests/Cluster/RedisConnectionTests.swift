import Foundation
import Glibc
@testable import OTRouter
import OTTestSupport
import Synchronization
import Testing

/// The Redis client against a real `redis-server` (started per test, no persistence) and
/// against a hostile fake server that answers with malformed or oversized replies.
@Suite(.serialized) struct RedisConnectionTests {
    @Test func binarySafeArgumentsRoundTrip() throws {
        let server = try RedisServer()
        let connection = RedisConnection(endpoint: try RedisEndpoint(url: server.url()))
        let value: [UInt8] = [0, 13, 10, 36, 42, 255, 254] + Array("\r\n$3\r\nset".utf8)
        let key: [UInt8] = Array("k\r\n".utf8) + [0]
        #expect(try connection.command([Array("SET".utf8), key, value]) == .status("OK"))
        #expect(try connection.command([Array("GET".utf8), key]) == .bulk(value))
        #expect(try connection.command("GET", "absent") == .bulk(nil))
        #expect(try connection.command("RPUSH", "list", "a", "b") == .integer(2))
        #expect(try connection.command("LRANGE", "list", "0", "-1") == .array([.bulk(Array("a".utf8)), .bulk(Array("b".utf8))]))
        #expect(connection.connectCount == 1)
    }

    @Test func serverErrorKeepsTheConnection() throws {
        let server = try RedisServer()
        let connection = RedisConnection(endpoint: try RedisEndpoint(url: server.url()))
        do {
            try connection.command("NOSUCHCOMMAND", "x")
            Issue.record("an unknown command succeeded")
        } catch {
            #expect(error.kind == .server)
            #expect(error.description.contains("unknown command"))
        }
        #expect(try connection.command("PING") == .status("PONG"))
        #expect(connection.connectCount == 1)
    }

    @Test func databaseFromTheURLIsSelected() throws {
        let server = try RedisServer()
        let three = RedisConnection(endpoint: try RedisEndpoint(url: server.url(database: 3)))
        let zero = RedisConnection(endpoint: try RedisEndpoint(url: server.url()))
        try three.command("SET", "where", "three")
        #expect(try zero.command("GET", "where") == .bulk(nil))
        #expect(try zero.command("SELECT", "3") == .status("OK"))
        #expect(try zero.command("GET", "where").text == "three")
    }

    @Test func unreachableServerIsAConnectError() throws {
        let port = RedisServer.freePort()
        let connection = RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: port), timeoutMilliseconds: 500)
        do {
            try connection.command("PING")
            Issue.record("PING to a closed port succeeded")
        } catch {
            #expect(error.kind == .connect, "\(error)")
        }
    }

    @Test func reconnectsAfterTheServerRestarts() throws {
        let server = try RedisServer()
        let connection = RedisConnection(endpoint: try RedisEndpoint(url: server.url()))
        try connection.command("SET", "a", "1")
        try server.restart()
        // The old connection is dead; the command goes out again on a new one.
        #expect(try connection.command("GET", "a") == .bulk(nil))  // no persistence: empty
        #expect(connection.connectCount == 2)
    }

    @Test func subscriberReceivesAndResubscribesAfterRestart() throws {
        let server = try RedisServer()
        let endpoint = try RedisEndpoint(url: server.url())
        let received = Mutex<[String]>([])
        let subscriber = RedisSubscriber(endpoint: endpoint, channels: ["c1", "c2"], timeoutMilliseconds: 500) { channel, payload in
            received.withLock { $0.append(channel + "=" + String(decoding: payload, as: UTF8.self)) }
        }
        defer { subscriber.stop() }
        let publisher = RedisConnection(endpoint: endpoint)
        #expect(eventually(timeout: 30) { subscriber.subscriptionCount == 1 })
        try publisher.command("PUBLISH", "c1", "one")
        try publisher.command("PUBLISH", "other", "ignored")
        try publisher.command("PUBLISH", "c2", "two\r\n")
        #expect(eventually(timeout: 30) { received.withLock { $0.count } == 2 })
        #expect(received.withLock { $0 } == ["c1=one", "c2=two\r\n"])
        try server.restart()
        #expect(eventually(timeout: 30) { subscriber.subscriptionCount == 2 })
        try publisher.command("PUBLISH", "c1", "three")
        #expect(eventually(timeout: 30) { received.withLock { $0.count } == 3 })
        #expect(received.withLock { $0.last } == "c1=three")
    }

    /// What a hostile server sends, by a short name (the names label the test cases).
    static let hostile: [String: String] = [
        "array of 10^11": "*99999999999\r\n", "bulk of 2 GiB": "$2147483648\r\n", "bulk without CRLF": "$5\r\nabcdefgh\r\n",
        "integer with a letter": ":1x\r\n", "RESP3 type": "!7\r\nunknown\r\n",
        "arrays 20 deep": String(repeating: "*1\r\n", count: 20) + ":1\r\n",
        "status line of 70,000 bytes": "+" + String(repeating: "A", count: 70_000) + "\r\n",
    ]

    @Test(arguments: hostile.keys.sorted())
    func hostileRepliesAreProtocolErrors(name: String) throws {
        let fake = try HostileRedis(reply: Array(Self.hostile[name]!.utf8))
        defer { fake.stop() }
        let connection = RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: fake.port), timeoutMilliseconds: 2000)
        do {
            let answer = try connection.command("GET", "k")
            Issue.record("a hostile reply was accepted as \(String(describing: answer).prefix(80))")
        } catch {
            #expect(error.kind == .proto, "\(error)")
        }
    }

    @Test func silentServerTimesOut() throws {
        let fake = try HostileRedis(reply: [])
        defer { fake.stop() }
        let connection = RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: fake.port), timeoutMilliseconds: 200)
        do {
            try connection.command("PING")
            Issue.record("a server that never answers gave a reply")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.contains("no reply"))
        }
    }
}

/// A TCP server on 127.0.0.1 that answers every connection with fixed bytes (after the
/// first bytes of the command arrive) and keeps it open: what a broken or hostile Redis
/// could send.
final class HostileRedis: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(reply: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 8) == 0 else {
            close(fd)
            throw RedisError(.connect, "cannot listen")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            var clients: [Int32] = []
            defer {
                for client in clients { close(client) }
                done.signal()
            }
            while !stopping.load(ordering: .acquiring) {
                var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) == 1 else { continue }
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                clients.append(client)
                var scratch = [UInt8](repeating: 0, count: 256)
                _ = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                var sent = 0
                while sent < reply.count {
                    let n = reply.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }
                    sent += n
                }
            }
        }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        done.wait()
        close(listener)
    }
}
