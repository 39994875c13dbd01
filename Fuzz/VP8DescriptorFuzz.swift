import OTMedia

/// libFuzzer target: the VP8 payload descriptor (RFC 7741) parses and round-trips.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVP8Descriptor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    VP8Fuzzing.parseDescriptor(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
