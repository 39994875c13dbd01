/// A gst-launch pipeline description built by `GStreamerPipelines`, with what a runner
/// needs to know about it: the UDP ports it listens on (to wait for before a sender
/// starts) and a readable form for logs. Value type; costs nothing until launched.
struct GStreamerPipeline: Sendable, CustomStringConvertible {
    /// The description as gst-launch-1.0 parses it, tokens separated by single spaces.
    /// Tokens never contain spaces (caps are written without any), so splitting on spaces
    /// gives gst-launch's argv; the same text also works pasted into a shell.
    let text: String
    /// UDP ports the pipeline binds (receivers); empty for a sender.
    let listeningPorts: [UInt16]

    /// The argv tokens for `gst-launch-1.0 -e` (quotes kept: gst-launch strips them).
    var arguments: [String] { text.split(separator: " ").map(String.init) }

    /// The command line, for failure messages: `gst-launch-1.0 -e <text>`.
    var description: String { "gst-launch-1.0 -e \(text)" }
}

/// Builds a pipeline description from pieces; each piece is one or more tokens.
struct GStreamerPipelineText {
    private(set) var tokens: [String] = []

    /// Appends the space-separated tokens of `piece`.
    mutating func add(_ piece: String) {
        precondition(!piece.contains("\n"), "pipeline pieces are single lines")
        tokens.append(contentsOf: piece.split(separator: " ").map(String.init))
    }

    /// The finished description.
    var text: String { tokens.joined(separator: " ") }
}
