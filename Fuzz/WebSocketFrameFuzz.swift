// fuzz-sources: Sources/OTNet/Server/WebSocket/WebSocketFrameReader.swift Sources/OTNet/Server/WebSocket/UTF8Validation.swift Sources/OTNet/Server/HTTP/HTTPRequestReader.swift Sources/OTNet/Server/HTTP/ParsedRequest.swift Sources/OTNet/Server/HTTP/TargetDecoding.swift Sources/OTNet/Server/RequestFraming.swift
import Foundation

/// libFuzzer target: the two readers of OTNet's server that see every byte a client
/// sends — `WebSocketFrameReader` (RFC 6455 frames) and `HTTPRequestReader` (RFC 9112
/// heads and bodies). Their files are compiled into the target (the `fuzz-sources` line),
/// so libwebsockets and OpenSSL stay out.
///
/// Input: `[mode][split]…bytes`: bit 0 of `mode` picks the reader (0 frames, 1 HTTP), the
/// other bits a size limit; `split` cuts the bytes into reads of 1…256 bytes, so partial
/// headers and lengths are exercised. Checks what must hold whatever the bytes: text is
/// valid UTF-8, messages and bodies are within their limits, control payloads ≤ 125 bytes,
/// failures carry 1002/1007/1009 (HTTP: 400/411/413/414/431/501/505), buffered input stays
/// bounded, and nothing comes out after a failure. A trap or an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let mode = data[0]
    let chunk = Int(data[1]) + 1
    let bytes = UnsafeBufferPointer(start: data + 2, count: size - 2)
    let limit = 1 << Int(4 + (mode >> 1) % 16)
    if mode & 1 == 0 {
        fuzzFrames(bytes, chunk: chunk, limit: limit)
    } else {
        fuzzRequests(bytes, chunk: chunk, limit: limit)
    }
    return 0
}

private func fuzzFrames(_ bytes: UnsafeBufferPointer<UInt8>, chunk: Int, limit: Int) {
    var reader = WebSocketFrameReader(maximumMessageBytes: limit)
    var offset = 0
    var failed = false
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        reader.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end])))
        offset = end
        // A frame's header is at most 14 bytes: nothing else may pile up past one frame and a read.
        precondition(reader.bufferedBytes <= limit + 14 + chunk + 125, "buffered \(reader.bufferedBytes)")
        while let event = reader.next() {
            precondition(!failed, "an event after a failure")
            switch event {
            case .text(let text):
                precondition(text.utf8.count <= limit, "text of \(text.utf8.count) over \(limit)")
                precondition(UTF8Validation.isValid(Array(text.utf8)))
            case .binary(let payload): precondition(payload.count <= limit)
            case .ping(let payload), .pong(let payload): precondition(payload.count <= 125)
            case .close(let code, let reason):
                if let code { precondition(WebSocketFrameReader.isValidReceivedCloseCode(code)) }
                precondition(reason.utf8.count <= 123)
            case .failure(let failure):
                precondition([1002, 1007, 1009].contains(failure.code), "code \(failure.code)")
                failed = true
            }
        }
    }
}

private func fuzzRequests(_ bytes: UnsafeBufferPointer<UInt8>, chunk: Int, limit: Int) {
    var reader = HTTPRequestReader(maximumHeadBytes: 1024, maximumHeaders: 20, maximumRequestLineBytes: 512, maximumBodyBytes: limit)
    var offset = 0
    var stopped = false
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        reader.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end])))
        offset = end
        while let event = reader.next() {
            precondition(!stopped, "a request after a failure or an upgrade")
            switch event {
            case .request(let request):
                precondition(request.body.count <= limit, "body \(request.body.count) over \(limit)")
                precondition(HTTPRequestReader.methods.contains(request.method))
                precondition(request.version == "HTTP/1.1" || request.version == "HTTP/1.0")
                precondition(request.headers.count <= 20)
                if request.isUpgrade {
                    precondition(request.body.isEmpty)
                    stopped = true
                }
            case .failure(let status, _, _):
                precondition([400, 411, 413, 414, 431, 501, 505].contains(status), "status \(status)")
                stopped = true
            }
        }
        // A head is capped at 1 KiB; a body at the limit.
        precondition(reader.bufferedBytes <= 1024 + limit + 4 + chunk, "buffered \(reader.bufferedBytes)")
    }
}
