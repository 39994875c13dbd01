import Glibc
import OTMedia

/// libFuzzer target: the SFrame receive path (RFC 9605) on arbitrary bytes under a fixed
/// key (RFC 9605 Appendix C.4's base key): byte 0's low 4 bits give the metadata length,
/// the next bytes are the metadata, the rest is the SFrame. The header parse must either
/// throw or give a header that writes back to the same bytes; decryption must either throw
/// an `SFrameError` or succeed; and the same plaintext encrypted by a sender at the parsed
/// KID and CTR must decrypt back to itself at a fresh receiver. Any other outcome traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard size >= 1 else { return 0 }
    let metadataLength = min(Int(data[0] & 0x0F), size - 1)
    let metadata = UnsafeRawBufferPointer(rebasing: input[1..<(1 + metadataLength)])
    let sframe = UnsafeRawBufferPointer(rebasing: input[(1 + metadataLength)...])

    // Parse ⇄ write.
    let parsed: (header: SFrameHeader, length: Int)
    do { parsed = try SFrameHeader.parse(sframe) } catch { return 0 }
    let rewritten = UnsafeMutableRawBufferPointer.allocate(byteCount: SFrameHeader.maxLength, alignment: 1)
    defer { rewritten.deallocate() }
    guard let length = try? parsed.header.write(to: rewritten), length == parsed.length,
          memcmp(rewritten.baseAddress!, sframe.baseAddress!, length) == 0 else {
        fatalError("SFrame header \(parsed.header) does not write back to the bytes it was parsed from")
    }

    // Decrypt under the fixed key: throws or succeeds; nothing else.
    let receiver = SFrameReceiver(baseKey: SFrameFuzzKey.base, keyCapacity: 2)
    let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, sframe.count), alignment: 16)
    defer { plain.deallocate() }
    let plainLength: Int
    do { plainLength = try receiver.decrypt(sframe, metadata: metadata, into: plain).length } catch {
        // The frame's bytes after the header, encrypted at its KID and CTR, round-trip.
        let body = UnsafeRawBufferPointer(rebasing: sframe[parsed.length...])
        roundTrip(body, header: parsed.header, metadata: metadata)
        return 0
    }
    precondition(plainLength == sframe.count - parsed.length - 16, "SFrame plaintext length off")
    return 0
}

/// Encrypts `body` as (KID, CTR) of `header` and decrypts it at a fresh receiver; traps
/// unless the plaintext comes back.
private func roundTrip(_ body: UnsafeRawBufferPointer, header: SFrameHeader, metadata: UnsafeRawBufferPointer) {
    guard let sender = try? SFrameSender(baseKey: SFrameFuzzKey.base, keyID: header.keyID, firstCounter: header.counter) else {
        fatalError("SFrameSender could not be made for \(header)")
    }
    let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: body.count + SFrameSender.maxOverhead, alignment: 16)
    let opened = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 16)
    defer { sealed.deallocate(); opened.deallocate() }
    do {
        let length = try sender.encrypt(body, metadata: metadata, into: sealed)
        let result = try SFrameReceiver(baseKey: SFrameFuzzKey.base).decrypt(UnsafeRawBufferPointer(rebasing: sealed[0..<length]),
                                                                               metadata: metadata, into: opened)
        precondition(result.header == header && result.length == body.count, "SFrame round trip changed the header or length")
        precondition(body.count == 0 || memcmp(opened.baseAddress!, body.baseAddress!, body.count) == 0, "SFrame round trip changed the bytes")
    } catch {
        fatalError("SFrame round trip of \(body.count) bytes at \(header) failed: \(error)")
    }
}

/// The fuzzer's fixed base key: RFC 9605 Appendix C.4's (bytes 0…15).
enum SFrameFuzzKey {
    static let base = try! SFrameBaseKey(bytes: (0..<16).map { UInt8($0) })
}
