import Dispatch
import Glibc
import OTMedia
import OTSignaling
import Synchronization

/// One published stream inside the router: its publisher leg, its subscriber legs and the
/// one forwarding thread that serves them all.
///
/// Threading choice: one `PipelineThread` per published stream, polling the publisher leg
/// and every subscriber leg of that stream. A packet's whole fan-out (copy, rewrite,
/// protect per leg, `sendmmsg` per leg) then happens on one core with no lock and no
/// hand-over between threads; each leg's SRTP sessions are used by that thread only (libsrtp
/// sessions are not thread-safe); and several published streams spread over the cores.
/// The thread starts once and runs until the stream ends: adding or removing a subscriber
/// posts the new leg list to `legTable` and wakes the thread, which switches to it at
/// that wake-up (`PipelineThread` re-polls the new socket list) and closes the legs that
/// left. Nobody else's media stops for a membership change, and a client looping
/// subscribe/unsubscribe costs the thread one wake-up per change.
///
/// Locks: `state` guards the control plane's view of the leg list and the thread; it is
/// taken by control calls only, never by the forwarding thread. `legTable` is taken once
/// per membership change and once per wake-up of the thread. `cpu` is taken by the thread
/// at start and stop.
final class ForwardingGroup: Sendable {
    /// The stream's publisher leg.
    let publisher: PublisherLeg
    /// What this group has forwarded.
    let counters = GroupCounters()
    /// Force mute: audio is dropped while set.
    let audioMuted = Atomic<Bool>(false)
    /// The publisher's subscriberAudioFallbackEnabled: false keeps every leg's video on
    /// (layers still adapt). Written by the control plane, read by the forwarding thread.
    let audioFallbackAllowed = Atomic<Bool>(true)
    /// The encodings (bit = spatial index) a keyframe should be asked of the publisher
    /// for (a new subscriber, a PLI/FIR, a spatial switch, video back on).
    let keyframeWanted = Atomic<UInt8>(0)
    /// The individual archive's recorder of this stream, if one is recording it.
    let recording = RecorderSlot()
    /// Where audio-fallback decisions go (set by the router; read on an event only).
    private let qualityHandler = Mutex<SubscriberQualityHandler?>(nil)
    /// Events leave the forwarding thread through this queue.
    private let events = DispatchQueue(label: "otk-sfu-quality")

    private struct State {
        var subscribers: [SubscriberLeg] = []
        var thread: PipelineThread?
        var stopped = false
    }

    private struct CPUAccount {
        var finished: UInt64 = 0
        var live: clockid_t?
    }

    private let state = Mutex(State())
    private let cpu = Mutex(CPUAccount())
    /// Membership changes on their way to the running thread.
    let legTable = LegTable()
    /// The router's count of open leg sockets (this group's closes are taken off it).
    let sockets: SocketGauge
    /// Where the thread sends the legs it closed, to be freed elsewhere.
    let reaper: LegReaper
    /// What the edge's workers hand this stream's edge legs (packets, wake-ups).
    let inbox: ForwardingInbox

    /// A group for `publisher`, its thread started; `sockets` and `reaper` are the router's
    /// (a group on its own, as in tests and fuzz targets, gets its own). Cost: one thread, one eventfd.
    /// `inbox` carries the edge legs' packets (the publisher's link must use the same);
    /// a router without an edge passes an empty one.
    init(publisher: PublisherLeg, sockets: SocketGauge = SocketGauge(), reaper: LegReaper = LegReaper(),
         inbox: ForwardingInbox = ForwardingInbox(capacity: 0)) throws(MediaError) {
        self.publisher = publisher
        self.sockets = sockets
        self.reaper = reaper
        self.inbox = inbox
        let handler = ForwardingHandler(group: self, subscribers: [])
        do {
            // An edge publisher has no socket here: its packets come through the inbox.
            let thread = try PipelineThread(name: "otk-sfu-fwd", sockets: publisher.ownsSocket ? [publisher.socket] : [],
                                            handler: handler)
            state.withLock { $0.thread = thread }
            inbox.attach(thread)
        } catch {
            throw MediaError(.networkFailure, "cannot start the forwarding thread of \(publisher.streamId): \(error)")
        }
    }

    /// Adds a subscriber leg to the running thread (it forwards to it from its next
    /// wake-up) and asks the publisher for a keyframe so the new leg can start decoding.
    /// Throws `invalidArgument` once the stream is gone. Cost: a short lock, one eventfd
    /// write; no thread stops.
    func add(_ leg: SubscriberLeg) throws(MediaError) {
        let thread = try state.withLock { state throws(MediaError) -> PipelineThread? in
            guard !state.stopped else { throw MediaError(.invalidArgument, "the stream \(publisher.streamId) is gone") }
            state.subscribers.append(leg)
            legTable.post(state.subscribers)
            return state.thread
        }
        requestKeyframe()
        thread?.wake()
    }

    /// Takes a subscriber leg out; the forwarding thread closes it (socket, buffers) at its
    /// next wake-up. False if it is not in this group. Cost: a short lock, one eventfd write.
    @discardableResult
    func remove(subscriberId: String) -> Bool {
        let (removed, thread) = state.withLock { state -> (SubscriberLeg?, PipelineThread?) in
            guard !state.stopped, let index = state.subscribers.firstIndex(where: { $0.subscriberId == subscriberId }) else {
                return (nil, nil)
            }
            let leg = state.subscribers.remove(at: index)
            legTable.post(state.subscribers, leaving: leg)
            return (leg, state.thread)
        }
        guard removed != nil else { return false }
        thread?.wake()
        return true
    }

