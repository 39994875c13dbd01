import OTMedia

/// libFuzzer target: RTP packets (RFC 3550, RFC 8285 extensions) parse, and what parses re-serializes to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RTPFuzzing.parseRTP(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
