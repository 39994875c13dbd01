/// FNV-1a 64 over bytes, continuing from `hash` (the same digest CBareCodec computes),
/// used to prove two encoders wrote the same bitstream.
func fnv1a(_ bytes: UnsafeRawBufferPointer, continuing hash: UInt64 = fnvOffsetBasis) -> UInt64 {
    var h = hash
    for byte in bytes {
        h ^= UInt64(byte)
        h = h &* 1_099_511_628_211
    }
    return h
}

/// The FNV-1a 64 starting value.
let fnvOffsetBasis: UInt64 = 14_695_981_039_346_656_037
