@testable import OTMedia

/// RFC 5769's STUN test vectors (sections 2.1–2.3), byte for byte, and what they contain.
enum STUNTestVectors {
    /// The password of every short-term vector.
    static let password = "VOkJxbRl1RmTxUk/WvJxBt"
    /// The vectors' transaction id.
    static let transactionID = STUNTransactionID(head: 0xB7E7_A701, tail: 0xBC34_D686_FA87_DFAE)

    /// §2.1 sample request: SOFTWARE "STUN test client", PRIORITY 0x6e0001ff,
    /// ICE-CONTROLLED 0x932ff9b151263b36, USERNAME "evtj:h6vY", MI, FINGERPRINT (padding: spaces).
    static let request = hex("""
        000100582112a442b7e7a701bc34d686fa87dfae802200105354554e207465737420636c69656e74\
        002400046e0001ff80290008932ff9b151263b36000600096576746a3a6836765920202000080014\
        9aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a280280004e57a3bcf
        """)

    /// §2.2 sample IPv4 response: SOFTWARE "test vector", XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let ipv4Response = hex("""
        0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f722000200008\
        0001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06be7d780280004c07d4c96
        """)

    /// §2.3 sample IPv6 response: XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let ipv6Response = hex("""
        010100482112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f722000200014\
        0002a1470113a9faa5d3f179bc25f4b5bed2b9d900080014a382954e4be67bf11784c97c8292c275\
        bfe3ed4180280004c8fb0b4c
        """)

    static let ipv4Mapped = SocketAddress(ipv4: "192.0.2.1", port: 32853)!
    static let ipv6Mapped = SocketAddress(ipv6: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853)!

    /// Bytes from hex digits (whitespace ignored).
    static func hex(_ text: String) -> [UInt8] {
        let digits = text.compactMap { $0.hexDigitValue }
        return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
    }
}
