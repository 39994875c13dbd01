import CBareSRTP
import Glibc
import OTMedia

/// OTKit's `SRTPSession` against a bare libsrtp2 loop (CBareSRTP): one profile, one
/// packet size, protect and unprotect.
///
/// Method (the same on both sides, in the same process, on one thread):
/// - protect: per packet, memcpy the clear RTP packet into a work buffer, write the next
///   sequence number into it, protect it in place. One sender per side per run; its first
///   packet (libsrtp clones its stream template) is done untimed.
/// - unprotect: a ring of `ringSize` packets protected once up front; per packet, memcpy
///   it into the work buffer and unprotect in place. Each pass over the ring starts with a
///   fresh receiver per side (created untimed, first packet untimed), since the ring's
///   sequence numbers would otherwise be replays.
/// - The work is timed in blocks of `blockSize` packets on `CLOCK_THREAD_CPUTIME_ID`
///   (a reading costs as much as a packet here, so single packets are not timed), with
///   allocations counted per block; blocks alternate between the sides, and which side
///   goes first flips every block and every run. Medians over runs.
struct SRTPComparison {
    let profile: SRTPProfile
    /// RTP bytes per packet, header included, tag excluded.
    let packetLength: Int

    static let ringSize = 4096
    static let blockSize = 256
    static let ssrc: UInt32 = 0x1122_3344

    /// "srtp gcm 1200B".
    var label: String { "srtp \(shortName) \(packetLength)B" }

    private var shortName: String {
        switch profile {
        case .aeadAES128GCM: "gcm"
        case .aesCM128HMACSHA1_80: "cm80"
        case .aesCM128HMACSHA1_32: "cm32"
        }
    }

    private var bareProfile: Int32 {
        switch profile {
        case .aeadAES128GCM: Int32(BARE_SRTP_AEAD_AES_128_GCM)
        case .aesCM128HMACSHA1_80: Int32(BARE_SRTP_AES_CM_128_HMAC_SHA1_80)
        case .aesCM128HMACSHA1_32: Int32(BARE_SRTP_AES_CM_128_HMAC_SHA1_32)
        }
    }

    /// Fixed key material (bytes 0, 1, 2, …, as in docs/reference/interop.md).
    var keys: SRTPKeyMaterial {
        get throws { try SRTPKeyMaterial(profile: profile, keyAndSalt: (0..<profile.keyMaterialLength).map { UInt8($0) }) }
    }

    /// One side's per-run figures.
    struct Samples {
        var nanosecondsPerPacket: [Double] = []
        var allocationsPerPacket: [Double] = []
        mutating func append(_ tally: Tally) {
            nanosecondsPerPacket.append(Double(tally.nanoseconds) / Double(max(1, tally.packets)))
            allocationsPerPacket.append(Double(tally.allocations) / Double(max(1, tally.packets)))
        }
        var summary: String {
            let sorted = nanosecondsPerPacket.sorted()
            return "\(TableReport.format(median(sorted))) (\(TableReport.format(sorted.first!))–\(TableReport.format(sorted.last!))) ns/packet"
        }
    }

    /// Totals of one side over one run.
    struct Tally {
        var nanoseconds: UInt64 = 0
        var allocations: UInt64 = 0
        var packets = 0
    }

    func run(packetsPerRun: Int, runs: Int, timerCost: UInt64, log: ProgressLog) throws -> [BenchResult] {
        let keys = try keys
        let keyBytes = keys.keyAndSalt
        let stride = packetLength + SRTPProfile.maxTrailer
        let clear = UnsafeMutableRawBufferPointer.allocate(byteCount: stride, alignment: 16)
        let workO = UnsafeMutableRawBufferPointer.allocate(byteCount: stride, alignment: 16)
        let workB = UnsafeMutableRawBufferPointer.allocate(byteCount: stride, alignment: 16)
        let ring = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * Self.ringSize, alignment: 16)
        let lengths = UnsafeMutablePointer<Int32>.allocate(capacity: Self.ringSize)
        defer { clear.deallocate(); workO.deallocate(); workB.deallocate(); ring.deallocate(); lengths.deallocate() }
        writeClearPacket(into: clear)
        let clearBytes = clear.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let workBBytes = workB.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ringBytes = ring.baseAddress!.assumingMemoryBound(to: UInt8.self)

