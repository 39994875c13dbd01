extension SessionDescription {
    /// Parses `text` strictly (RFC 8866), as the byte form below does (same limits, same errors).
    public init(parsing text: String) throws(SDPError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses SDP bytes strictly (RFC 8866) within ``SDPLimits``.
    ///
    /// Lines end in CRLF or LF; the last may lack one. Refused, with the line number: more
    /// than the size / line / section caps, control characters (NUL, TAB, a lone CR), bytes
    /// that are not UTF-8, empty or unknown-type lines, lines out of RFC 8866's order
    /// (`v= o= s=` first, session lines before the first `m=`, each section's `i= c= b= k=`
    /// before its `a=`), a missing `t=`, `v=` other than 0, and every number outside its
    /// range (origin, ports, payload types, clock rates, extmap ids, SSRCs, candidate
    /// fields ...) or attribute of the wrong shape (``SDPAttributeCheck``); two sections
    /// with the same mid. Cost: linear in the input (at most 64 KiB), one allocation per
    /// line kept.
    public init(parsing bytes: some Collection<UInt8>) throws(SDPError) {
        guard bytes.count <= SDPLimits.maximumBytes else { throw SDPError(line: 0, reason: .tooLarge(bytes: bytes.count)) }
        var parser = SDPParser()
        var line: [UInt8] = []
        line.reserveCapacity(256)
        var number = 0
        var iterator = bytes.makeIterator()
        var more = true
        while more {
            line.removeAll(keepingCapacity: true)
            var ended = false
            while let byte = iterator.next() {
                if byte == 0x0A { ended = true; break }
                line.append(byte)
            }
            if !ended {
                more = false
                if line.isEmpty { break }
            }
            number += 1
            guard number <= SDPLimits.maximumLines else { throw SDPError(line: number, reason: .tooManyLines) }
            if ended, line.last == 0x0D { line.removeLast() }
            guard line.count <= SDPLimits.maximumLineLength else {
                throw SDPError(line: number, reason: .lineTooLong(length: line.count))
            }
            do {
                try parser.take(line)
            } catch {
                throw SDPError(line: number, reason: error)
            }
        }
        self = try parser.finish(lines: number)
    }
}

/// The parser's state between lines: what has been read and where in RFC 8866's order it is.
struct SDPParser {
    private var origin: SDPOrigin?
    private var sessionName: String?
    private var sawVersion = false
    private var sessionLines: [SDPLine] = []
    private var sessionAttributes: [SDPAttribute] = []
    private var media: [SDPMediaDescription] = []
    private var mids: Set<String> = []
    /// The rank of the last line in the current part (session or section).
    private var rank = 0
    private var lastType: Character = " "
    private var sawTiming = false

    /// Session part order: `v o s i u e p c b t r z k a` (r only after t).
    private static let sessionRank: [Character: Int] = [
        "v": 0, "o": 1, "s": 2, "i": 3, "u": 4, "e": 5, "p": 6, "c": 7, "b": 8, "t": 9, "r": 9, "z": 10, "k": 11, "a": 12,
    ]
    /// Media part order: `m i c b k a`.
    private static let mediaRank: [Character: Int] = ["m": 0, "i": 1, "c": 2, "b": 3, "k": 4, "a": 5]
    /// Lines that may appear at most once in their part.
    private static let single: Set<Character> = ["v", "o", "s", "i", "u", "z", "k"]
    private static let known: Set<Character> = ["v", "o", "s", "i", "u", "e", "p", "c", "b", "t", "r", "z", "k", "a", "m"]

    /// Reads one line (without its line ending).
    mutating func take(_ bytes: [UInt8]) throws(SDPError.Reason) {
        guard bytes.count >= 2, bytes[1] == UInt8(ascii: "=") else { throw .malformedLine }
        for byte in bytes where byte < 0x20 || byte == 0x7F { throw .controlCharacter }
        guard let text = String(validating: bytes[2...], as: UTF8.self) else { throw .invalidUTF8 }
        let type = Character(Unicode.Scalar(bytes[0]))
        guard bytes[0] >= UInt8(ascii: "a"), bytes[0] <= UInt8(ascii: "z"), Self.known.contains(type) else {
            throw .unknownLineType(type)
        }
        let value = Substring(text)
        if !sawVersion {
            guard type == "v" else { throw .missingLine("v") }
            guard value == "0" else { throw .unsupportedVersion }
            sawVersion = true
            lastType = "v"
            return
        }
        if origin == nil {
            guard type == "o" else { throw .missingLine("o") }
            origin = try Self.origin(value)
            lastType = "o"
            rank = 1
            return
        }
        if sessionName == nil {
            guard type == "s" else { throw .missingLine("s") }
            guard !value.isEmpty else { throw .malformedField(field: "s") }
            sessionName = text
            lastType = "s"
            rank = 2
            return
        }
        if type == "m" {
            guard sawTiming else { throw .missingLine("t") }
            guard media.count < SDPLimits.maximumMediaSections else { throw .tooManyMediaSections }
            media.append(try Self.mediaLine(value))
            rank = 0
            lastType = "m"
            return
        }
        let ranks = media.isEmpty ? Self.sessionRank : Self.mediaRank
        guard let newRank = ranks[type], newRank >= rank else { throw .lineOutOfOrder(type) }
        if newRank == rank, Self.single.contains(type) { throw .lineOutOfOrder(type) }
        if type == "r", lastType != "t", lastType != "r" { throw .lineOutOfOrder(type) }
        rank = newRank
        lastType = type
        if type == "a" {
            let attribute = try Self.attribute(value)
            if attribute.name == "mid", let mid = attribute.value, !media.isEmpty {
                guard media[media.count - 1].mid == nil else { throw .malformedField(field: "mid") }
                guard mids.insert(mid).inserted else { throw .duplicateMid(mid) }
            }
            if media.isEmpty { sessionAttributes.append(attribute) } else { media[media.count - 1].attributes.append(attribute) }
            return
        }
        try Self.check(type, value)
        if type == "t" { sawTiming = true }
        if media.isEmpty {
            sessionLines.append(SDPLine(type, text))
        } else {
            media[media.count - 1].lines.append(SDPLine(type, text))
        }
    }

    /// The description read, or what is missing.
    func finish(lines: Int) throws(SDPError) -> SessionDescription {
        guard sawVersion else { throw SDPError(line: 0, reason: .missingLine("v")) }
        guard let origin else { throw SDPError(line: 0, reason: .missingLine("o")) }
        guard let sessionName else { throw SDPError(line: 0, reason: .missingLine("s")) }
        guard sawTiming else { throw SDPError(line: 0, reason: .missingLine("t")) }
        return SessionDescription(origin: origin, sessionName: sessionName, lines: sessionLines,
                                  attributes: sessionAttributes, media: media)
    }

    /// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <address>`.
    static func origin(_ value: Substring) throws(SDPError.Reason) -> SDPOrigin {
        let parts = SDPScalar.fields(value)
        guard parts.count == 6, SDPScalar.isVisible(parts[0]), SDPScalar.isToken(parts[3]), SDPScalar.isToken(parts[4]),
              SDPScalar.isVisible(parts[5]) else { throw .malformedField(field: "o") }
        return SDPOrigin(username: String(parts[0]),
                         sessionID: try SDPScalar.number(parts[1], in: 0...UInt64.max, field: "o session id"),
                         sessionVersion: try SDPScalar.number(parts[2], in: 0...UInt64.max, field: "o session version"),
                         networkType: String(parts[3]), addressType: String(parts[4]), address: String(parts[5]))
    }

    /// `m=<media> <port>[/<count>] <proto> <fmt> ...`; RTP formats must be payload types.
    static func mediaLine(_ value: Substring) throws(SDPError.Reason) -> SDPMediaDescription {
        let parts = SDPScalar.fields(value)
        guard parts.count >= 4, SDPScalar.isToken(parts[0]),
              parts[2].split(separator: "/", omittingEmptySubsequences: false).allSatisfy(SDPScalar.isToken)
        else { throw .malformedField(field: "m") }
        let portParts = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard portParts.count <= 2 else { throw .malformedField(field: "m port") }
        var section = SDPMediaDescription(
            kind: String(parts[0]), port: try SDPScalar.port(portParts[0], field: "m port"),
            portCount: portParts.count == 2 ? UInt16(try SDPScalar.number(portParts[1], in: 1...65_535, field: "m port count")) : nil,
            proto: String(parts[2]), formats: [])
        for format in parts[3...] {
            if section.isRTP {
                _ = try SDPScalar.payloadType(format)
            } else {
                guard SDPScalar.isToken(format) else { throw .malformedField(field: "m format") }
            }
            section.formats.append(String(format))
        }
        return section
    }

    /// `a=<name>[:<value>]`, checked by ``SDPAttributeCheck``.
    static func attribute(_ value: Substring) throws(SDPError.Reason) -> SDPAttribute {
        let colon = value.firstIndex(of: ":")
        let name = value[..<(colon ?? value.endIndex)]
        guard SDPScalar.isToken(name) else { throw .malformedField(field: "a") }
        let attribute = SDPAttribute(String(name), colon.map { String(value[value.index(after: $0)...]) })
        try SDPAttributeCheck.check(attribute)
        return attribute
    }

    /// The other lines: `c=` and `t=` and `b=` are checked field by field, the free-text
    /// ones (`i= u= e= p= r= z= k=`) only for being non-empty.
    static func check(_ type: Character, _ value: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(value)
        switch type {
        case "c":
            guard parts.count == 3, SDPScalar.isToken(parts[0]), SDPScalar.isToken(parts[1]), SDPScalar.isVisible(parts[2]) else {
                throw .malformedField(field: "c")
            }
        case "t":
            guard parts.count == 2 else { throw .malformedField(field: "t") }
            _ = try SDPScalar.number(parts[0], in: 0...UInt64.max, field: "t start")
            _ = try SDPScalar.number(parts[1], in: 0...UInt64.max, field: "t stop")
        case "b":
            let pair = value.split(separator: ":", omittingEmptySubsequences: false)
            guard pair.count == 2, SDPScalar.isToken(pair[0]) else { throw .malformedField(field: "b") }
            _ = try SDPScalar.number(pair[1], in: 0...UInt64(UInt32.max), field: "b bandwidth")
        default:
            guard !value.isEmpty else { throw .malformedField(field: String(type)) }
        }
    }
}
