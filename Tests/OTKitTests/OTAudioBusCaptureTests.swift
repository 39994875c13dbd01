import Foundation
import Synchronization
import Testing
@testable import OTKit

/// The capture ring of `OTAudioBus` fans out: every publisher reading a custom device's
/// capture gets every sample, in order, at its own pace. (Before, two publishers took
/// turns at one queue, each sending part of the microphone, and a woken reader still
/// short of a frame could leave the other waiting: one publisher sent no audio for 20 s
/// in a loaded CI run of SessionScenarioTests.)
@Suite struct OTAudioBusCaptureTests {
    /// Writes 0, 1, 2, … in 10 ms pieces of 480 values, as a device's capture thread does.
    private static func writeRamp(_ bus: OTAudioBus, from start: Int, pieces: Int) {
        var piece = [Int16](repeating: 0, count: 480)
        for p in 0..<pieces {
            for i in 0..<480 { piece[i] = Int16(truncatingIfNeeded: start + p * 480 + i) }
            piece.withUnsafeBufferPointer { bus.writeCaptureData($0.baseAddress!, numberOfSamples: 480) }
        }
    }

    @Test func twoReadersEachGetEverySampleInOrder() {
        let bus = OTAudioBus()
        let first = NSObject(), second = NSObject()
        var frame = [Int16](repeating: 0, count: 960)
        // Both publishers start before the device writes.
        for reader in [first, second] { bus.addCaptureReader(ObjectIdentifier(reader)) }
        Self.writeRamp(bus, from: 0, pieces: 20)  // 9,600 values: ten frames of 960
        for reader in [first, second] {
            for n in 0..<10 {
                #expect(bus.takeCapture(into: &frame, count: 960, timeoutMilliseconds: 100, reader: ObjectIdentifier(reader)))
                #expect(frame == (0..<960).map { Int16(truncatingIfNeeded: n * 960 + $0) }, "frame \(n)")
            }
            #expect(!bus.takeCapture(into: &frame, count: 960, timeoutMilliseconds: 1, reader: ObjectIdentifier(reader)),
                    "nothing more than was written")
        }
    }

    @Test func concurrentReadersBothKeepUpWithTheWriter() {
        let bus = OTAudioBus(capacitySamples: 200_000)  // room for the whole ramp: order is the claim, not pace
        let frames = 100
        let inOrder = Mutex<[Int]>([])
        let done = DispatchGroup()
        let readers = [NSObject(), NSObject()]  // alive to the end: their identities stay distinct
        for reader in readers {
            let id = ObjectIdentifier(reader)
            bus.addCaptureReader(id)
            done.enter()
            // Real threads, blocking as a publisher's audio thread does.
            Thread.detachNewThread {
                var frame = [Int16](repeating: 0, count: 960)
                var count = 0
                for n in 0..<frames where bus.takeCapture(into: &frame, count: 960, timeoutMilliseconds: 5_000, reader: id) {
                    if frame[0] == Int16(truncatingIfNeeded: n * 960) && frame[959] == Int16(truncatingIfNeeded: n * 960 + 959) {
                        count += 1
                    }
                }
                inOrder.withLock { $0.append(count) }
                done.leave()
            }
        }
        Self.writeRamp(bus, from: 0, pieces: 2 * frames)
        done.wait()
        withExtendedLifetime(readers) {}
        #expect(inOrder.withLock { $0 } == [frames, frames], "each reader got all \(frames) frames in order")
    }

    @Test func aReaderMoreThanTheRingBehindSkipsToTheOldestSampleKept() {
        let bus = OTAudioBus(capacitySamples: 4_800)
        let reader = NSObject()
        var frame = [Int16](repeating: 0, count: 960)
        bus.addCaptureReader(ObjectIdentifier(reader))
        Self.writeRamp(bus, from: 0, pieces: 20)  // 9,600 values into a ring of 4,800
        #expect(bus.takeCapture(into: &frame, count: 960, timeoutMilliseconds: 100, reader: ObjectIdentifier(reader)))
        #expect(frame.first == Int16(4_800) && frame.last == Int16(4_800 + 959), "the oldest 4,800 were overwritten")
    }

    /// What a read on another thread returned (nil: not yet).
    final class ReadResult: Sendable {
        let took = Mutex<Bool?>(nil)
    }

    /// The read asks to wait an hour. It runs on a thread of its own, and the test waits at
    /// most 5 minutes for it: a read that waits instead of refusing fails the test, and a
    /// test run that keeps the cooperative pool busy cannot fail it. (A Swift Testing time
    /// limit could: its timer and the test's body compete for the same two threads, and in
    /// one CI run the body got none for a minute.)
    @Test func aFrameLargerThanTheRingIsRefusedNotAwaited() {
        for capacity in [0, -5, 480] {
            let bus = OTAudioBus(capacitySamples: capacity)
            let reader = NSObject()
            bus.addCaptureReader(ObjectIdentifier(reader))
            Self.writeRamp(bus, from: 0, pieces: 4)
            let key = ObjectIdentifier(reader)
            let answered = DispatchSemaphore(value: 0)
            let result = ReadResult()
            let thread = Thread {
                var frame = [Int16](repeating: 0, count: 960)
                let took = bus.takeCapture(into: &frame, count: 960, timeoutMilliseconds: 3_600_000, reader: key)
                result.took.withLock { $0 = took }
                answered.signal()
            }
            thread.start()
            #expect(answered.wait(timeout: .now() + 300) == .success, "ring of \(capacity): the read waited instead of refusing")
            #expect(result.took.withLock { $0 } == false, "ring of \(capacity)")
            withExtendedLifetime(reader) {}
        }
    }

    /// One device serves every publisher: a publisher's new pipeline that starts before its
    /// old one stops (or a second publisher) keeps the capture running when the other
    /// stops; the device stops with its last reader. (Before, any source's stop stopped the
    /// device under the others.)
    @Test func theDeviceCapturesUntilItsLastReaderStops() throws {
        let device = ToneLoopDevice(frequency: 440)
        let bus = OTAudioBus()
        _ = device.setAudioBus(bus)
        let old = try BusAudioSource(device: device, bus: bus)
        let new = try BusAudioSource(device: device, bus: bus)
        try old.start()
        #expect(device.isCapturing())
        try new.start()
        old.stop()
        #expect(device.isCapturing(), "the other reader still reads")
        var frames = 0
        for _ in 0..<10 where try new.nextFrame(timeoutMilliseconds: 1000) != nil { frames += 1 }
        #expect(frames == 10, "20 ms frames keep coming after the other reader stopped")
        new.stop()
        #expect(!device.isCapturing(), "the last reader stops the device")
    }
}
