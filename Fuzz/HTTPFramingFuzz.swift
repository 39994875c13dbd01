// fuzz-sources: Sources/OTNet/Server/RequestFraming.swift
import Foundation

/// libFuzzer target: `RequestFraming.judge`, which reads the `Content-Length` and
/// `Transfer-Encoding` values of every HTTP request the router gets before any body byte.
/// The file is compiled into the target (the `fuzz-sources` line), so libwebsockets stays
/// out.
///
/// Input: `[flags][Content-Length bytes…]0x00[Transfer-Encoding bytes…]`; flag bit 0
/// leaves `Content-Length` absent, bit 1 `Transfer-Encoding`, the other six bits pick the
/// body limit (2^n bytes). Checks what must hold whatever the bytes: a body length is
/// positive and within the limit, a too-large one is over it, both headers together are
/// always refused with 400. A trap or an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPFraming(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let flags = data[0]
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let split = rest.firstIndex(of: 0) ?? rest.count
    let length = flags & 1 == 0 ? String(decoding: rest[0..<split], as: UTF8.self) : nil
    let coding = flags & 2 == 0 ? String(decoding: rest[min(split + 1, rest.count)...], as: UTF8.self) : nil
    let limit = 1 << Int((flags >> 2) % 40)
    let verdict = RequestFraming.judge(contentLength: length, transferEncoding: coding, maximumBody: limit)
    switch verdict {
    case .body(let bytes): precondition(bytes > 0 && bytes <= limit, "body \(bytes) outside 1...\(limit)")
    case .tooLarge(let bytes): precondition(bytes > limit, "too large \(bytes) within \(limit)")
    case .refuse(let status, _): precondition(status == 400 || status == 411, "status \(status)")
    case .none: break
    }
    if length != nil, coding != nil { precondition(verdict == .refuse(status: 400, message: "both Content-Length and Transfer-Encoding")) }
    return 0
}
