/// An error from the media engine: what went wrong (`code`) and what a person can do
/// about it (`message`). OTKit maps these to OpenTok's publisher and subscriber codes.
public struct MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure the engine reports.
    public enum Code: String, Sendable, Equatable {
        /// The device path or ALSA name does not exist.
        case noSuchDevice
        /// The path exists but is not a video capture device (a file, an output device…).
        case notACaptureDevice
        /// Another process holds the device (EBUSY).
        case deviceBusy
        /// The user may not open the device (EACCES/EPERM); the message names the group.
        case permissionDenied
        /// The device went away while streaming (ENODEV, unplugged).
        case deviceLost
        /// The device or file offers no format the engine can convert.
        case unsupportedFormat
        /// The machine has no audio device to capture from or play to.
        case audioUnavailable
        /// An argument is out of range (size, rate, bitrate, format).
        case invalidArgument
        /// The codec library refused an operation.
        case codecFailure
        /// A file is malformed (bad Y4M or WAV header, truncated data).
        case malformedInput
        /// The media path failed: a socket could not be bound, datagrams could not be
        /// sent, a pipeline thread could not start (OpenTok reports these as WebRTC errors).
        case networkFailure
        /// A system call failed for another reason (the message has errno's text).
        case systemError
        /// A file source has no more frames.
        case endOfStream
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String

    /// Creates an error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// "<code>: <message>".
    public var description: String { "\(code.rawValue): \(message)" }
}
