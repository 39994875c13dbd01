import OTMedia

/// libFuzzer target: sequences of VP8 RTP payloads reassemble without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVP8Depacketize(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = VP8Fuzzing.depacketize(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
