// fuzz-sources: Sources/OTRouter/Cluster/Cascade/CascadeControlRequest.swift
import Foundation
import OTSignaling

/// libFuzzer target: `CascadeControlRequest.parse`, the reading of the body of
/// `POST /cluster/v1/cascade` (another router's cascade control call; the cluster secret
/// is checked first, but a leaked secret must not make the body dangerous). The file is
/// compiled into the target (the `fuzz-sources` line).
///
/// Input: the body bytes. Checks that an accepted request has a stream id of 1...256
/// bytes, a node id of 1...64 bytes, a transport when it opens, sizes in 1...16384 and a
/// finite frame rate in (0, 1000]; that a refusal is a 400; and that an accepted request
/// encoded again parses to the same value. A trap or an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCascadeControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    switch CascadeControlRequest.parse(body) {
    case .success(let request):
        precondition((1...256).contains(request.streamId.utf8.count), "stream id of \(request.streamId.utf8.count) bytes accepted")
        precondition((1...64).contains(request.node.utf8.count), "node id of \(request.node.utf8.count) bytes accepted")
        precondition(request.action != .open || request.transport != nil, "open without a transport accepted")
        for value in [request.width, request.height] { if let value { precondition((1...16_384).contains(value), "size \(value)") } }
        if let rate = request.frameRate { precondition(rate.isFinite && rate > 0 && rate <= 1_000, "frame rate \(rate)") }
        if let again = try? JSONEncoder().encode(request), case .success(let reparsed) = CascadeControlRequest.parse(Array(again)) {
            precondition(reparsed == request, "a request changed when encoded again")
        }
    case .failure(let refusal):
        precondition(refusal.status == 400, "refused with \(refusal.status)")
    }
    return 0
}