    /// Stops the thread and closes every socket. Idempotent.
    func stop() {
        let (legs, thread): ([SubscriberLeg], PipelineThread?) = state.withLock { state in
            defer { state.thread = nil; state.subscribers = [] }
            let first = !state.stopped
            state.stopped = true
            return (first ? state.subscribers : [], state.thread)
        }
        thread?.stop()  // joined: nothing uses the legs any more
        inbox.attach(nil)
        var closing = legs + legTable.take().leaving
        reaper.expect(closing.count)
        for leg in closing { close(leg) }
        reaper.release(&closing)
        publisher.closeOwnSocket(sockets)
    }

    /// Closes a leg that no thread uses any more: its buffers back to its pool, its socket.
    func close(_ leg: SubscriberLeg) {
        leg.releaseAll()
        leg.closeOwnSocket(sockets)
    }

    /// Turns each kind on or off for one subscriber leg (atomic stores the forwarding
    /// thread reads per packet); video turned on asks the publisher for a keyframe and
    /// wakes the thread so the request goes out now.
    func setForwarding(subscriberId: String, audio: Bool, video: Bool) {
        let (leg, thread) = state.withLock { state in (state.subscribers.first { $0.subscriberId == subscriberId }, state.thread) }
        guard let leg else { return }
        leg.takesAudio.store(audio, ordering: .relaxed)
        let wasOn = leg.takesVideo.exchange(video, ordering: .relaxed)
        if video, !wasOn, leg.hasVideo {
            requestKeyframe()
            thread?.wake()
        }
    }

    /// Asks for a keyframe of `encoding` (nil: every encoding) at the next timer run.
    /// One atomic OR, from any thread.
    func requestKeyframe(encoding: Int? = nil) {
        let bits: UInt8 = encoding.map { 1 << UInt8(min($0, 7)) } ?? 0xFF
        keyframeWanted.bitwiseOr(bits, ordering: .relaxed)
    }

    /// Stores one subscriber's preferences for its leg's layer selection (the forwarding
    /// thread picks them up within 100 ms). A frame rate that is not finite or not
    /// positive means none; one above 1000 fps counts as 1000 (the codec decodes only
    /// in-range values, this keeps direct callers safe too). False if the leg is not in
    /// this group.
    @discardableResult
    func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) -> Bool {
        guard let leg = state.withLock({ $0.subscribers.first { $0.subscriberId == subscriberId } }) else { return false }
        leg.preferredWidth.store(max(0, width ?? 0), ordering: .relaxed)
        leg.preferredHeight.store(max(0, height ?? 0), ordering: .relaxed)
        // Clamped as a Double before the conversion: Int(1e300 * 1000) would trap.
        let millihertz = frameRate.map { $0.isFinite && $0 > 0 ? Int((min($0, 1000) * 1000).rounded()) : 0 } ?? 0
        leg.preferredFrameRateMillihertz.store(millihertz, ordering: .relaxed)
        leg.preferencesGeneration.add(1, ordering: .releasing)
        return true
    }

    /// The adaptation status of one subscriber leg, nil if it is not in this group.
    func status(subscriberId: String) -> SubscriberLegStatus? {
        state.withLock { $0.subscribers.first { $0.subscriberId == subscriberId } }?.status.snapshot
    }

    /// Sets where audio-fallback events go (nil: nowhere).
    func setQualityHandler(_ handler: SubscriberQualityHandler?) { qualityHandler.withLock { $0 = handler } }

    /// Called by the forwarding thread on an audio-fallback transition of a leg: hands the
    /// event to the handler on the group's event queue (an allocation per event; events
    /// are seconds apart).
    func report(subscriberId: String, state: String) {
        guard let handler = qualityHandler.withLock({ $0 }) else { return }
        let event = SubscriberQualityEvent(subscriberId: subscriberId, streamId: publisher.streamId, state: state)
        events.async { handler(event) }
    }

    /// The subscriber ids of this group.
    var subscriberIds: [String] { state.withLock { $0.subscribers.map(\.subscriberId) } }

    /// Counters plus what the subscribers' reports say and the thread's CPU time.
    func snapshot() -> ForwardingCounters {
        var c = counters.snapshot()
        c.packetsDropped += inbox.dropped.load(ordering: .relaxed)
        let legs = state.withLock { $0.subscribers }
        for leg in legs {
            c.reportedPacketsLost += leg.reportedLost.load(ordering: .relaxed)
            c.reportedJitterMicroseconds = max(c.reportedJitterMicroseconds, leg.reportedJitterMicroseconds.load(ordering: .relaxed))
        }
        c.forwardingCPUNanoseconds = cpuNanoseconds
        return c
    }

    /// CPU time of this group's forwarding threads so far (finished ones and the live one).
    var cpuNanoseconds: UInt64 {
        cpu.withLock { account in
            guard let clock = account.live else { return account.finished }
            return account.finished + Self.read(clock)
        }
    }

    /// Called on a new forwarding thread as it starts: notes its CPU clock.
    func forwardingThreadStarted() {
        var clock = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &clock) == 0 else { return }
        cpu.withLock { $0.live = clock }
    }

    /// Called on the forwarding thread as it ends: banks its CPU time.
    func forwardingThreadStopped() {
        cpu.withLock { account in
            if let clock = account.live { account.finished += Self.read(clock) }
            account.live = nil
        }
    }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
