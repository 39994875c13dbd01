import OTMedia

/// Pixel layouts (`OTPixelFormat`; the values are OpenTok's FourCCs). The engine takes I420.
public enum OTPixelFormat: UInt32, Sendable, CaseIterable {
    /// Planar Y, U, V at half resolution ('I420').
    case i420 = 1_228_157_488
    /// Packed ARGB ('ARGB'); not accepted by the engine yet.
    case argb = 1_095_911_234
    /// Y plane + interleaved UV ('NV12'); not accepted by the engine yet.
    case nv12 = 1_314_271_538
}

/// The shape of frames a capturer delivers (`OTVideoFormat`). Cost: a small value.
public struct OTVideoFormat: Sendable, Equatable {
    /// A name for logs.
    public var name: String
    /// The pixel layout.
    public var pixelFormat: OTPixelFormat
    /// Bytes per row of each plane (filled by the SDK for frames it allocates).
    public var bytesPerRow: [Int]
    /// Width in pixels.
    public var imageWidth: Int
    /// Height in pixels.
    public var imageHeight: Int
    /// Frames per second the capturer intends to deliver.
    public var estimatedFramesPerSecond: Double
    /// Milliseconds from capture to delivery, as the capturer estimates it.
    public var estimatedCaptureDelay: Int

    /// A format with every field given.
    public init(name: String = "", pixelFormat: OTPixelFormat, bytesPerRow: [Int] = [], imageWidth: Int, imageHeight: Int,
                estimatedFramesPerSecond: Double = 30, estimatedCaptureDelay: Int = 0) {
        self.name = name
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.estimatedFramesPerSecond = estimatedFramesPerSecond
        self.estimatedCaptureDelay = estimatedCaptureDelay
    }

    /// I420 of the given size (`videoFormatI420WithWidth:height:`), 30 fps, with the
    /// engine's 32-byte aligned strides.
    public static func i420(width: Int, height: Int) -> OTVideoFormat {
        let strideY = (width + 31) & ~31
        let strideUV = ((width + 1) / 2 + 31) & ~31
        return OTVideoFormat(name: "I420", pixelFormat: .i420, bytesPerRow: [strideY, strideUV, strideUV],
                             imageWidth: width, imageHeight: height)
    }

    /// The engine's format for this (size and whole frames per second).
    var engineFormat: VideoFormat {
        VideoFormat(width: imageWidth, height: imageHeight, frameRate: max(1, Int(estimatedFramesPerSecond.rounded())))
    }
}

/// Which way up a frame is (`OTVideoOrientation`, OpenTok's numbers).
public enum OTVideoOrientation: Int32, Sendable {
    /// As captured.
    case up = 1
    /// Upside down.
    case down = 2
    /// Rotated left.
    case left = 3
    /// Rotated right.
    case right = 4
}
