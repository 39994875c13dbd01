/// An archive's canvas size: OpenTok's six composed resolutions (`640x480`, the default,
/// `1280x720`, `1920x1080` and the portrait `480x640`, `720x1280`, `1080x1920`).
/// Cost: a plain value.
public struct CanvasResolution: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels (even).
    public let width: Int
    /// Height in pixels (even).
    public let height: Int

    /// The resolutions OpenTok accepts for composed archives.
    public static let supported: [CanvasResolution] = [
        CanvasResolution(width: 640, height: 480), CanvasResolution(width: 1280, height: 720),
        CanvasResolution(width: 1920, height: 1080), CanvasResolution(width: 480, height: 640),
        CanvasResolution(width: 720, height: 1280), CanvasResolution(width: 1080, height: 1920),
    ]

    /// OpenTok's default, 640x480.
    public static let standard = CanvasResolution(width: 640, height: 480)

    /// A canvas of `width` × `height` (not checked: use `init?(parsing:)` for input).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `"1280x720"`; nil unless it is one of the `supported` six.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 5, parts[1].count <= 5,
              let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        let candidate = CanvasResolution(width: width, height: height)
        guard Self.supported.contains(candidate) else { return nil }
        self = candidate
    }

    /// True when taller than wide.
    public var isPortrait: Bool { height > width }

    /// `"WxH"`.
    public var description: String { "\(width)x\(height)" }
}
