import OTRecording

/// libFuzzer target: a composed archive's inputs — one stream's RTP through reorder, VP8
/// reassembly, libvpx, libopus and the audio timeline; the REST layout and resolution fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzComposer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ComposerFuzzing.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
