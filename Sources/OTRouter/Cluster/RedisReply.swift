/// One Redis reply (RESP2), as ``RedisReplyParser`` read it from the wire: every length
/// was range-checked before it was used. Binary-safe: bulk strings are bytes.
public indirect enum RedisReply: Sendable, Equatable {
    /// `+OK`: a status line (no CR or LF inside).
    case status(String)
    /// `-ERR …`: the server refused the command; the text says why.
    case error(String)
    /// `:123`: a signed 64-bit integer.
    case integer(Int64)
    /// `$n`: a bulk string of n bytes; nil for the nil bulk (`$-1`).
    case bulk([UInt8]?)
    /// `*n`: an array of n replies; nil for the nil array (`*-1`).
    case array([RedisReply]?)

    /// The bulk string or status as UTF-8 text (invalid bytes replaced), nil for anything
    /// else (nil bulk included). Cost: one String.
    public var text: String? {
        switch self {
        case .bulk(let bytes?): return String(decoding: bytes, as: UTF8.self)
        case .status(let line): return line
        default: return nil
        }
    }

    /// The integer, or a bulk string holding a decimal integer; nil otherwise. Cost: a parse.
    public var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .bulk(let bytes?): return Int64(String(decoding: bytes, as: UTF8.self))
        default: return nil
        }
    }

    /// The array's elements; nil for anything else (the nil array included). Cost: none.
    public var elements: [RedisReply]? {
        if case .array(let items?) = self { return items }
        return nil
    }

    /// Whether this is the nil bulk or nil array. Cost: none.
    public var isNil: Bool {
        switch self {
        case .bulk(nil), .array(nil): return true
        default: return false
        }
    }
}
