import OTMedia

/// libFuzzer target: STUN datagrams (RFC 8489) through the reader, the FINGERPRINT and
/// MESSAGE-INTEGRITY checks, a response round trip, and an ICE-lite agent's `handle`
/// (which must never trap and answers only correctly signed checks). Seeds: the RFC 5769
/// vectors and a nominating check for the vectors' credentials.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = STUNFuzzing.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
