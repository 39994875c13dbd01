import Testing
@testable import OTMedia

@Suite struct PacketDemuxTests {
    /// RFC 7983 first-byte ranges and the RFC 5761 second-byte rule.
    @Test(arguments: [
        ([UInt8](), PacketClass.unknown),
        ([0x00, 0x01, 0x00, 0x00], .stun),        // STUN binding request
        ([0x01, 0x01], .stun),                    // STUN binding success response
        ([0x03], .stun),
        ([0x04], .unknown),
        ([0x0F], .unknown),
        ([0x10], .zrtp),
        ([0x13], .zrtp),
        ([0x14, 0xFE, 0xFD], .dtls),              // DTLS change cipher spec
        ([0x16, 0xFE, 0xFD], .dtls),              // DTLS handshake
        ([0x17], .dtls),                          // DTLS application data
        ([0x3F], .dtls),
        ([0x40, 0x00, 0x00, 0x04], .turnChannel), // ChannelData 0x4000
        ([0x4F], .turnChannel),
        ([0x50], .unknown),
        ([0x7F], .unknown),
        ([0x80], .unknown),                       // RTP/RTCP range but too short to tell
        ([0x80, 0x60], .rtp),                     // PT 96 (VP8), no marker
        ([0x80, 0xE0], .rtp),                     // PT 96 with marker
        ([0x80, 0x6F], .rtp),                     // PT 111 (Opus)
        ([0x80, 0xBF], .rtp),                     // marker + PT 63: below the RTCP range
        ([0x80, 0xC0], .rtcp),                    // 192: first value of the RTCP range (FIR, RFC 2032)
        ([0x81, 0xC8], .rtcp),                    // SR
        ([0x81, 0xC9], .rtcp),                    // RR
        ([0x81, 0xCD], .rtcp),                    // RTPFB
        ([0x8F, 0xCE], .rtcp),                    // PSFB
        ([0x80, 0xDF], .rtcp),                    // 223: last value of the RTCP range
        ([0x80, 0xE0 - 1], .rtcp),
        ([0xBF, 0xC8], .rtcp),
        ([0xC0, 0xC8], .unknown),                 // version 3
        ([0xFF, 0xFF], .unknown),
    ])
    func classification(bytes: [UInt8], expected: PacketClass) {
        #expect(withRaw(bytes) { PacketClassifier.classify($0) } == expected)
    }

    @Test func realPacketsClassify() {
        #expect(withRaw(RTCPCompoundTests.senderCompound) { PacketClassifier.classify($0) } == .rtcp)
        #expect(withRaw(RTCPTransportFeedbackTests.feedback) { PacketClassifier.classify($0) } == .rtcp)
        // A VP8 RTP header: V=2, PT 96, seq 1, ts 0, SSRC 1.
        let rtp: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1]
        #expect(withRaw(rtp) { PacketClassifier.classify($0) } == .rtp)
    }

    /// Every first/second byte pair: the class depends only on the ranges, never traps.
    @Test func everyTwoBytePrefixIsClassified() {
        var counts: [PacketClass: Int] = [:]
        for first in 0 ... 255 {
            for second in 0 ... 255 {
                let bytes = [UInt8(first), UInt8(second)]
                let result = withRaw(bytes) { PacketClassifier.classify($0) }
                counts[result, default: 0] += 1
                let one = withRaw([UInt8(first)]) { PacketClassifier.classify($0) }
                if (128 ... 191).contains(first) { #expect(one == .unknown) } else { #expect(one == result) }
            }
        }
        #expect(counts[.stun] == 4 * 256)
        #expect(counts[.zrtp] == 4 * 256)
        #expect(counts[.dtls] == 44 * 256)
        #expect(counts[.turnChannel] == 16 * 256)
        #expect(counts[.rtcp] == 64 * 32)
        #expect(counts[.rtp] == 64 * 224)
    }
}
