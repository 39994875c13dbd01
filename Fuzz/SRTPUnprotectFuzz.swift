import OTMedia

/// libFuzzer target: datagrams into an AEAD_AES_128_GCM receiver, as RTP and as RTCP:
/// libsrtp2's header and trailer parsing and the OpenSSL AES-GCM it runs on
/// (CModules/CSRTPCipher: short inputs, tags cut off, lengths below the tag's). The first
/// byte picks the shape: even, the rest of the input as is; odd, a genuine protected RTP
/// packet with the rest XORed over it and up to 31 bytes cut off its end, so inputs reach
/// the tag check (the C code is not instrumented, so libFuzzer cannot find it alone).
/// Nothing altered may be accepted: without the key, no change authenticates.
let fuzzKeys = try! SRTPKeyMaterial(profile: .aeadAES128GCM, keyAndSalt: (0..<28).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
let fuzzReceiver = try! SRTPSession(keys: fuzzKeys, direction: .receiver)
let fuzzGenuine: [UInt8] = {
    let sender = try! SRTPSession(keys: fuzzKeys, direction: .sender)
    var packet = [UInt8](repeating: 0xA5, count: 12 + 100 + 64)
    packet[0] = 0x80; packet[1] = 96; packet[3] = 7; packet[11] = 0x42
    let length = packet.withUnsafeMutableBytes { try! sender.protect($0, length: 112) }
    return Array(packet[..<length])
}()
nonisolated(unsafe) var fuzzBuffer = [UInt8](repeating: 0, count: 4096 + 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSRTPUnprotect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data + 1, count: min(size - 1, 4096))
    var length = input.count
    var altered = true
    if data[0] & 1 == 1 {
        var packet = fuzzGenuine
        for (index, byte) in input.enumerated() { packet[index % packet.count] ^= byte }
        let cut = input.isEmpty ? 0 : Int(input[0] & 31)
        length = packet.count - cut
        altered = packet != fuzzGenuine || cut > 0
        fuzzBuffer.replaceSubrange(0..<packet.count, with: packet)
    } else if length > 0 {
        fuzzBuffer.replaceSubrange(0..<length, with: input)
    }
    for asRTCP in [false, true] {
        var copy = fuzzBuffer  // each reading gets the same bytes (unprotect works in place)
        let accepted = copy.withUnsafeMutableBytes { raw -> Bool in
            asRTCP ? (try? fuzzReceiver.unprotectRTCP(raw, length: length)) != nil
                : (try? fuzzReceiver.unprotect(raw, length: length)) != nil
        }
        if accepted && altered { fatalError("an altered packet of \(length) bytes authenticated") }
    }
    return 0
}
