import COpenSSL
import Foundation

/// Signed, expiring archive download links: `/archive-file/{archiveId}.zip?expires=E&signature=S`
/// (`.mp4` for a composed archive)
/// where `E` is the expiry in seconds since 1970 and `S` the hex HMAC-SHA256 of
/// `"{archiveId}\n{E}"` under a key the router draws at start (so links die with the
/// process, like the key). Cost: one HMAC per link made or checked.
final class ArchiveLinkSigner: Sendable {
    /// The path prefix the links are served under.
    static let prefix = "archive-file"
    private let key: [UInt8]

    /// A signer with a fresh random 32-byte key.
    init() {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// What an archive's file is: an individual archive's ZIP or a composed archive's MP4.
    enum FileKind {
        case zip, mp4

        /// The kind a link's file name ends with, nil for anything else.
        init?(fileName: Substring) {
            if fileName.hasSuffix(".zip") { self = .zip } else if fileName.hasSuffix(".mp4") { self = .mp4 } else { return nil }
        }

        /// `.zip` or `.mp4`.
        var suffix: String { self == .zip ? ".zip" : ".mp4" }
        /// The HTTP content type it is served with.
        var contentType: String { self == .zip ? "application/zip" : "video/mp4" }
    }

    /// The link's path and query for `archiveId`'s file of `kind`, valid until `expires`
    /// (seconds since 1970). The signature covers the id and expiry (one file per archive).
    func path(archiveId: String, expires: Int64, kind: FileKind = .zip) -> String {
        "/\(Self.prefix)/\(archiveId)\(kind.suffix)?expires=\(expires)&signature=\(signature(archiveId: archiveId, expires: expires))"
    }

    /// Whether `signature` is the one for `archiveId` and `expires`, and `expires` is not
    /// past at `now` (seconds since 1970). Compares in constant time.
    func check(archiveId: String, expires: Int64, signature: String, now: Int64) -> Bool {
        guard expires >= now else { return false }
        let expected = Array(self.signature(archiveId: archiveId, expires: expires).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }

    private func signature(archiveId: String, expires: Int64) -> String {
        let message = Array("\(archiveId)\n\(expires)".utf8)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    _ = HMAC(EVP_sha256(), k.baseAddress!, Int32(k.count), m.baseAddress!.assumingMemoryBound(to: UInt8.self),
                             m.count, o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        return out.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
