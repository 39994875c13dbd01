import CYUV
import Foundation
import OTMedia
import Synchronization

/// The Linux stand-in for the `UIView` that `publisher.view` and `subscriber.view` return
/// on iOS (`OTView`): it holds the newest picture of the publisher's capture or the
/// subscriber's decoded stream, so any UI toolkit can draw it, and it can show itself in
/// an X11 window (`show()`, where a display exists).
///
/// Reading it: `videoDimensions`, `withLatestFrame` (borrowed, no copy), `latestFrame()`
/// (an I420 copy), `copyLatestFrameBGRA` (converted for a toolkit), `onFrame` (a callback
/// per frame) and `frameUpdates()` (an `AsyncStream`).
///
/// Cost: nothing until the app first asks for the view (`publisher.view`); from then on
/// one I420 copy per frame on the media thread (about 0.1 ms at 640x480) into a buffer
/// the view reuses (a new one only when the size grows), and no allocation per frame.
/// Colour conversion (libyuv, BGRA) and drawing happen on the reader's thread or the
/// window's own thread, never on the media thread.
public final class OTView: @unchecked Sendable {
    /// Where the view's errors belong (a publisher's or a subscriber's domain).
    let domain: OTErrorDomain
    /// Guards the frames, the counters, the callback, the streams and the window.
    let lock = NSLock()
    /// The newest picture (under `lock`).
    private(set) var latest: VideoFrame?
    /// The buffer the next picture is copied into (under `lock` when swapped).
    private var spare: VideoFrame?
    /// The wrapper `withLatestFrame` hands out, re-pointed while nobody keeps it.
    private var wrapper: OTVideoFrame?
    /// Frames received since the view was first asked for (under `lock`).
    private(set) var received: UInt64 = 0
    /// Set once the app asks for the view; until then the media thread does nothing here.
    private let active = Atomic<Bool>(false)
    private var callback: FrameCallback?
    /// The open `frameUpdates()` streams; copied out under the lock (a retain, no copy).
    private var streams: [(key: Int, continuation: AsyncStream<OTViewFrameInfo>.Continuation)] = []
    private var nextStreamKey = 0
    /// The window while shown (under `lock`).
    var window: OTViewWindow?
    /// The window's placement (`frame`; under `lock`).
    private(set) var geometry = CGRect.zero

    init(domain: OTErrorDomain) {
        self.domain = domain
    }

    deinit { window?.stopSoon() }

    /// Turns the frame path on (the publisher's or subscriber's `view` getter does).
    func activate() { active.store(true, ordering: .releasing) }

    // MARK: - What an app reads

    /// The size of the newest picture, nil before the first one. Cost: one lock.
    public var videoDimensions: OTVideoDimensions? {
        lock.withLock { latest.map { OTVideoDimensions(width: $0.width, height: $0.height) } }
    }

    /// How many pictures the view has received. Cost: one lock.
    public var frameCount: UInt64 { lock.withLock { received } }

    /// Calls `body` with the newest picture (I420, no copy), or returns nil before the
    /// first one. The frame is valid only inside `body`: the media thread waits for the
    /// view's lock while `body` runs, so keep it short, and use `latestFrame()` to keep a
    /// picture. Cost: one lock; no allocation while nobody keeps the wrapper.
    public func withLatestFrame<Result>(_ body: (OTVideoFrame) throws -> Result) rethrows -> Result? {
        lock.lock()
        defer {
            OTVideoFrame.release(&wrapper)
            lock.unlock()
        }
        guard let latest else { return nil }
        return try body(OTVideoFrame.wrap(latest, reusing: &wrapper))
    }

    /// A copy of the newest picture that the app may keep, or nil before the first one.
    /// Cost: one allocation and one copy of the picture.
    public func latestFrame() -> OTVideoFrame? {
        lock.withLock { () -> OTVideoFrame? in
            guard let latest else { return nil }
            let copy = VideoFrame(width: latest.width, height: latest.height)
            Self.copy(latest, into: copy)
            copy.sequence = latest.sequence
            copy.timestampNanoseconds = latest.timestampNanoseconds
            return OTVideoFrame(wrapping: copy)
        }
    }

    /// Converts the newest picture to 32-bit BGRA (B, G, R, A bytes in memory: cairo's
    /// ARGB32, Qt's Format_ARGB32 and X11's 24-bit visuals on little-endian machines)
    /// into `buffer`, rows `width * 4` bytes apart, resizing `buffer` to fit; returns the
    /// picture's size, or nil before the first picture. Cost: one libyuv conversion under
    /// the view's lock (about 0.3 ms at 640x480); `buffer` grows only when the size does.
    public func copyLatestFrameBGRA(into buffer: inout [UInt8]) -> OTVideoDimensions? {
        lock.withLock { () -> OTVideoDimensions? in
            guard let latest else { return nil }
            let count = latest.width * latest.height * 4
            if buffer.count != count { buffer = [UInt8](repeating: 0, count: count) }
            buffer.withUnsafeMutableBufferPointer { out in
                _ = I420ToARGB(latest.y, Int32(latest.strideY), latest.u, Int32(latest.strideUV), latest.v,
                               Int32(latest.strideUV), out.baseAddress, Int32(latest.width * 4),
                               Int32(latest.width), Int32(latest.height))
            }
            return OTVideoDimensions(width: latest.width, height: latest.height)
        }
    }

