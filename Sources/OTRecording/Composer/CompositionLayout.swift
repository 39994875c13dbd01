/// An archive's layout: OpenTok's layout types for composed archives, as `POST …/archive`
/// and `PUT …/archive/{id}/layout` give them (`{type, stylesheet?, screenshareType?}`).
///
/// `custom` keeps only what the `stream.focus` convention asks: streams whose layout class
/// list holds "focus" share the large rectangle, the others a row beside it; without a
/// focus stream it is `bestFit`. A full CSS engine is not implemented (the stylesheet is
/// kept, not interpreted). Cost: a plain value.
public struct CompositionLayout: Sendable, Hashable {
    /// OpenTok's layout type names.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A grid of equal cells (1, 2, 2×2, 3×2, 3×3, 4×3, 4×4).
        case bestFit
        /// The first (or focus) stream full canvas, the others small in the bottom-right corner.
        case pip
        /// One large stream on the left, the others in a column on the right.
        case verticalPresentation
        /// One large stream on top, the others in a row below.
        case horizontalPresentation
        /// A stylesheet: here, streams with the "focus" class large, the others in a row.
        case custom
    }

    /// The layout type.
    public var kind: Kind
    /// The custom stylesheet as given (kept for the REST answers; not interpreted).
    public var stylesheet: String?
    /// With `bestFit`: the layout used while a screen-share stream is present (the screen
    /// share then takes the large rectangle); nil keeps `bestFit`.
    public var screenshareType: Kind?

    /// A layout of `kind`.
    public init(_ kind: Kind = .bestFit, stylesheet: String? = nil, screenshareType: Kind? = nil) {
        self.kind = kind
        self.stylesheet = stylesheet
        self.screenshareType = screenshareType
    }

    /// OpenTok's default: `bestFit`.
    public static let standard = CompositionLayout()

    /// Parses the REST body's `layout` object; an error message for people when it is wrong
    /// (unknown type, custom without stylesheet, a screenshareType outside bestFit).
    public static func parse(type: String?, stylesheet: String?, screenshareType: String?) -> Result<CompositionLayout, LayoutError> {
        guard let type else { return .failure(LayoutError("layout.type is required")) }
        guard let kind = Kind(rawValue: type) else {
            return .failure(LayoutError("layout.type must be bestFit, pip, verticalPresentation, horizontalPresentation or custom"))
        }
        if kind == .custom, (stylesheet ?? "").isEmpty {
            return .failure(LayoutError("a custom layout needs a stylesheet"))
        }
        if let stylesheet, stylesheet.utf8.count > 65_536 { return .failure(LayoutError("the stylesheet is too long")) }
        var screenshare: Kind?
        if let screenshareType {
            guard kind == .bestFit else { return .failure(LayoutError("screenshareType is only valid with the bestFit layout")) }
            guard let parsed = Kind(rawValue: screenshareType), parsed != .custom else {
                return .failure(LayoutError("layout.screenshareType must be bestFit, pip, verticalPresentation or horizontalPresentation"))
            }
            screenshare = parsed
        }
        return .success(CompositionLayout(kind, stylesheet: kind == .custom ? stylesheet : nil, screenshareType: screenshare))
    }
}

/// A layout request that cannot be used, with OpenTok-style words. Cost: a string.
public struct LayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
