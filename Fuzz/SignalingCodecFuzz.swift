import OTSignaling

/// libFuzzer target: the signaling codec, both directions. The input is JSON text (as a
/// WebSocket text frame gives it, invalid UTF-8 repaired); it is decoded as a client
/// message (what the router reads) and as a server message (what a client reads). A
/// client message that decodes must pass `ClientMessageLimits` and survive encode →
/// decode unchanged; a server message that decodes must encode again. Malformed input is
/// expected and ends the work; a trap is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignalingCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let (message, requestId) = try? SignalingCodec.decodeClientMessage(text) {
        let again = SignalingCodec.encode(message, requestId: requestId)
        guard let (decoded, id) = try? SignalingCodec.decodeClientMessage(again), decoded == message, id == requestId else {
            fatalError("client message did not survive a round trip: \(text) -> \(again)")
        }
    }
    if let (message, requestId) = try? SignalingCodec.decodeServerMessage(text) {
        _ = SignalingCodec.encode(message, requestId: requestId)
    }
    return 0
}
