/// Strict readers for the numbers and tokens inside SDP fields. Every number from a peer
/// goes through ``number(_:in:field:)``: plain decimal digits, no sign, no leading zero,
/// inside the field's range; anything else throws before it is converted.
enum SDPScalar {
    /// `text` as a decimal in `range`, or `.numberOutOfRange(field)`.
    static func number(_ text: Substring, in range: ClosedRange<UInt64>, field: String) throws(SDPError.Reason) -> UInt64 {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 20, bytes.count == 1 || bytes.first != UInt8(ascii: "0") else {
            throw .numberOutOfRange(field: field)
        }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw .numberOutOfRange(field: field) }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw .numberOutOfRange(field: field) }
            value = sum
        }
        guard range.contains(value) else { throw .numberOutOfRange(field: field) }
        return value
    }

    /// A payload type 0-127 (RFC 3551 §3; browsers put dynamic ones at 96-127 and 35-63).
    static func payloadType(_ text: Substring) throws(SDPError.Reason) -> UInt8 {
        UInt8(try number(text, in: 0...127, field: "payload type"))
    }

    /// A UDP/TCP port 0-65535.
    static func port(_ text: Substring, field: String = "port") throws(SDPError.Reason) -> UInt16 {
        UInt16(try number(text, in: 0...65_535, field: field))
    }

    /// A 32-bit SSRC.
    static func ssrc(_ text: Substring) throws(SDPError.Reason) -> UInt32 {
        UInt32(try number(text, in: 0...UInt64(UInt32.max), field: "ssrc"))
    }

    /// RFC 8866 `token`: visible ASCII without the separators it excludes.
    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7E: return true
            default: return false
            }
        }
    }

    /// Visible ASCII (0x21-0x7E), no spaces: ufrags, mids, rids, addresses, URIs.
    static func isVisible(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// `text` split on single spaces; an empty field (two spaces in a row) is kept as "".
    static func fields(_ text: Substring) -> [Substring] {
        text.split(separator: " ", omittingEmptySubsequences: false)
    }

    /// `text` if it is a ``isToken(_:)`` token, else `.malformedField(field)`.
    static func token(_ text: Substring, field: String) throws(SDPError.Reason) -> String {
        guard isToken(text) else { throw .malformedField(field: field) }
        return String(text)
    }
}
