import OTMedia
import Synchronization

/// One stream's way into a composed archive (`ArchiveComposer.addStream`): the forwarding
/// thread feeds it the stream's RTP and sender reports like a `StreamRecorder`; the
/// composer's thread takes them from its bounded ring, decodes and lays the stream out.
///
/// `enqueue` copies into a preallocated ring of `queueCapacity` slots under one short lock
/// and returns: it never waits for the composer and never allocates; when the ring is full
/// the packet is dropped and counted (`droppedPackets`). Cost: `queueCapacity × slotSize`
/// bytes allocated once (768 KB by default); per packet one copy.
public final class ComposerStreamInput: RecordingSink {
    /// The stream's id (the router's), for logs and `removeStream`.
    public let streamId: String
    let queue: RecordingPacketQueue
    let keyframeNeeded: Atomic<Bool>
    private let classes: Mutex<LayoutStream>
    /// Bumped when the stream's layout classes change, so the composer re-reads them.
    let classGeneration = Atomic<Int>(0)

    init(streamId: String, layoutStream: LayoutStream, wantsVideo: Bool, queueCapacity: Int, slotSize: Int) {
        self.streamId = streamId
        queue = RecordingPacketQueue(capacity: queueCapacity, slotSize: slotSize)
        keyframeNeeded = Atomic(wantsVideo)
        classes = Mutex(layoutStream)
    }

    /// Queues one RTP packet of `track` that arrived at `arrivalNanoseconds`. False when
    /// dropped (ring full, removed, larger than a slot). One short lock, one copy, no allocation.
    @discardableResult
    public func enqueue(_ track: RecordingTrack, rtp packet: UnsafeRawBufferPointer,
                        arrivalNanoseconds: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        queue.push(RecordingPacketQueue.Entry(kind: track.rawValue, arrival: arrivalNanoseconds), bytes: packet)
    }

    /// Sender reports are not needed by the composer (it plays each stream's media as it
    /// arrives, see `ArchiveComposer`): accepted and ignored. Returns true. No lock.
    @discardableResult
    public func enqueueSenderReport(_ track: RecordingTrack, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32,
                                    arrivalNanoseconds: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        true
    }

    /// True while the composer waits for a keyframe of this stream (its start, after a lost
    /// frame or a decode error): send the publisher a PLI. One atomic load.
    public var needsKeyframe: Bool { keyframeNeeded.load(ordering: .acquiring) }

    /// Packets dropped because the ring was full (the composer fell behind) or oversized. One lock.
    public var droppedPackets: Int {
        let counters = queue.counters
        return counters.dropped + counters.oversized
    }

    /// What the layout knows of the stream (its "focus" class, screen share). One lock.
    public var layoutStream: LayoutStream {
        get { classes.withLock { $0 } }
        set {
            classes.withLock { $0 = newValue }
            classGeneration.add(1, ordering: .releasing)
        }
    }
}
