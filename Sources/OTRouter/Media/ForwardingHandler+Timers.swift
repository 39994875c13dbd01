import OTMedia

/// The forwarding thread's timers: the router's receiver reports to the publisher every
/// second (RFC 3550 6.4.2, a block per stream it has sent), transport-wide feedback to
/// the publisher every `feedbackInterval`, the legs' adaptation every
/// `adaptationInterval` and their probes, and keyframe requests (PLI naming each wanted
/// encoding's SSRC), at most one round per `keyframeInterval`, whoever asked for them.
extension ForwardingHandler {

    func runTimers(now: UInt64) -> UInt64? {
        if now >= nextReport {
            sendReceiverReport(now: now)
            nextReport = now + Self.reportInterval
        }
        if now >= nextFeedback {
            sendTransportFeedback(now: now)
            nextFeedback = now + Self.feedbackInterval
        }
        if now >= nextAdaptation {
            adaptLegs(now: now)
            nextAdaptation = now + Self.adaptationInterval
        }
        if now >= nextProbe { nextProbe = sendProbes(now: now) }
        var deadline = min(nextReport, nextFeedback, nextAdaptation, nextProbe)
        if let cascade = publisher.cascade {  // a cascade ingress keeps its consent at the origin's edge
            deadline = min(deadline, cascade.consent.nextCheck(now: now, socket: publisher.socket))
        }
        if let due = sendUpstreamNACKs(now: now) { deadline = min(deadline, due) }
        // An archive recorder waiting for a keyframe (its start, a lost frame) asks like a subscriber.
        if let recorder, recorder.needsKeyframe, !publisher.encodingSSRCs.isEmpty {
            group.requestKeyframe(encoding: publisher.encodingSSRCs.count - 1)
        }
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

    /// NACKs to the publisher for the holes due in each video encoding (RR + SDES + one
    /// Generic NACK per encoding with something to ask); returns when the next is due.
    private func sendUpstreamNACKs(now: UInt64) -> UInt64? {
        guard publisher.address != nil else { return nil }
        var next: UInt64?
        let ssrc = publisher.routerSSRC
        for index in publisher.gaps.indices where publisher.gaps[index].count > 0 {
            let count = publisher.gaps[index].collect(now: now, into: upstreamNACKScratch)
            if count > 0 {
                let built = NACKPair.build(lost: UnsafeBufferPointer(rebasing: upstreamNACKScratch[0..<count]), into: upstreamNACKPairs)
                let pairs = RTCPList(UnsafeBufferPointer(rebasing: upstreamNACKPairs[0..<built.pairs]))
                let media = publisher.sourceSSRC(publisher.encodingSSRCs[index])
                if sendToPublisher({ writer throws(RTCPError) in
                    try writer.append(ReceiverReport(ssrc: ssrc))
                    try writer.append(SourceDescription(ssrc: ssrc, cname: publisher.cname))
                    try writer.append(GenericNACK(senderSSRC: ssrc, mediaSSRC: media, pairs: pairs))
                }) {
                    GroupCounters.bump(counters.upstreamNACKs, by: UInt64(built.consumed))
                }
            }
            if let due = publisher.gaps[index].nextDue() { next = min(next ?? due, due) }
        }
        return next
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
                try writer.append(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: publisher.sourceSSRC(encodings[index])))
            }
        }
    }

    /// Transport-wide feedback about what the publisher sent since the last one (RFC 5506
    /// reduced-size compound: the feedback alone), built by `TransportFeedbackRecorder`.
    /// Its media SSRC is one the publisher really sends (`feedbackMediaSSRC`): Chrome hands
    /// a feedback to its congestion control only when it names one of its own SSRCs.
    private func sendTransportFeedback(now: UInt64) {
        guard publisher.address != nil else { return }
        let ssrc = publisher.routerSSRC
        let media = feedbackMediaSSRC()
        // A backlog (more than one feedback holds) goes out in a few at once.
        for _ in 0..<4 where publisher.arrivals.isDue(now: now) {
            let size = publisher.arrivals.buildFeedback(senderSSRC: ssrc, mediaSSRC: media, now: now, into: feedbackScratch)
            guard size > 0 else { break }
            let packet = PrebuiltRTCPPacket(bytes: UnsafeRawBufferPointer(rebasing: feedbackScratch[0..<size]))
            if sendToPublisher(reducedSize: true, { writer throws(RTCPError) in try writer.append(packet) }) {
                GroupCounters.bump(counters.transportFeedbacksOut)
            }
        }
    }

    /// The media SSRC a transport-wide feedback names, as the publisher knows it: the
    /// smallest video encoding heard (a browser's learned layer SSRC; a simulcast browser
    /// may never send the full one, whose SSRC it alone knows until it does), else the
    /// audio, else the full-size video. O(encodings ≤ 3).
    func feedbackMediaSSRC() -> UInt32 {
        for index in publisher.encodingSSRCs.indices where publisher.encodingStatistics[index].packetsReceived > 0 {
            return publisher.sourceSSRC(publisher.encodingSSRCs[index])
        }
        return publisher.audioSSRC ?? publisher.videoSSRC ?? 0
    }

    /// RR + SDES to the publisher with a block per stream it has sent (RFC 3550 6.4.2):
    /// each video encoding heard (every simulcast layer, under the SSRC the publisher sends
    /// it with) and the audio; at most 4 blocks, built on the stack.
    private func sendReceiverReport(now: UInt64) {
        var blocks = (ReportBlock(ssrc: 0), ReportBlock(ssrc: 0), ReportBlock(ssrc: 0), ReportBlock(ssrc: 0))
        var count = 0
        withUnsafeMutableBytes(of: &blocks) { raw in
            let slots = raw.baseAddress!.assumingMemoryBound(to: ReportBlock.self)
            for index in publisher.encodingSSRCs.indices.prefix(3) where publisher.encodingStatistics[index].packetsReceived > 0 {
                slots[count] = block(ssrc: publisher.sourceSSRC(publisher.encodingSSRCs[index]), &publisher.encodingStatistics[index],
                                     note: publisher.encodingReportNotes[index], now: now)
                count += 1
            }
            if publisher.audioSeen, let ssrc = publisher.audioSSRC {
                slots[count] = block(ssrc: ssrc, &publisher.audioStatistics, note: publisher.audioReportNote, now: now)
                count += 1
            }
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

    private func block(ssrc: UInt32, _ statistics: inout ReceiveStreamStatistics,
                       note: (middle32: UInt32, receivedAt: UInt64), now: UInt64) -> ReportBlock {
        let heard = note.receivedAt != 0 && now >= note.receivedAt
        return ReportBlock(ssrc: ssrc, fractionLost: statistics.takeFractionLost(),
                           cumulativeLost: Int32(clamping: statistics.cumulativeLost),
                           extendedHighestSequence: UInt32(truncatingIfNeeded: statistics.extendedHighestSequence),
                           jitter: UInt32(clamping: Int(statistics.jitter)),
                           lastSenderReport: heard ? note.middle32 : 0,
                           delaySinceLastSenderReport: heard ? RTCPRoundTrip.compact(fromNanoseconds: now - note.receivedAt) : 0)
    }
}