        func makeBare(sender: Bool) throws -> OpaquePointer {
            guard let session = keyBytes.withUnsafeBufferPointer({ bare_srtp_create(bareProfile, $0.baseAddress, sender ? 1 : 0) }) else {
                throw ScenarioError("\(label): bare libsrtp2 refused the policy")
            }
            return session
        }
        func bareCheck(_ result: Int) throws {
            if result < 0 { throw ScenarioError("\(label): bare libsrtp2 failed with status \(-result)") }
        }

        // Check: both sides protect sequence 0 to the same bytes (same policy, same key).
        do {
            let sender = try SRTPSession(keys: keys, direction: .sender)
            let bare = try makeBare(sender: true)
            defer { bare_srtp_destroy(bare) }
            var sequence: UInt16 = 0
            let o = try protectOne(sender, clear: clear, work: workO, sequence: 0)
            let b = bare_srtp_protect_loop(bare, clearBytes, Int32(packetLength), workBBytes, 1, &sequence)
            try bareCheck(b)
            guard o == b, memcmp(workO.baseAddress!, workB.baseAddress!, o) == 0 else {
                throw ScenarioError("\(label): OTKit and the bare loop protect the same packet differently")
            }
            log("\(label): OTKit and bare libsrtp2 protect a packet to identical bytes (\(o) bytes)")
        }

        // The ring for unprotect, protected once by an OTKit sender.
        do {
            let sender = try SRTPSession(keys: keys, direction: .sender)
            for index in 0..<Self.ringSize {
                let slot = UnsafeMutableRawBufferPointer(rebasing: ring[(index * stride)..<((index + 1) * stride)])
                lengths[index] = Int32(try protectOne(sender, clear: clear, work: slot, sequence: UInt16(truncatingIfNeeded: index)))
            }
        }

