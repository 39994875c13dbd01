import Glibc
import OTMedia
@testable import OTRouter
import OTTestSupport
import Synchronization
import Testing

/// Pipelines on a socket the connector set up: media through the edge with the
/// handshake's keys, consent checks that keep the leg, STUN/DTLS kept out of SRTP.
@Suite struct EdgeConnectPipelineTests {
    /// A publisher on the connected socket: the edge unprotects its RTP (VP8 on the
    /// configured SSRC) with the keys it derived itself.
    @Test func aPublisherOnAConnectedSocketDeliversRTPTheEdgeUnprotects() throws {
        let fixture = try EdgeFixture()
        let leg = try EdgeConnectLeg(fixture, id: 1)
        let keys = try leg.connector.connect()
        var configuration = PublisherConfiguration(destination: leg.peer.address,
                                                   video: VP8EncoderSettings(width: 160, height: 120, frameRate: 15, bitrateKbps: 200),
                                                   audio: nil)
        configuration.keys = keys
        configuration.connectedSocket = leg.socket
        let publisher = try PublisherPipeline(configuration: configuration,
                                              videoSource: TestPatternSource(format: VideoFormat(width: 160, height: 120, frameRate: 15)),
                                              audioSource: nil)
        #expect(publisher.localAddress == leg.socket.localAddress)
        try publisher.start()
        defer { publisher.stop() }
        let id = EdgeLegID(1)
        #expect(edgeEventually { fixture.inbox.received(id).filter { !$0.isRTCP }.count >= 10 })
        let media = fixture.inbox.received(id).filter { !$0.isRTCP }
        #expect(media.allSatisfy { $0.bytes.count > 12 && $0.bytes[1] & 0x7F == configuration.videoStream.payloadType })
        let ssrc = configuration.videoStream.ssrc
        #expect(media.allSatisfy {
            UInt32($0.bytes[8]) << 24 | UInt32($0.bytes[9]) << 16 | UInt32($0.bytes[10]) << 8 | UInt32($0.bytes[11]) == ssrc
        })
        #expect(fixture.edge.counters.srtpAuthFailures == 0)
    }

    /// A subscriber on the connected socket decrypts what the edge sends it, and its
    /// receiver reports reach the edge as SRTCP the edge authenticates.
    @Test func aSubscriberOnAConnectedSocketReceivesWhatTheEdgeSends() throws {
        let fixture = try EdgeFixture()
        let leg = try EdgeConnectLeg(fixture, id: 1)
        let keys = try leg.connector.connect()
        var configuration = SubscriberConfiguration()
        configuration.keys = keys
        configuration.connectedSocket = leg.socket
        configuration.feedbackDestination = leg.peer.address
        configuration.audioStream = nil
        configuration.receiverReportIntervalNanoseconds = 100_000_000
        let subscriber = try SubscriberPipeline(configuration: configuration)
        try subscriber.start()
        defer { subscriber.stop() }
        let id = EdgeLegID(1)
        for sequence in 0 ..< 20 {
            try rtpPacket(sequence: UInt16(sequence), ssrc: 0x5151, payload: [0x10, 0, 0, 0, 0]).withUnsafeBytes {
                try fixture.edge.send(leg: id, rtp: $0)
            }
        }
        #expect(edgeEventually { subscriber.videoCounters.snapshot().packets == 20 })
        #expect(edgeEventually { fixture.inbox.received(id).contains { $0.isRTCP } })
        #expect(fixture.edge.counters.srtpAuthFailures == 0)
    }

    /// Consent (RFC 7675) with an edge whose consent lasts 1.5 s: the leg whose publisher
    /// sends consent checks every ~0.2 s keeps consent long after the leg without checks
    /// lapsed (still registered, but nothing is sent to it: refused and counted), and its
    /// keeper counted authenticated answers.
    @Test func consentChecksKeepTheLegAndWithoutThemItLapses() throws {
        let fixture = try EdgeFixture { $0.consentTimeout = 1_500_000_000 }
        let kept = try EdgeConnectLeg(fixture, id: 1)
        let dropped = try EdgeConnectLeg(fixture, id: 2)
        let keptKeys = try kept.connector.connect()
        let droppedKeys = try dropped.connector.connect()
        let lostCalls = Atomic<Int>(0)
        let keeper = ICEConsentKeeper(peer: kept.peer, local: kept.local,
                                      timing: .init(interval: 200_000_000, jitter: 0.2, timeout: 1_500_000_000),
                                      onConsentLost: { lostCalls.add(1, ordering: .relaxed) })
        func publisher(_ leg: EdgeConnectLeg, _ keys: SRTPLegKeys, consent: ICEConsentKeeper?) throws -> PublisherPipeline {
            var configuration = PublisherConfiguration(destination: leg.peer.address, video: nil,
                                                       audio: OpusEncoderSettings(format: .mono20ms))
            configuration.keys = keys
            configuration.connectedSocket = leg.socket
            configuration.consent = consent
            return try PublisherPipeline(configuration: configuration, videoSource: nil,
                                         audioSource: ToneSource(frequency: 440, amplitude: 0.3, format: .mono20ms))
        }
        let withChecks = try publisher(kept, keptKeys, consent: keeper)
        let withoutChecks = try publisher(dropped, droppedKeys, consent: nil)
        try withChecks.start()
        defer { withChecks.stop() }
        try withoutChecks.start()
        defer { withoutChecks.stop() }

        #expect(edgeEventually(15) { !fixture.edge.hasConsent(EdgeLegID(2)) })
        #expect(fixture.edge.isRegistered(EdgeLegID(2)) && fixture.inbox.endings.isEmpty, "lapsed, not removed")
        let packet = rtpPacket(sequence: 1, ssrc: 9, payload: [9])
        #expect(edgeSend(fixture.edge, EdgeLegID(2), rtp: packet) == .consentLapsed)
        #expect(fixture.edge.counters.mediaWithheld == 1)
        // Another full consent period after that, and the checked leg is still there.
        let clock = SystemMediaClock()
        let until = clock.nanoseconds() + 2_000_000_000
        while clock.nanoseconds() < until { usleep(50_000) }
        #expect(fixture.edge.isRegistered(EdgeLegID(1)) && fixture.edge.hasConsent(EdgeLegID(1)))
        #expect(fixture.edge.counters.consentLapses == 1, "only the unchecked leg lapsed")
        #expect(keeper.checksSent >= 5 && keeper.successes >= 5)
        #expect(!keeper.isConsentLost && lostCalls.load(ordering: .relaxed) == 0)
        #expect(withChecks.edgeDatagrams.snapshot.stun == keeper.successes + keeper.ignoredMessages)
    }

    /// When the peer stops answering, the keeper declares consent lost once.
    @Test func consentIsLostWhenTheEdgeStopsAnswering() throws {
        let fixture = try EdgeFixture(workers: 1)
        let leg = try EdgeConnectLeg(fixture, id: 1)
        let keys = try leg.connector.connect()
        let lostCalls = Atomic<Int>(0)
        let keeper = ICEConsentKeeper(peer: leg.peer, local: leg.local,
                                      timing: .init(interval: 100_000_000, jitter: 0.2, timeout: 600_000_000),
                                      onConsentLost: { lostCalls.add(1, ordering: .relaxed) })
        var configuration = SubscriberConfiguration()
        configuration.keys = keys
        configuration.connectedSocket = leg.socket
        configuration.feedbackDestination = leg.peer.address
        configuration.consent = keeper
        let subscriber = try SubscriberPipeline(configuration: configuration)
        try subscriber.start()
        defer { subscriber.stop() }
        #expect(edgeEventually { keeper.successes >= 2 })
        #expect(!keeper.isConsentLost)
        fixture.edge.remove(EdgeLegID(1))  // the edge answers nothing for it from now on
        #expect(edgeEventually { keeper.isConsentLost })
        #expect(subscriber.consent?.isConsentLost == true)
        usleep(300_000)
        #expect(lostCalls.load(ordering: .relaxed) == 1)
    }

    /// STUN and DTLS datagrams arriving at a pipeline's socket are counted and dropped
    /// before SRTP: not bad packets, not media, no SRTP failure.
    @Test func stunAndDTLSAtAPipelineAreCountedNotFedToSRTP() throws {
        var configuration = SubscriberConfiguration()
        configuration.keys = SRTPLegKeys.random()
        configuration.localAddress = .ipv4Loopback()
        configuration.audioStream = nil
        let subscriber = try SubscriberPipeline(configuration: configuration)
        try subscriber.start()
        defer { subscriber.stop() }
        var publisherConfiguration = PublisherConfiguration(destination: subscriber.localAddress, video: nil, audio: nil)
        publisherConfiguration.localAddress = .ipv4Loopback()
        publisherConfiguration.keys = SRTPLegKeys.random()
        let publisher = try PublisherPipeline(configuration: publisherConfiguration, videoSource: nil, audioSource: nil)
        try publisher.start()
        defer { publisher.stop() }

        var stun = [UInt8](repeating: 0, count: 256)
        let size = try stun.withUnsafeMutableBytes { buffer in
            try Array("abcdefghijklmnopqrstuvwx".utf8).withUnsafeBytes { key in
                try STUNBinding.writeRequest(into: buffer, transactionID: .random(), username: "abcd:efgh", priority: 1,
                                             tieBreaker: 1, nominate: false, integrityKey: key)
            }
        }
        stun = Array(stun.prefix(size))
        // A DTLS alert record header (content type 21) with a 16-byte body.
        let dtls: [UInt8] = [21, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16] + Array(repeating: 0xAA, count: 16)
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0)
        let buffer = try #require(pool.take())
        for target in [subscriber.localAddress, publisher.localAddress] {
            for datagram in [stun, dtls, stun] {
                buffer.reset()
                datagram.withUnsafeBytes { _ = buffer.assign($0) }
                buffer.peer = target
                _ = try sender.send([buffer], batch: UDPMessageBatch(capacity: 1))
            }
        }
        #expect(edgeEventually { subscriber.edgeDatagrams.snapshot == (2, 1) && publisher.edgeDatagrams.snapshot == (2, 1) })
        usleep(100_000)
        #expect(subscriber.videoCounters.snapshot().badPackets == 0)
        #expect(subscriber.videoCounters.snapshot().packets == 0)
        #expect(publisher.videoCounters.snapshot().badPackets == 0)
    }
}
