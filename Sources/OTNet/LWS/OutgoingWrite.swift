import CLibWebSockets

extension Locked where Value == OutgoingQueue {
    /// The writable callback of a WebSocket (client or server side): writes exactly one
    /// queued message and asks for another callback if more is waiting, or, once the queue
    /// is empty, sets the requested close frame (after `beforeClose` sees its code) and
    /// returns -1 so lws sends it and closes. Service thread only.
    /// Cost: one lock, one copy of the message into `scratch`, one `lws_write`.
    func writeNext(to wsi: OpaquePointer, scratch: ScratchBuffer, beforeClose: (UInt16) -> Void = { _ in }) -> Int32 {
        switch withLock({ $0.takeNext() }) {
        case .message(let text, let more):
            let (bytes, count) = scratch.load(text)
            guard lws_write(wsi, bytes, count, LWS_WRITE_TEXT) >= 0 else { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        case .close(let code, let reason):
            beforeClose(code)
            scratch.setCloseFrame(wsi, code: code, reason: reason)
            return -1
        case .nothing:
            return 0
        }
    }
}

extension ScratchBuffer {
    /// Sets the close frame (code and reason, cut to the 123 bytes a close frame holds)
    /// that lws sends when the callback returns -1. Cost: one copy of the reason.
    func setCloseFrame(_ wsi: OpaquePointer, code: UInt16, reason: String) {
        let (bytes, count) = load(String(reason.utf8.prefix(123)) ?? "")
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), bytes, count)
    }
}
