import Glibc
import CAllocCounter
import OTMedia

/// What the pipeline rows read at the edges of a measured window, all on one thread.
struct PipelineReading {
    /// Process CPU (all threads), ns.
    var processCPU: UInt64
    /// The packet sink's drain thread CPU, ns (subtracted: it is not the publisher's).
    var sinkCPU: UInt64
    /// Allocations in the whole process.
    var allocations: UInt64
    /// Allocations by the reading thread (the publisher's capture thread in a window).
    var threadAllocations: UInt64
    /// CPU of the reading thread, ns (in a window: the publisher's capture thread, which
    /// encodes, packetizes and hands packets over; the rest of the process CPU is the
    /// transport thread's pacing, SRTP and sends, and the feedback work).
    var threadCPU: UInt64 = 0
    /// RTP packets and bytes the publisher counted as sent (0 for the bare loop).
    var packets: UInt64 = 0
    var bytes: UInt64 = 0
    /// RTCP packets the sink has seen (the publisher's sender reports).
    var rtcpPackets: UInt64 = 0

    /// Reads everything now. Allocation-free: clock reads (three system calls) and atomic loads.
    static func now(sink: PacketSink, counters: StreamCounters? = nil) -> PipelineReading {
        let allocations = AllocationCounter.count
        let threadAllocations = alloc_counter_thread_count()
        let processCPU = CPUClock.process()
        let sinkCPU = sink.cpuNanoseconds
        var reading = PipelineReading(processCPU: processCPU, sinkCPU: sinkCPU, allocations: allocations,
                                      threadAllocations: threadAllocations)
        reading.threadCPU = CPUClock.read(CLOCK_THREAD_CPUTIME_ID)
        if let counters {
            let snapshot = counters.snapshot()
            reading.packets = snapshot.packets
            reading.bytes = snapshot.bytes
        }
        reading.rtcpPackets = sink.counts.rtcpPackets
        return reading
    }

    /// CPU spent between `self` and `later` by everything but the sink, ns.
    func cpu(until later: PipelineReading) -> UInt64 {
        let process = later.processCPU - processCPU
        let sink = later.sinkCPU - sinkCPU
        return process > sink ? process - sink : 0
    }

    /// CPU the reading thread spent between `self` and `later` (both read on it), ns.
    func threadCPU(until later: PipelineReading) -> UInt64 {
        later.threadCPU > threadCPU ? later.threadCPU - threadCPU : 0
    }
}

/// Collects the readings a `PreRenderedVideoSource` marks from the capture thread and
/// tells the waiting thread when the last frame has gone out.
final class WindowProbe: @unchecked Sendable {
    private let sink: PacketSink
    private let startIndex: Int
    private let done = RunSemaphore()
    /// Set before the pipeline starts (pthread_create orders it before the thread's reads).
    var counters: StreamCounters?
    /// The readings at the window's first frame and after its last.
    private(set) var start: PipelineReading?
    private(set) var end: PipelineReading?

    init(sink: PacketSink, startIndex: Int) {
        self.sink = sink
        self.startIndex = startIndex
    }

    /// Called by the source on the capture thread. First lets the packets already made
    /// leave (the sent count still for 3 ms, at most 50 ms): a packet protected but not
    /// yet counted as sent put libsrtp's 5 allocations in the window without its packet
    /// (0.008 "added" per packet in a 600-frame window), and its send CPU belongs to the
    /// frames before the mark anyway. The capture thread sleeps meanwhile (no CPU).
    func mark(_ index: Int) {
        if let counters {
            var last = counters.snapshot().packets, still = 0
            for _ in 0..<50 where still < 3 {
                usleep(1000)
                let now = counters.snapshot().packets
                still = now == last ? still + 1 : 0
                last = now
            }
        }
        let reading = PipelineReading.now(sink: sink, counters: counters)
        if index == startIndex { start = reading } else { end = reading; done.signal() }
    }

    /// Waits for the end mark; false after `milliseconds` without it.
    func waitForEnd(milliseconds: Int) -> Bool { done.wait(milliseconds: milliseconds) }
}
