extension SessionDescription {
    /// The description as SDP text with CRLF line endings, in RFC 8866 order: `v=0`, `o=`,
    /// `s=`, the session lines, the session attributes, then each section's `m=`, lines and
    /// attributes. Parsing the text gives back an equal value (for a description that
    /// parses at all). Cost: linear in the description, one string built.
    public var text: String {
        var out = ""
        out.reserveCapacity(2_048)
        out += "v=0\r\n"
        out += "o=\(origin.username) \(origin.sessionID) \(origin.sessionVersion) \(origin.networkType) \(origin.addressType) \(origin.address)\r\n"
        out += "s=\(sessionName)\r\n"
        Self.write(lines, attributes, to: &out)
        for section in media {
            out += "m=\(section.kind) \(section.port)"
            if let count = section.portCount { out += "/\(count)" }
            out += " \(section.proto)"
            for format in section.formats { out += " \(format)" }
            out += "\r\n"
            Self.write(section.lines, section.attributes, to: &out)
        }
        return out
    }

    private static func write(_ lines: [SDPLine], _ attributes: [SDPAttribute], to out: inout String) {
        for line in lines { out += "\(line.type)=\(line.value)\r\n" }
        for attribute in attributes {
            out += "a=" + attribute.name
            if let value = attribute.value { out += ":" + value }
            out += "\r\n"
        }
    }
}
