// fuzz-sources: Sources/OTRouter/REST/ArchiveBodyParser.swift Sources/OTRouter/REST/RESTError.swift
import Foundation

/// libFuzzer target: `ArchiveBodyParser`, the reading of `POST /archive` options
/// (`multiArchiveTag`, `maxDuration`, resolution) and `PATCH /archive/{id}/streams`
/// bodies. The files are compiled into the target (the `fuzz-sources` line).
///
/// Input: `[flags][JSON bytes…]`: bit 0 of the first byte picks individual output. The
/// JSON is parsed as the router does (`JSONSerialization`); an object goes to both
/// readers. Checks that an accepted `maxDuration` is in 60...36000, an accepted tag and
/// stream id are 1...256 bytes, and a refusal is a 400. A trap or an AddressSanitizer
/// report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchiveBody(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let individual = data[0] & 1 == 1
    let json = Data(bytes: data + 1, count: size - 1)
    guard let body = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return 0 }
    switch ArchiveBodyParser.options(body, individual: individual) {
    case .success(let options):
        if let seconds = options.maxDurationSeconds { precondition((60...36_000).contains(seconds), "maxDuration \(seconds) accepted") }
        if let tag = options.multiArchiveTag { precondition((1...256).contains(tag.utf8.count), "tag of \(tag.utf8.count) bytes accepted") }
    case .failure(let refusal):
        precondition(refusal.status == 400, "refused with \(refusal.status)")
    }
    switch ArchiveBodyParser.streamChange(body) {
    case .add(let streamId, _, _)?, .remove(let streamId)?:
        precondition((1...256).contains(streamId.utf8.count), "stream id of \(streamId.utf8.count) bytes accepted")
    case nil:
        break
    }
    return 0
}
