import OTMedia

/// libFuzzer target: the Y4M stream header parser must reject any bytes with an error,
/// never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4MHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? Y4MHeader(line: line)
    return 0
}