    /// Called once per new picture, on the media thread (the publisher's capture thread
    /// or the subscriber's receive thread), after the picture is stored: read it with
    /// `withLatestFrame` or hand `info` to your toolkit's main loop, and return quickly.
    /// Cost: one call per frame; held in a box so the media thread takes it without
    /// allocating.
    public var onFrame: (@Sendable (OTViewFrameInfo) -> Void)? {
        get { lock.withLock { callback?.call } }
        set { lock.withLock { callback = newValue.map(FrameCallback.init) } }
    }

    /// A stream of the pictures' descriptions as they arrive. It keeps only the newest
    /// one (a slow reader skips frames rather than fall behind) and ends when the
    /// iteration is cancelled. Cost: one continuation; per frame, one `yield` on the
    /// media thread (the concurrency runtime's cost) while the stream is open.
    public func frameUpdates() -> AsyncStream<OTViewFrameInfo> {
        let (stream, continuation) = AsyncStream.makeStream(of: OTViewFrameInfo.self, bufferingPolicy: .bufferingNewest(1))
        let key = lock.withLock { () -> Int in
            defer { nextStreamKey += 1 }
            streams.append((nextStreamKey, continuation))
            return nextStreamKey
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { self.streams.removeAll { $0.key == key } }
        }
        return stream
    }

    // MARK: - The media thread

    /// Stores `source` as the newest picture and tells the readers. Media thread. Cost
    /// when active: one plane copy, two short locks, the callback, a yield per open
    /// stream and a wake-up of the window's thread; an allocation only when the picture
    /// grows beyond the spare buffer.
    func deliver(_ source: VideoFrame) {
        guard active.load(ordering: .acquiring) else { return }
        var target = lock.withLock { () -> VideoFrame? in
            defer { spare = nil }
            return spare
        }
        if target == nil || !target!.reshape(width: source.width, height: source.height) {
            target = VideoFrame(width: source.width, height: source.height)
        }
        let frame = target!
        Self.copy(source, into: frame)
        frame.sequence = source.sequence
        frame.timestampNanoseconds = source.timestampNanoseconds
        let (info, call, wake, open) = lock.withLock { () -> (OTViewFrameInfo, FrameCallback?, DispatchSemaphore?, [(key: Int, continuation: AsyncStream<OTViewFrameInfo>.Continuation)]) in
            spare = latest
            latest = frame
            received += 1
            let info = OTViewFrameInfo(dimensions: OTVideoDimensions(width: frame.width, height: frame.height),
                                       frameNumber: received, timestampNanoseconds: frame.timestampNanoseconds)
            return (info, callback, window?.wake, streams)
        }
        wake?.signal()
        call?.call(info)
        for stream in open { stream.continuation.yield(info) }
    }

    /// Copies the three planes of `source` into `target` (same size). Cost: libyuv's copy.
    static func copy(_ source: VideoFrame, into target: VideoFrame) {
        _ = I420Copy(source.y, Int32(source.strideY), source.u, Int32(source.strideUV), source.v, Int32(source.strideUV),
                     target.y, Int32(target.strideY), target.u, Int32(target.strideUV), target.v, Int32(target.strideUV),
                     Int32(source.width), Int32(source.height))
    }

    // MARK: - Geometry (the window's)

    /// Where the window sits and how big it is (`UIView.frame`): set it before or while
    /// the window is shown; an empty size (the default) sizes the window to the pictures.
    /// The picture is scaled to fit inside, keeping its aspect ratio (black bars).
    /// Cost: a lock; while shown, one request to the X server on the window's thread.
    public var frame: CGRect {
        get { lock.withLock { geometry } }
        set {
            let window = lock.withLock { () -> OTViewWindow? in
                geometry = newValue
                return self.window
            }
            window?.requestGeometry(newValue)
        }
    }

    /// Whether the window is open. Cost: one lock.
    public var isShown: Bool { lock.withLock { window != nil } }

    /// The X11 window's id while shown (nil otherwise), for toolkits that embed a
    /// foreign window (XEmbed) or for screenshots. Cost: one lock.
    public var x11WindowID: UInt32? { lock.withLock { window?.windowID } }
}

/// One picture's description, as `OTView.onFrame` and `frameUpdates()` report it.
/// Cost: a small value.
public struct OTViewFrameInfo: Sendable, Equatable {
    /// The picture's size.
    public let dimensions: OTVideoDimensions
    /// Which picture this is since the view was first asked for (the first is 1).
    public let frameNumber: UInt64
    /// Its capture time on the monotonic clock, nanoseconds.
    public let timestampNanoseconds: UInt64
}

/// `OTView.onFrame`'s closure, boxed: taking a class reference out of the lock does not
/// reabstract the closure (which allocated per call in `PublisherPipeline`'s hook).
private final class FrameCallback: Sendable {
    let call: @Sendable (OTViewFrameInfo) -> Void
    init(_ call: @escaping @Sendable (OTViewFrameInfo) -> Void) { self.call = call }
}
