@testable import OTRouter
import Testing

/// `--redis` URLs: what is accepted and what is refused with a reason.
struct RedisEndpointTests {
    @Test func validURLs() throws {
        #expect(try RedisEndpoint(url: "redis://127.0.0.1:6380") == RedisEndpoint(host: "127.0.0.1", port: 6380, database: 0))
        #expect(try RedisEndpoint(url: "redis://cache.internal") == RedisEndpoint(host: "cache.internal", port: 6379, database: 0))
        #expect(try RedisEndpoint(url: "redis://10.0.0.5:7000/3") == RedisEndpoint(host: "10.0.0.5", port: 7000, database: 3))
        #expect(try RedisEndpoint(url: "redis://[::1]:6379/15") == RedisEndpoint(host: "::1", port: 6379, database: 15))
        #expect(try RedisEndpoint(url: "redis://h:1/").database == 0)
    }

    @Test func invalidURLsSayWhy() {
        let cases: [(String, String)] = [
            ("http://h:1", "must start with redis://"), ("rediss://h:1", "TLS"), ("redis://:pw@h:1", "passwords"),
            ("redis://h:0", "port"), ("redis://h:65536", "port"), ("redis://h:-1", "port"), ("redis://h:1/16", "database"),
            ("redis://h:1/x", "database"), ("redis://:1", "no host"), ("redis://h h:1", "space"), ("redis://[::1:1", "]"),
            ("redis://h:99999999999999999999", "port"),
        ]
        for (text, problem) in cases {
            do {
                _ = try RedisEndpoint(url: text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(problem), "\(text): \(error.description)")
            }
        }
    }
}
