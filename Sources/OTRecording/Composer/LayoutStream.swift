/// What the layout math needs to know of one stream. Cost: a plain value.
public struct LayoutStream: Sendable, Hashable {
    /// Its layout class list holds "focus" (OpenTok's `stream.focus` convention).
    public var isFocus: Bool
    /// A screen share (`videoType` "screen").
    public var isScreenshare: Bool

    /// A stream description.
    public init(isFocus: Bool = false, isScreenshare: Bool = false) {
        self.isFocus = isFocus
        self.isScreenshare = isScreenshare
    }

    /// A stream from its layout class list and video type.
    public init(layoutClassList: [String], videoType: String = "camera") {
        self.init(isFocus: layoutClassList.contains("focus"), isScreenshare: videoType == "screen")
    }
}
