/// OpenTok's signal limits, checked before anything is sent.
enum SignalValidation {
    /// Longest type, characters.
    static let maximumTypeLength = 128
    /// Largest data, bytes of UTF-8.
    static let maximumDataBytes = 8192

    /// Throws 1461 for a type over 128 characters or with a character outside
    /// A–Z a–z 0–9 - _ ~, and 1413 for data over 8192 bytes. Cost: one pass over each.
    static func validate(type: String, data: String) throws(OTError) {
        guard type.utf8.count <= maximumTypeLength else {
            throw OTError(.invalidSignalType, "signal type of \(type.utf8.count) characters is over the 128-character limit")
        }
        for byte in type.utf8 {
            let ok = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || byte == 0x7E
            guard ok else {
                throw OTError(.invalidSignalType, "signal type \"\(type)\" may contain only A-Z a-z 0-9 - _ ~")
            }
        }
        guard data.utf8.count <= maximumDataBytes else {
            throw OTError(.signalDataTooLong, "signal data of \(data.utf8.count) bytes is over the 8192-byte limit")
        }
    }
}
