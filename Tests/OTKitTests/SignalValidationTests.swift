import Testing
@testable import OTKit

/// OpenTok's signal limits, at and over each edge: type ≤ 128 of A–Z a–z 0–9 - _ ~
/// (1461), data ≤ 8192 bytes (1413). A valid signal on an unconnected session fails
/// with 1010, so validation comes first and each row shows which check fired.
@Suite struct SignalValidationTests {
    static let rows: [(type: String, data: String, code: Int32)] = [
        ("", "", 1010),
        ("chat", "hello", 1010),
        ("AZaz09-_~", "x", 1010),
        (String(repeating: "t", count: 128), "", 1010),
        (String(repeating: "t", count: 129), "", 1461),
        ("has space", "", 1461),
        ("dot.ted", "", 1461),
        ("slash/", "", 1461),
        ("é", "", 1461),
        ("chat", String(repeating: "d", count: 8192), 1010),
        ("chat", String(repeating: "d", count: 8193), 1413),
        ("chat", String(repeating: "é", count: 4096), 1010),   // 8192 bytes of UTF-8
        ("chat", String(repeating: "é", count: 4097), 1413),   // 8194 bytes
        (String(repeating: "t", count: 129), String(repeating: "d", count: 9000), 1461),  // type is checked first
    ]

    @Test(arguments: rows)
    func signalLimits(row: (type: String, data: String, code: Int32)) throws {
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_session", delegate: nil))
        #expect(throws: OTError.self) { try session.signal(type: row.type, string: row.data) }
        do { try session.signal(type: row.type, string: row.data) } catch {
            #expect(error.code == row.code)
            #expect(error.domain == .session)
        }
    }

    @Test func validatorAcceptsExactlyTheAllowedCharacters() {
        var allowed = Set<UInt8>()
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let type = String(decoding: [byte], as: UTF8.self)
            if (try? SignalValidation.validate(type: type, data: "")) != nil { allowed.insert(byte) }
        }
        let expected = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~".utf8))
        #expect(allowed == expected)
    }
}
