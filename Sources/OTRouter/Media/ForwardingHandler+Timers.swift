import OTMedia

/// The forwarding thread's timers: the router's receiver reports to the publisher every
/// second (RFC 3550 6.4.2, a block per stream it has sent) and keyframe requests (PLI),
/// at most one per `keyframeInterval`, whoever asked for them.
extension ForwardingHandler {

    func wokenUp(now: UInt64) {}

    func runTimers(now: UInt64) -> UInt64? {
        if now >= nextReport {
            sendReceiverReport(now: now)
            nextReport = now + Self.reportInterval
        }
        var deadline = nextReport
        if publisher.videoSSRC != nil, group.keyframeWanted.load(ordering: .relaxed), publisher.address != nil {
            let allowed = publisher.lastKeyframeRequest == 0 ? now : publisher.lastKeyframeRequest + Self.keyframeInterval
            if now >= allowed {
                group.keyframeWanted.store(false, ordering: .relaxed)
                if sendKeyframeRequest() {
                    publisher.lastKeyframeRequest = now
                    GroupCounters.bump(counters.keyframeRequests)
                }
            } else {
                deadline = min(deadline, allowed)
            }
        }
        return deadline
    }

    private func sendKeyframeRequest() -> Bool {
        guard let media = publisher.videoSSRC else { return false }
        let ssrc = publisher.routerSSRC
        return sendToPublisher { writer throws(RTCPError) in
            try writer.append(ReceiverReport(ssrc: ssrc))
            try writer.append(SourceDescription(ssrc: ssrc, cname: publisher.cname))
            try writer.append(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: media))
        }
    }

    /// RR + SDES to the publisher with a block per stream it has sent (RFC 3550 6.4.2).
    private func sendReceiverReport(now: UInt64) {
        var blocks = (ReportBlock(ssrc: 0), ReportBlock(ssrc: 0))
        var count = 0
        if publisher.videoSeen, let ssrc = publisher.videoSSRC {
            blocks.0 = block(ssrc: ssrc, &publisher.videoStatistics)
            count = 1
        }
        if publisher.audioSeen, let ssrc = publisher.audioSSRC {
            let audio = block(ssrc: ssrc, &publisher.audioStatistics)
            if count == 0 { blocks.0 = audio } else { blocks.1 = audio }
            count += 1
        }
        let ssrc = publisher.routerSSRC
        withUnsafeBytes(of: &blocks) { raw in
            let list = RTCPList(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: ReportBlock.self), count: count))
            sendToPublisher { writer throws(RTCPError) in
                try writer.append(ReceiverReport(ssrc: ssrc, reportBlocks: list))
                try writer.append(SourceDescription(ssrc: ssrc, cname: publisher.cname))
            }
        }
    }

    private func block(ssrc: UInt32, _ statistics: inout ReceiveStreamStatistics) -> ReportBlock {
        ReportBlock(ssrc: ssrc, fractionLost: statistics.takeFractionLost(),
                    cumulativeLost: Int32(clamping: statistics.cumulativeLost),
                    extendedHighestSequence: UInt32(truncatingIfNeeded: statistics.extendedHighestSequence),
                    jitter: UInt32(clamping: Int(statistics.jitter)))
    }
}
