/// Writes a command as a RESP2 array of bulk strings: binary-safe (an argument may hold
/// any bytes, CR and LF included, since its length goes before it).
enum RedisCommandEncoding {
    /// `*<n>\r\n` then `$<len>\r\n<bytes>\r\n` per argument. Cost: one array sized once.
    static func encode(_ arguments: [[UInt8]]) -> [UInt8] {
        var size = 16
        for argument in arguments { size += argument.count + 16 }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        out.append(UInt8(ascii: "*"))
        out.append(contentsOf: String(arguments.count).utf8)
        out.append(contentsOf: [13, 10])
        for argument in arguments {
            out.append(UInt8(ascii: "$"))
            out.append(contentsOf: String(argument.count).utf8)
            out.append(contentsOf: [13, 10])
            out.append(contentsOf: argument)
            out.append(contentsOf: [13, 10])
        }
        return out
    }
}
