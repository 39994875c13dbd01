import CLibWebSockets

/// Joins the fragments of one incoming WebSocket message in a receive callback (client or
/// server side). Service thread only. Cost: one copy of each fragment into `incoming`,
/// one String for a complete text message; the buffer keeps up to 64 KiB of capacity.
enum IncomingFragments {
    /// What the fragment just received completed.
    enum Step {
        /// The message would exceed the limit: the buffer is emptied, the caller closes with 1009.
        case tooLarge
        /// More fragments of this message are still to come.
        case incomplete
        /// The message is whole: its text, or nil for a binary message (which is dropped).
        case complete(text: String?)
    }

    /// Appends `length` bytes at `input` to `incoming`; when they end the message, returns
    /// its text and empties the buffer.
    static func add(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int,
                    to incoming: inout [UInt8], limit: Int) -> Step {
        if incoming.count + length > limit {
            incoming = []
            return .tooLarge
        }
        if let input, length > 0 { incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return .incomplete }
        let binary = lws_frame_is_binary(wsi) != 0
        let text = binary ? nil : String(decoding: incoming, as: UTF8.self)
        incoming.removeAll(keepingCapacity: incoming.capacity <= 64 << 10)
        return .complete(text: text)
    }
}
