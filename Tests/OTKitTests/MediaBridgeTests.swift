import Foundation
import OTMedia
import Testing
@testable import OTKit

/// The custom capturer and audio device bridges move real frames and samples.
@Suite struct MediaBridgeTests {
    @Test func consumerHandsTheSameFrameToTheEncoderSide() throws {
        let format = VideoFormat(width: 160, height: 120, frameRate: 30)
        let consumer = OTVideoCaptureConsumer(format: format)
        try consumer.start()
        let source = try TestPatternSource(format: format, paced: false, firstFrameNumber: 41)
        try source.start()
        defer { source.stop() }
        let picture = try #require(try source.nextFrame(timeoutMilliseconds: 1000))
        let wrapped = OTVideoFrame(wrapping: picture)
        #expect(wrapped.format.imageWidth == 160 && wrapped.planeStride(0) == picture.strideY)
        consumer.consumeFrame(wrapped)
        let out = try #require(try consumer.nextFrame(timeoutMilliseconds: 100))
        #expect(out === picture, "no copy")
        #expect(FrameNumberStamp.read(from: out) == 41)
        #expect(try consumer.nextFrame(timeoutMilliseconds: 10) == nil)

        // A newer frame replaces one not yet taken; a frame of the wrong size is dropped.
        consumer.consumeFrame(OTVideoFrame(wrapping: try #require(try source.nextFrame(timeoutMilliseconds: 1000))))
        let newest = try #require(try source.nextFrame(timeoutMilliseconds: 1000))
        consumer.consumeFrame(OTVideoFrame(wrapping: newest))
        consumer.consumeFrame(try #require(OTVideoFrame(format: .i420(width: 64, height: 48))))
        #expect(try consumer.nextFrame(timeoutMilliseconds: 100) === newest)
        #expect(consumer.statistics.framesDropped == 2)
        #expect(consumer.statistics.framesDelivered == 2)
        consumer.stop()
    }

    @Test func setPlanesCopiesPixels() throws {
        let frame = try #require(OTVideoFrame(format: .i420(width: 4, height: 2)))
        let y: [UInt8] = [1, 2, 3, 4, 9, 9, 5, 6, 7, 8, 9, 9]  // stride 6
        let u: [UInt8] = [10, 11]
        let v: [UInt8] = [20, 21]
        frame.setPlanes(y: y, strideY: 6, u: u, strideU: 2, v: v, strideV: 2)
        #expect(frame.videoFrame.luma(x: 3, y: 0) == 4)
        #expect(frame.videoFrame.luma(x: 0, y: 1) == 5)
        #expect(frame.planes[1][1] == 11)
        #expect(frame.planes[2][0] == 20)
        #expect(OTVideoFrame(format: OTVideoFormat(pixelFormat: .nv12, imageWidth: 4, imageHeight: 2)) == nil)
    }

    @Test func busCarriesCaptureIntoWholeEngineFrames() throws {
        let device = LoopDevice()
        let bus = OTAudioBus()
        let source = try BusAudioSource(device: device, bus: bus)
        try source.start()
        #expect(device.isCapturing())
        let tone = try ToneSource(frequency: 1000, paced: false)
        try tone.start()
        let frame = try #require(try tone.nextFrame(timeoutMilliseconds: 100))
        // Pushed in 10 ms pieces as a device would.
        bus.writeCaptureData(frame.samples, numberOfSamples: 480)
        #expect(try source.nextFrame(timeoutMilliseconds: 20) == nil, "half a frame is not a frame")
        bus.writeCaptureData(frame.samples + 480, numberOfSamples: 480)
        let out = try #require(try source.nextFrame(timeoutMilliseconds: 100))
        #expect(Array(out.buffer) == Array(frame.buffer))
        source.stop()
        #expect(!device.isCapturing())
    }

    @Test func busMixesSubscribersIntoTheRenderRead() throws {
        let device = LoopDevice()
        let bus = OTAudioBus()
        let first = BusAudioSink(device: device, bus: bus)
        let second = BusAudioSink(device: device, bus: bus)
        try first.start()
        try second.start()
        #expect(device.isRendering())
        let a = AudioFrame(format: .mono20ms)
        let b = AudioFrame(format: .mono20ms)
        for i in 0..<960 { a.samples[i] = 1000; b.samples[i] = Int16(i) }
        b.samples[0] = 32000
        a.samples[0] = 32000
        try first.write(a)
        try second.write(b)
        // Both were written 3 frames ahead of the reader: skip to them.
        var out = [Int16](repeating: 0, count: 960 * 4)
        bus.readRenderData(&out, numberOfSamples: out.count)
        let mixed = Array(out[(960 * 3)...])
        #expect(mixed[0] == Int16.max, "saturating add")
        #expect(mixed[10] == 1010)
        #expect(mixed[959] == 1959)
        #expect(out[..<(960 * 3)].allSatisfy { $0 == 0 })
        // What was read is cleared.
        bus.readRenderData(&out, numberOfSamples: out.count)
        #expect(out.allSatisfy { $0 == 0 })
    }

    @Test func defaultDeviceNeverLeavesAPublisherWithoutSound() throws {
        try AudioDeviceTestLock.run { try defaultDevice() }
    }

    private func defaultDevice() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        #expect(OTAudioDeviceManager.currentAudioDevice() === OTDefaultAudioDevice.shared)
        let source = try OTAudioDeviceManager.makeCaptureSource()
        try source.start()
        defer { source.stop() }
        let frame = try #require(try source.nextFrame(timeoutMilliseconds: 1000))
        #expect(frame.samplesPerChannel == 960)
        let sink = OTAudioDeviceManager.makeRenderSink()
        try sink.start()
        try sink.write(frame)
        sink.stop()
    }
}

/// A custom device that only keeps flags (the test pushes and pulls through the bus).
final class LoopDevice: OTAudioDevice, @unchecked Sendable {
    private let lock = NSLock()
    private var capturing = false
    private var rendering = false
    func setAudioBus(_ audioBus: OTAudioBus?) -> Bool { true }
    func captureFormat() -> OTAudioFormat { OTAudioFormat() }
    func renderFormat() -> OTAudioFormat { OTAudioFormat() }
    func renderingIsAvailable() -> Bool { true }
    func initializeRendering() -> Bool { true }
    func renderingIsInitialized() -> Bool { true }
    func startRendering() -> Bool { lock.withLock { rendering = true }; return true }
    func stopRendering() -> Bool { lock.withLock { rendering = false }; return true }
    func isRendering() -> Bool { lock.withLock { rendering } }
    func estimatedRenderDelay() -> UInt16 { 0 }
    func captureIsAvailable() -> Bool { true }
    func initializeCapture() -> Bool { true }
    func captureIsInitialized() -> Bool { true }
    func startCapture() -> Bool { lock.withLock { capturing = true }; return true }
    func stopCapture() -> Bool { lock.withLock { capturing = false }; return true }
    func isCapturing() -> Bool { lock.withLock { capturing } }
    func estimatedCaptureDelay() -> UInt16 { 0 }
}
