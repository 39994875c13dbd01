import Testing
@testable import OTMedia

/// Helpers for the SFrame suites: hex, a fast base key, encrypt/decrypt over arrays.
enum SFrameTest {
    /// Bytes of a hex string ("0a1b…").
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    /// Lower-case hex of bytes.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// A base key from a secret with few PBKDF2 rounds (the derivation's cost is not under test here).
    static func key(_ secret: String = "correct horse battery", session: String = "1_session") throws -> SFrameBaseKey {
        try SFrameBaseKey(secret: secret, sessionID: session, iterations: 10)
    }

    /// Encrypts `frame` into a fresh array of the exact length.
    static func encrypt(_ sender: SFrameSender, _ frame: [UInt8], metadata: [UInt8] = []) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: frame.count + SFrameSender.maxOverhead)
        let length = try frame.withUnsafeBytes { f throws in
            try metadata.withUnsafeBytes { m throws in
                try out.withUnsafeMutableBytes { o throws in try sender.encrypt(f, metadata: m, into: o) }
            }
        }
        return Array(out.prefix(length))
    }

    /// Decrypts `sframe` into a fresh array of the plaintext's length.
    static func decrypt(_ receiver: SFrameReceiver, _ sframe: [UInt8], metadata: [UInt8] = []) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: sframe.count)
        let result = try sframe.withUnsafeBytes { s throws in
            try metadata.withUnsafeBytes { m throws in
                try out.withUnsafeMutableBytes { o throws in try receiver.decrypt(s, metadata: m, into: o) }
            }
        }
        return Array(out.prefix(result.length))
    }

    /// The error `body` throws, nil when it does not throw.
    static func error<T>(_ body: () throws -> T) -> SFrameError? {
        do { _ = try body() } catch let error as SFrameError { return error } catch {
            Issue.record("not an SFrameError: \(error)")
        }
        return nil
    }
}
