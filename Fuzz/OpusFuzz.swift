import OTMedia

/// libFuzzer target: Opus RTP payloads (RFC 7587, RFC 6716 3.4 rules) parse and validate.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpus(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    OpusFuzzing.parsePayload(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