        let blocksPerRun = packetsPerRun / Self.blockSize
        var protectO = Samples(), protectB = Samples(), unprotectO = Samples(), unprotectB = Samples()
        for run in 0..<runs {
            let otkitFirst = run % 2 == 0

            // protect
            var o = Tally(), b = Tally()
            let sender = try SRTPSession(keys: keys, direction: .sender)
            let bareSender = try makeBare(sender: true)
            var seqO: UInt16 = 0, seqB: UInt16 = 0
            _ = try protectOne(sender, clear: clear, work: workO, sequence: seqO); seqO &+= 1
            try bareCheck(bare_srtp_protect_loop(bareSender, clearBytes, Int32(packetLength), workBBytes, 1, &seqB))
            for block in 0..<blocksPerRun {
                let otkitNow = (block % 2 == 0) == otkitFirst
                for side in 0..<2 {
                    if (side == 0) == otkitNow {
                        try timed(&o, count: Self.blockSize, timerCost: timerCost) {
                            for _ in 0..<Self.blockSize {
                                _ = try protectOne(sender, clear: clear, work: workO, sequence: seqO)
                                seqO &+= 1
                            }
                        }
                    } else {
                        try timed(&b, count: Self.blockSize, timerCost: timerCost) {
                            try bareCheck(bare_srtp_protect_loop(bareSender, clearBytes, Int32(packetLength),
                                                                 workBBytes, Int32(Self.blockSize), &seqB))
                        }
                    }
                }
            }
            bare_srtp_destroy(bareSender)
            protectO.append(o); protectB.append(b)

            // unprotect
            o = Tally(); b = Tally()
            var done = 0
            while done < blocksPerRun {
                let receiver: SRTPSession, bareReceiver: OpaquePointer
                if (done % 2 == 0) == otkitFirst {
                    receiver = try SRTPSession(keys: keys, direction: .receiver)
                    bareReceiver = try makeBare(sender: false)
                } else {
                    bareReceiver = try makeBare(sender: false)
                    receiver = try SRTPSession(keys: keys, direction: .receiver)
                }
                defer { bare_srtp_destroy(bareReceiver) }
                _ = try unprotectOne(receiver, ring: ring, stride: stride, lengths: lengths, index: 0, work: workO)
                try bareCheck(bare_srtp_unprotect_loop(bareReceiver, ringBytes, Int32(stride), lengths, 0, 1, workBBytes))
                var first = 1
                while first < Self.ringSize, done < blocksPerRun {
                    let count = min(Self.blockSize, Self.ringSize - first)
                    let otkitNow = (done % 2 == 0) == otkitFirst
                    for side in 0..<2 {
                        if (side == 0) == otkitNow {
                            try timed(&o, count: count, timerCost: timerCost) {
                                for index in first..<(first + count) {
                                    _ = try unprotectOne(receiver, ring: ring, stride: stride, lengths: lengths, index: index, work: workO)
                                }
                            }
                        } else {
                            try timed(&b, count: count, timerCost: timerCost) {
                                try bareCheck(bare_srtp_unprotect_loop(bareReceiver, ringBytes, Int32(stride), lengths,
                                                                       Int32(first), Int32(count), workBBytes))
                            }
                        }
                    }
                    first += count
                    done += 1
                }
            }
            unprotectO.append(o); unprotectB.append(b)
            func ns(_ s: Samples) -> String { TableReport.format(s.nanosecondsPerPacket.last!) }
            log("  \(label) run \(run + 1)/\(runs): protect OTKit \(ns(protectO)) bare \(ns(protectB)) ns/packet; "
                + "unprotect OTKit \(ns(unprotectO)) bare \(ns(unprotectB)) ns/packet")
        }
        log("  \(label): protect OTKit \(protectO.summary), bare \(protectB.summary)")
        log("  \(label): unprotect OTKit \(unprotectO.summary), bare \(unprotectB.summary)")
        return rows("protect", protectO, protectB) + rows("unprotect", unprotectO, unprotectB)
    }

    /// The CPU row and the allocation row of one operation. NSS allocates inside libsrtp's
    /// AES-CM calls on every packet, in the bare loop as much as in OTKit, so the goal is
    /// on what OTKit adds: its allocations per packet minus the bare loop's (worst run).
    private func rows(_ operation: String, _ otkit: Samples, _ bare: Samples) -> [BenchResult] {
        let added = zip(otkit.allocationsPerPacket, bare.allocationsPerPacket).map { $0 - $1 }.max()!
        return [
            .compared("\(label) \(operation) CPU", value: median(otkit.nanosecondsPerPacket), unit: "ns/packet",
                      baseline: median(bare.nanosecondsPerPacket), goal: 1.05),
            .bounded("\(label) \(operation) allocations added", value: max(0, added), unit: "allocs/packet",
                     baseline: bare.allocationsPerPacket.max()!, goal: 0),
        ]
    }

    /// Runs `body` (which handles `count` packets) timed and allocation-counted into `tally`.
    @inline(__always)
    private func timed(_ tally: inout Tally, count: Int, timerCost: UInt64, _ body: () throws -> Void) rethrows {
        let allocationsBefore = AllocationCounter.count
        let start = threadCPUNanoseconds()
        try body()
        let end = threadCPUNanoseconds()
        tally.allocations += AllocationCounter.count - allocationsBefore
        tally.nanoseconds += (end - start) > timerCost ? (end - start) - timerCost : 0
        tally.packets += count
    }

    /// What the OTKit loop does per packet before protect: memcpy, write the sequence number.
    @inline(__always)
    private func protectOne(_ session: SRTPSession, clear: UnsafeMutableRawBufferPointer,
                            work: UnsafeMutableRawBufferPointer, sequence: UInt16) throws -> Int {
        memcpy(work.baseAddress!, clear.baseAddress!, packetLength)
        work[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        work[3] = UInt8(truncatingIfNeeded: sequence)
        return try session.protect(work, length: packetLength)
    }

    /// What the OTKit loop does per packet before unprotect: memcpy the ring's packet.
    @inline(__always)
    private func unprotectOne(_ session: SRTPSession, ring: UnsafeMutableRawBufferPointer, stride: Int,
                              lengths: UnsafeMutablePointer<Int32>, index: Int,
                              work: UnsafeMutableRawBufferPointer) throws -> Int {
        let length = Int(lengths[index])
        memcpy(work.baseAddress!, ring.baseAddress! + index * stride, length)
        return try session.unprotect(work, length: length)
    }

    /// An RTP packet: V=2, PT 96, sequence 0, timestamp 0x01020304, SSRC 0x11223344, then
    /// a payload of bytes 0, 1, 2, … (mod 256).
    private func writeClearPacket(into buffer: UnsafeMutableRawBufferPointer) {
        let header: [UInt8] = [0x80, 96, 0, 0, 1, 2, 3, 4,
                               UInt8(Self.ssrc >> 24), UInt8(Self.ssrc >> 16 & 0xFF), UInt8(Self.ssrc >> 8 & 0xFF), UInt8(Self.ssrc & 0xFF)]
        for (i, byte) in header.enumerated() { buffer[i] = byte }
        for i in header.count..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: i) }
    }
}
