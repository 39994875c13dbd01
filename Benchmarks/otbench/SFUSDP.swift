/// The little SDP `otbench sfu` exchanges with Janus's VideoRoom: an offer for the
/// publisher (one Opus and one VP8 m-line, BUNDLE, rtcp-mux, our host candidate,
/// `a=setup:active`), the parts of Janus's SDP the benchmark needs (ICE credentials,
/// fingerprint, first IPv4 UDP host candidate, the Opus and VP8 payload types), and the
/// answer to a subscriber offer. Only what Janus sends and needs; not a general parser.
/// Cost: string building and one pass over the lines.
enum SFUSDP {
    /// Our side of a leg: ICE credentials, certificate fingerprint (`sha-256 AB:…`) and
    /// the socket's IPv4 address and port.
    struct Local {
        let ufrag: String
        let password: String
        let fingerprint: String
        let host: String
        let port: UInt16
    }

    /// What the benchmark reads from Janus's SDP.
    struct Remote {
        var ufrag = ""
        var password = ""
        var fingerprint = ""
        var host = ""
        var port: UInt16 = 0
        var audioPayloadType: UInt8?
        var videoPayloadType: UInt8?
        /// The m-lines in order: kind (`audio`, `video`, …), mid, payload type or nil.
        var media: [(kind: String, mid: String, payloadType: UInt8?, proto: String)] = []
    }

    /// The publisher's offer: sendonly Opus (PT 111) and VP8 (PT 96) with these SSRCs.
    static func publisherOffer(_ local: Local, audioSSRC: UInt32, videoSSRC: UInt32) -> String {
        var sdp = header("0 1")
        sdp += section(kind: "audio", mid: "0", payloadType: 111, codec: "opus/48000/2", direction: "sendonly", local,
                       ssrc: audioSSRC)
        sdp += section(kind: "video", mid: "1", payloadType: 96, codec: "VP8/90000", direction: "sendonly", local,
                       ssrc: videoSSRC)
        return sdp
    }

    /// The answer to a subscriber offer: every audio/video m-line received (recvonly,
    /// its first Opus or VP8 payload type), anything else rejected (port 0).
    static func subscriberAnswer(_ local: Local, to offer: Remote) -> String {
        let accepted = offer.media.filter { $0.payloadType != nil }.map(\.mid)
        var sdp = header(accepted.joined(separator: " "))
        for line in offer.media {
            if let payloadType = line.payloadType {
                sdp += section(kind: line.kind, mid: line.mid, payloadType: payloadType,
                               codec: line.kind == "audio" ? "opus/48000/2" : "VP8/90000", direction: "recvonly", local, ssrc: nil)
            } else {
                sdp += "m=\(line.kind) 0 \(line.proto) 0\r\nc=IN IP4 0.0.0.0\r\na=mid:\(line.mid)\r\n"
            }
        }
        return sdp
    }

    /// Reads Janus's SDP (offer or answer). Throws when it lacks credentials, a
    /// fingerprint or an IPv4 UDP candidate.
    static func parse(_ sdp: String) throws -> Remote {
        var remote = Remote()
        var kind: String?
        for raw in sdp.split(whereSeparator: \.isNewline) {  // "\r\n" is one Character
            let line = String(raw)
            if line.hasPrefix("m=") {
                let parts = line.dropFirst(2).split(separator: " ")
                kind = parts.first.map(String.init)
                remote.media.append((kind: kind ?? "", mid: "", payloadType: nil, proto: parts.count > 2 ? String(parts[2]) : "RTP/AVP"))
            } else if line.hasPrefix("a=ice-ufrag:") {
                remote.ufrag = String(line.dropFirst(12))
            } else if line.hasPrefix("a=ice-pwd:") {
                remote.password = String(line.dropFirst(10))
            } else if line.hasPrefix("a=fingerprint:") {
                remote.fingerprint = String(line.dropFirst(14))
            } else if line.hasPrefix("a=mid:"), !remote.media.isEmpty {
                remote.media[remote.media.count - 1].mid = String(line.dropFirst(6))
            } else if line.hasPrefix("a=rtpmap:"), let kind, !remote.media.isEmpty {
                let parts = line.dropFirst(9).split(separator: " ")
                guard parts.count == 2, let payloadType = UInt8(parts[0]), payloadType < 128 else { continue }
                let codec = parts[1].lowercased()
                let wanted = kind == "audio" ? codec.hasPrefix("opus/") : kind == "video" && codec.hasPrefix("vp8/")
                guard wanted, remote.media[remote.media.count - 1].payloadType == nil else { continue }
                remote.media[remote.media.count - 1].payloadType = payloadType
                if kind == "audio", remote.audioPayloadType == nil { remote.audioPayloadType = payloadType }
                if kind == "video", remote.videoPayloadType == nil { remote.videoPayloadType = payloadType }
            } else if line.hasPrefix("a=candidate:"), remote.port == 0 {
                // foundation component transport priority address port typ type …
                let parts = line.dropFirst(12).split(separator: " ")
                guard parts.count >= 8, parts[2].lowercased() == "udp", parts[4].contains("."),
                      let port = UInt16(parts[5]), port > 0 else { continue }
                remote.host = String(parts[4])
                remote.port = port
            }
        }
        guard !remote.ufrag.isEmpty, !remote.password.isEmpty, !remote.fingerprint.isEmpty else {
            throw ScenarioError("Janus's SDP lacks ICE credentials or a fingerprint:\n\(sdp.prefix(3000))")
        }
        guard remote.port != 0 else { throw ScenarioError("Janus's SDP has no IPv4 UDP candidate") }
        return remote
    }

    private static func header(_ mids: String) -> String {
        "v=0\r\no=- \(UInt32.random(in: 1...UInt32.max)) 2 IN IP4 127.0.0.1\r\ns=otbench\r\nt=0 0\r\n"
            + "a=group:BUNDLE \(mids)\r\na=msid-semantic: WMS otbench\r\n"
    }

    private static func section(kind: String, mid: String, payloadType: UInt8, codec: String, direction: String,
                                _ local: Local, ssrc: UInt32?) -> String {
        var text = "m=\(kind) 9 UDP/TLS/RTP/SAVPF \(payloadType)\r\nc=IN IP4 \(local.host)\r\n"
            + "a=ice-ufrag:\(local.ufrag)\r\na=ice-pwd:\(local.password)\r\na=fingerprint:\(local.fingerprint)\r\n"
            + "a=setup:active\r\na=mid:\(mid)\r\na=\(direction)\r\na=rtcp-mux\r\na=rtpmap:\(payloadType) \(codec)\r\n"
        if let ssrc { text += "a=msid:otbench \(kind)\r\na=ssrc:\(ssrc) cname:otbench\r\n" }
        text += "a=candidate:1 1 udp 2130706431 \(local.host) \(local.port) typ host\r\na=end-of-candidates\r\n"
        return text
    }
}
