/// Why a session description was refused by the parser, with the line it was found on.
///
/// A client's malformed SDP is a bad parameter of its signaling message: the router answers
/// OpenTok's `OTNullOrInvalidParameter` (``openTokCode``, 1011), as it does for any other
/// field it cannot accept, and keeps the connection.
public struct SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line the problem is on; 0 when it concerns the whole description
    /// (its size, a missing line).
    public let line: Int
    /// What is wrong.
    public let reason: Reason

    /// Makes an error for `reason` found on `line` (1-based, 0 for the whole text).
    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// What is wrong with a description or one of its lines.
    public enum Reason: Error, Equatable, Sendable {
        /// More than ``SDPLimits/maximumBytes`` bytes.
        case tooLarge(bytes: Int)
        /// More than ``SDPLimits/maximumLines`` lines.
        case tooManyLines
        /// A line longer than ``SDPLimits/maximumLineLength`` bytes.
        case lineTooLong(length: Int)
        /// More than ``SDPLimits/maximumMediaSections`` `m=` sections.
        case tooManyMediaSections
        /// A control character (NUL, TAB, a CR not followed by LF, DEL, ...) inside a line.
        case controlCharacter
        /// Bytes that are not UTF-8.
        case invalidUTF8
        /// An empty line, or one without the `<letter>=` shape.
        case malformedLine
        /// A line type letter RFC 8866 does not define (such a description must be refused).
        case unknownLineType(Character)
        /// A line in a place RFC 8866's order does not allow it (an `m=` before `s=`, a `c=`
        /// after an `a=` of the same section, a second `v=`, ...).
        case lineOutOfOrder(Character)
        /// A required line (`v=`, `o=`, `s=`, `t=`) is missing.
        case missingLine(Character)
        /// `v=` is not 0.
        case unsupportedVersion
        /// A number outside its range (a port above 65535, a payload type above 127, an
        /// extmap id outside 1-255, an SSRC above 2^32-1, ...) or not a plain decimal.
        case numberOutOfRange(field: String)
        /// A field of the wrong shape; `field` names it (`"rtpmap"`, `"fingerprint"`, ...).
        case malformedField(field: String)
        /// Two sections carry the same `a=mid`.
        case duplicateMid(String)
    }

    /// OpenTok's `OTNullOrInvalidParameter`: what a client whose SDP was refused is told.
    public static let openTokCode = 1011

    /// The OpenTok error code for this failure: always ``openTokCode`` (1011).
    public var openTokCode: Int { Self.openTokCode }

    /// A sentence a person can act on, naming the line.
    public var description: String {
        let place = line == 0 ? "SDP" : "SDP line \(line)"
        switch reason {
        case .tooLarge(let bytes): return "\(place): \(bytes) bytes; the limit is \(SDPLimits.maximumBytes)"
        case .tooManyLines: return "\(place): more than \(SDPLimits.maximumLines) lines"
        case .lineTooLong(let length): return "\(place): \(length) bytes long; the limit is \(SDPLimits.maximumLineLength)"
        case .tooManyMediaSections: return "\(place): more than \(SDPLimits.maximumMediaSections) m= sections"
        case .controlCharacter: return "\(place): control character"
        case .invalidUTF8: return "\(place): not UTF-8"
        case .malformedLine: return "\(place): not a <type>=<value> line"
        case .unknownLineType(let type): return "\(place): unknown line type \"\(type)\""
        case .lineOutOfOrder(let type): return "\(place): \"\(type)=\" is not allowed here"
        case .missingLine(let type): return "\(place): missing \"\(type)=\" line"
        case .unsupportedVersion: return "\(place): v= must be 0"
        case .numberOutOfRange(let field): return "\(place): \(field) out of range"
        case .malformedField(let field): return "\(place): malformed \(field)"
        case .duplicateMid(let mid): return "\(place): mid \"\(mid)\" appears twice"
        }
    }
}
