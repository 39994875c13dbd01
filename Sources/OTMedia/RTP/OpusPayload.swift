/// An Opus RTP payload (RFC 7587), validated against RFC 6716 section 3.4.
///
/// RFC 7587's rules, which the pipelines follow:
/// - One Opus packet per RTP payload, no extra payload header (section 4.2).
/// - The RTP clock is 48 kHz whatever the encoder's actual rate or channel count
///   (section 4.1); the timestamp advances by the packet's duration in 48 kHz samples
///   per channel (`samples`), e.g. 960 for 20 ms.
/// - The SDP always says `opus/48000/2`; mono or stereo is decided per packet by the
///   TOC's s bit, and a decoder must accept both (section 7).
/// - The marker bit is set on the first packet of a talkspurt (after DTX silence).
/// - With DTX a packet may be just the TOC byte (a 0-byte frame, RFC 6716 3.2.1).
///
/// Lifetime: `data` is a view of the RTP payload it was parsed from. Cost: parsing reads
/// the TOC and the frame-length bytes (at most 2 + 2·47 + padding bytes); nothing is
/// allocated.
public struct OpusPayload {
    /// The whole Opus packet, ready for the decoder.
    public let data: UnsafeRawBufferPointer
    /// Its TOC byte.
    public let toc: OpusTOC
    /// Frames in the packet (1...48).
    public let frameCount: Int

    /// RFC 7587 section 4.1: the RTP clock rate for Opus.
    public static let clockRate = 48_000
    /// RFC 6716 section 3.4 R2: the longest frame.
    public static let maxFrameLength = 1275
    /// RFC 6716 section 3.4 R5: the longest packet, 120 ms at 48 kHz.
    public static let maxPacketSamples = 5760
    static let vbrBit: UInt8 = 0x80
    static let paddingBit: UInt8 = 0x40
    static let frameCountMask: UInt8 = 0x3F

    /// Parses and validates an Opus packet. Throws `truncated` for an empty payload and
    /// `malformedOpusPacket` naming the RFC 6716 rule (R2...R7) it breaks. Never traps.
    public init(parsing payload: UnsafeRawBufferPointer) throws(RTPError) {
        guard payload.count >= 1 else { throw .truncated(what: "Opus TOC byte", needed: 1, available: 0) }
        data = payload
        toc = OpusTOC(payload[0])
        let n = payload.count
        switch toc.frameCountCode {
        case 0:
            guard n - 1 <= Self.maxFrameLength else { throw .malformedOpusPacket("R2: a code 0 frame is longer than 1275 bytes") }
            frameCount = 1
        case 1:
            guard (n - 1) % 2 == 0 else { throw .malformedOpusPacket("R3: a code 1 packet must split into two equal frames") }
            guard (n - 1) / 2 <= Self.maxFrameLength else { throw .malformedOpusPacket("R2: a code 1 frame is longer than 1275 bytes") }
            frameCount = 2
        case 2:
            var offset = 1
            guard let first = Self.frameLength(payload, &offset) else {
                throw .malformedOpusPacket("R4: the code 2 frame length is cut off")
            }
            guard first <= n - offset else { throw .malformedOpusPacket("R4: the first code 2 frame runs past the packet") }
            guard n - offset - first <= Self.maxFrameLength else { throw .malformedOpusPacket("R2: the second code 2 frame is longer than 1275 bytes") }
            frameCount = 2
        default:
            guard n >= 2 else { throw .malformedOpusPacket("R6: a code 3 packet needs its frame count byte") }
            let countByte = payload[1]
            let m = Int(countByte & Self.frameCountMask)
            guard m >= 1, m * toc.frameSamples <= Self.maxPacketSamples else {
                throw .malformedOpusPacket("R5: a code 3 packet needs 1 frame or more and at most 120 ms")
            }
            var offset = 2
            var padding = 0
            if countByte & Self.paddingBit != 0 {
                while true {
                    guard offset < n else { throw .malformedOpusPacket("R6/R7: the padding length is cut off") }
                    let byte = Int(payload[offset])
                    offset += 1
                    padding += byte == 255 ? 254 : byte
                    if byte != 255 { break }
                }
            }
            guard padding <= n - offset else { throw .malformedOpusPacket("R6/R7: the padding runs past the packet") }
            let end = n - padding
            if countByte & Self.vbrBit == 0 {
                let remaining = end - offset
                guard remaining % m == 0 else { throw .malformedOpusPacket("R6: CBR code 3 frames must be of equal length") }
                guard remaining / m <= Self.maxFrameLength else { throw .malformedOpusPacket("R2: a code 3 frame is longer than 1275 bytes") }
            } else {
                var total = 0
                for _ in 0..<m - 1 {
                    guard let length = Self.frameLength(payload, &offset), offset <= end else {
                        throw .malformedOpusPacket("R7: a VBR code 3 frame length is cut off")
                    }
                    total += length
                }
                guard total <= end - offset else { throw .malformedOpusPacket("R7: VBR code 3 frames run past the packet") }
                guard end - offset - total <= Self.maxFrameLength else { throw .malformedOpusPacket("R2: a code 3 frame is longer than 1275 bytes") }
            }
            frameCount = m
        }
    }

    /// The packet's duration in 48 kHz samples per channel: how far the RTP timestamp
    /// advances for it.
    public var samples: Int { frameCount * toc.frameSamples }

    /// RFC 6716 section 3.2.1: a frame length in one byte (0...251) or two (252...1275:
    /// second byte × 4 + first). Nil when a byte is missing.
    static func frameLength(_ p: UnsafeRawBufferPointer, _ offset: inout Int) -> Int? {
        guard offset < p.count else { return nil }
        let first = Int(p[offset])
        if first < 252 {
            offset += 1
            return first
        }
        guard offset + 1 < p.count else { return nil }
        let length = Int(p[offset + 1]) * 4 + first
        offset += 2
        return length
    }
}
