import OTMedia

/// libFuzzer target: RTCP compound datagrams (SR, RR, SDES, BYE, NACK, PLI, FIR, REMB,
/// TWCC) parse, and every packet that parses writes back to what re-parses the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = RTCPFuzzing.parseCompound(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
