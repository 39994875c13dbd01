import Synchronization

/// The sending half of one RTP stream: numbers packets, stamps them from capture time,
/// protects them in place and keeps the counts a sender report needs.
///
/// Owned by the stream's capture thread (`nextHeader`, `protect`); the feedback thread
/// reads `senderReportCounts()` and `rtpTimestamp(at:)` through atomics and constants.
/// Cost per packet: one SRTP protect; no allocation.
final class RTPStreamSender: @unchecked Sendable {
    let parameters: RTPStreamParameters
    private let srtp: SRTPSession?
    private var sequence: UInt16
    private let timestampBase: UInt32
    private let packetCount = Atomic<UInt64>(0)
    private let payloadOctets = Atomic<UInt64>(0)

    init(parameters: RTPStreamParameters, keys: SRTPKeyMaterial?) throws(MediaError) {
        self.parameters = parameters
        do { srtp = try keys.map { k throws(SRTPError) in try SRTPSession(keys: k, direction: .sender) } } catch {
            throw MediaError(.invalidArgument, "SRTP sender for SSRC \(parameters.ssrc): \(error)")
        }
        sequence = UInt16.random(in: 0...UInt16.max)
        timestampBase = UInt32.random(in: 0...UInt32.max)
    }

    /// The RTP timestamp of monotonic time `nanoseconds` on this stream's clock.
    func rtpTimestamp(at nanoseconds: UInt64) -> UInt32 {
        timestampBase &+ UInt32(truncatingIfNeeded: RTPClockTime.ticks(nanoseconds: nanoseconds, rate: parameters.clockRate))
    }

    /// The header of the next packet (its sequence number is taken).
    func nextHeader(timestamp: UInt32, marker: Bool) -> RTPHeader {
        defer { sequence &+= 1 }
        return RTPHeader(payloadType: parameters.payloadType, sequenceNumber: sequence, timestamp: timestamp,
                         ssrc: parameters.ssrc, marker: marker)
    }

    /// Protects the packet in `buffer` (written at its start, `length` bytes) in place and
    /// sets the buffer's length; counts it for the sender report.
    func finish(_ buffer: PacketBuffer, length: Int, payloadBytes: Int) throws(MediaError) {
        var total = length
        if let srtp {
            do { total = try srtp.protect(buffer.writableBytes, length: length) } catch {
                throw MediaError(.systemError, "SRTP protect failed for SSRC \(parameters.ssrc): \(error)")
            }
        }
        buffer.setLength(total)
        packetCount.add(1, ordering: .relaxed)
        payloadOctets.add(UInt64(payloadBytes), ordering: .relaxed)
    }

    /// Packets and payload octets sent so far (RFC 3550 SR sender info).
    func senderReportCounts() -> (packets: UInt32, octets: UInt32) {
        (UInt32(truncatingIfNeeded: packetCount.load(ordering: .relaxed)),
         UInt32(truncatingIfNeeded: payloadOctets.load(ordering: .relaxed)))
    }

    /// Whether anything was sent yet (a sender report is due only then).
    var hasSent: Bool { packetCount.load(ordering: .relaxed) > 0 }
}
