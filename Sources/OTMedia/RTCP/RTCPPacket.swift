/// One RTCP packet of a compound, decoded by its type (PT) and feedback format (FMT).
///
/// Dispatch (RFC 3550 section 12.1, RFC 4585 section 6.1, RFC 5104 section 4.3):
/// 200 SR, 201 RR, 202 SDES, 203 BYE, 205 RTPFB (FMT 1 NACK, 15 TWCC),
/// 206 PSFB (FMT 1 PLI, 4 FIR, 15 AFB carrying 'REMB'). Anything else is `.unknown`; a
/// known type whose body does not parse is `.malformed`. Views point into the datagram.
public enum RTCPPacket {
    /// PT 200.
    case senderReport(SenderReport)
    /// PT 201.
    case receiverReport(ReceiverReport)
    /// PT 202.
    case sourceDescription(SourceDescription)
    /// PT 203.
    case goodbye(Goodbye)
    /// PT 205, FMT 1.
    case genericNACK(GenericNACK)
    /// PT 205, FMT 15.
    case transportWideFeedback(TransportWideCCFeedback)
    /// PT 206, FMT 1.
    case pictureLossIndication(PictureLossIndication)
    /// PT 206, FMT 4.
    case fullIntraRequest(FullIntraRequest)
    /// PT 206, FMT 15, 'REMB'.
    case receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate)
    /// A type or format OTKit does not read (APP, XR, other AFB…): its header and body.
    case unknown(RTCPHeader, body: UnsafeRawBufferPointer)
    /// A known type whose contents are invalid.
    case malformed(RTCPHeader, RTCPError)

    /// Decodes the single packet at the start of `bytes` (its header's length bounds it).
    /// Never throws or traps: failures come back as `.malformed`, and a header that cannot
    /// be read at all as `.malformed` with an all-zero header. Cost: that of the type's parser.
    public init(parsing bytes: UnsafeRawBufferPointer) {
        let header: RTCPHeader
        do {
            header = try RTCPHeader(parsing: bytes)
        } catch {
            self = .malformed(RTCPHeader(count: 0, packetType: RTCPPacketType(rawValue: 0), length: 0), error)
            return
        }
        do {
            switch (header.packetType, header.count) {
            case (.senderReport, _): self = .senderReport(try SenderReport(parsing: bytes))
            case (.receiverReport, _): self = .receiverReport(try ReceiverReport(parsing: bytes))
            case (.sourceDescription, _): self = .sourceDescription(try SourceDescription(parsing: bytes))
            case (.goodbye, _): self = .goodbye(try Goodbye(parsing: bytes))
            case (.transportFeedback, GenericNACK.format): self = .genericNACK(try GenericNACK(parsing: bytes))
            case (.transportFeedback, TransportWideCCFeedback.format):
                self = .transportWideFeedback(try TransportWideCCFeedback(parsing: bytes))
            case (.payloadFeedback, PictureLossIndication.format):
                self = .pictureLossIndication(try PictureLossIndication(parsing: bytes))
            case (.payloadFeedback, FullIntraRequest.format): self = .fullIntraRequest(try FullIntraRequest(parsing: bytes))
            case (.payloadFeedback, ReceiverEstimatedMaxBitrate.format) where Self.isREMB(bytes):
                self = .receiverEstimatedMaxBitrate(try ReceiverEstimatedMaxBitrate(parsing: bytes))
            default:
                let (_, body) = try RTCPHeader.split(bytes)
                self = .unknown(header, body: body)
            }
        } catch {
            self = .malformed(header, error)
        }
    }

    /// An AFB message (PSFB FMT 15) is REMB when its FCI starts with 'REMB'; other AFB
    /// messages are someone else's and are skipped as unknown.
    static func isREMB(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= FeedbackHeader.size + 4 && bytes.be32(FeedbackHeader.size) == ReceiverEstimatedMaxBitrate.identifier
    }
}
