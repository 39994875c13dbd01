import OTMedia

/// The forwarding thread's timers: the router's receiver reports to the publisher every
/// second (RFC 3550 6.4.2, a block per stream it has sent), transport-wide feedback to
/// the publisher every `feedbackInterval`, the legs' adaptation every
/// `adaptationInterval` and their probes, and keyframe requests (PLI naming each wanted
/// encoding's SSRC), at most one round per `keyframeInterval`, whoever asked for them.
extension ForwardingHandler {

    func wokenUp(now: UInt64) {}

    func runTimers(now: UInt64) -> UInt64? {
        if now >= nextReport {
            sendReceiverReport(now: now)
            nextReport = now + Self.reportInterval
        }
        if now >= nextFeedback {
            sendTransportFeedback()
            nextFeedback = now + Self.feedbackInterval
        }
        if now >= nextAdaptation {
            adaptLegs(now: now)
            nextAdaptation = now + Self.adaptationInterval
        }
        if now >= nextProbe { nextProbe = sendProbes(now: now) }
        var deadline = min(nextReport, nextFeedback, nextAdaptation, nextProbe)
        if publisher.videoSSRC != nil, group.keyframeWanted.load(ordering: .relaxed) != 0, publisher.address != nil {
            let allowed = publisher.lastKeyframeRequest == 0 ? now : publisher.lastKeyframeRequest + Self.keyframeInterval
            if now >= allowed {
                let wanted = group.keyframeWanted.exchange(0, ordering: .relaxed)
                if sendKeyframeRequest(wanted) {
                    publisher.lastKeyframeRequest = now
                    GroupCounters.bump(counters.keyframeRequests)
                }
            } else {
                deadline = min(deadline, allowed)
            }
        }
        return deadline
    }

    /// One compound with a PLI per wanted encoding (bit = spatial index).
    private func sendKeyframeRequest(_ wanted: UInt8) -> Bool {
        let encodings = publisher.encodingSSRCs
        guard !encodings.isEmpty else { return false }
        let ssrc = publisher.routerSSRC
        return sendToPublisher { writer throws(RTCPError) in
            try writer.append(ReceiverReport(ssrc: ssrc))
            try writer.append(SourceDescription(ssrc: ssrc, cname: publisher.cname))
            for index in encodings.indices where wanted & (1 << UInt8(index)) != 0 {
                try writer.append(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: encodings[index]))
            }
        }
    }

    /// Transport-wide feedback about what the publisher sent since the last one (RFC 5506
    /// reduced-size compound: the feedback alone).
    private func sendTransportFeedback() {
        guard publisher.address != nil else { return }
        let ssrc = publisher.routerSSRC
        let media = publisher.videoSSRC ?? publisher.audioSSRC ?? 0
        // A feedback covers at most 1200 bytes of statuses; a backlog goes out in a few.
        for _ in 0..<4 {
            let sent = publisher.arrivals.feedback(senderSSRC: ssrc, mediaSSRC: media) { builder in
                sendToPublisher(reducedSize: true) { writer throws(RTCPError) in try writer.append(builder) }
            }
            guard sent else { break }
            GroupCounters.bump(counters.transportFeedbacksOut)
            if publisher.arrivals.records.isEmpty { break }
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
