import Glibc
import OTTestSupport
import Testing
@testable import OTMedia

/// The per-frame path allocates nothing: once a sender and a receiver exist (and the
/// receiver has seen the KID), encrypting and decrypting a frame uses only the caller's
/// buffers and the EVP contexts made at setup — counted across Swift and OpenSSL, since
/// the shim counts every malloc on the thread.
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct SFrameAllocationTests {
    @Test func encryptAndDecryptAllocateNothing() throws {
        let counter = try AllocationCounter.required()
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 77)
        let receiver = SFrameReceiver(baseKey: key)
        let sizes = [80, 1_200, 2_500, 18_000]
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000, alignment: 16)
        let sframe = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000 + SFrameSender.maxOverhead, alignment: 16)
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000, alignment: 16)
        let metadata = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        defer { frame.deallocate(); sframe.deallocate(); plain.deallocate(); metadata.deallocate() }
        for index in 0..<frame.count { frame[index] = UInt8(truncatingIfNeeded: index) }
        metadata.copyBytes(from: [0x90, 0x10, 0x80, 0x01])

        func once(_ size: Int) throws -> Int {
            let length = try sender.encrypt(UnsafeRawBufferPointer(rebasing: frame[0..<size]), metadata: UnsafeRawBufferPointer(metadata), into: sframe)
            return try receiver.decrypt(UnsafeRawBufferPointer(rebasing: sframe[0..<length]), metadata: UnsafeRawBufferPointer(metadata), into: plain).length
        }
        // Warm up: the receiver learns KID 77 (one derivation, allocates).
        _ = try once(100)
        var decrypted = 0
        let before = counter()
        for index in 0..<2_000 { decrypted += try once(sizes[index % sizes.count]) }
        let allocations = counter() - before
        #expect(allocations == 0)
        #expect(decrypted == 500 * sizes.reduce(0, +))
        #expect(memcmp(plain.baseAddress!, frame.baseAddress!, 18_000) == 0)
    }

    /// The media integration's per-frame path: a key slot read by an encryptor and a
    /// decryptor, VP8 frames laid out with their payload header clear (keyframes and
    /// delta frames) and Opus packets sealed whole. After the first frame of a key, nothing
    /// is allocated per frame — the generation check is one atomic load.
    @Test func frameLayoutPathAllocatesNothing() throws {
        let counter = try AllocationCounter.required()
        let slot = SFrameKeySlot()
        slot.install(try SFrameTest.key())
        let encryptor = SFrameFrameEncryptor(slot: slot)
        let decryptor = SFrameFrameDecryptor(slot: slot, monitor: SFrameDecryptionMonitor(), track: .video)
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000, alignment: 16)
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000 + SFrameFrameEncryptor.maxOverhead, alignment: 16)
        let opened = UnsafeMutableRawBufferPointer.allocate(byteCount: 18_000 + SFrameFrameEncryptor.maxOverhead, alignment: 16)
        defer { frame.deallocate(); sealed.deallocate(); opened.deallocate() }
        for index in 0..<frame.count { frame[index] = UInt8(truncatingIfNeeded: index &* 13) }
        let sizes = [80, 1_200, 2_500, 18_000]

        func once(_ index: Int) throws -> Int {
            let size = sizes[index % sizes.count]
            frame[0] = index % 30 == 0 ? 0x10 : 0x11  // a keyframe now and then
            let plain = UnsafeRawBufferPointer(rebasing: frame[0..<size])
            let clear = size == 80 ? SFrameFrameLayout.opusClearBytes : SFrameFrameLayout.vp8ClearBytes(plain)
            _ = try encryptor.refresh()
            let length = try encryptor.encrypt(plain, clearBytes: clear, into: sealed) ?? 0
            guard case .decrypted(let out) = decryptor.decrypt(UnsafeRawBufferPointer(rebasing: sealed[0..<length]),
                                                               clearBytes: clear, into: opened) else { return -1 }
            return out
        }
        _ = try once(0)  // warm-up: the key schedule and the receiver's KID (allocate)
        var total = 0
        let before = counter()
        for index in 1...2_000 { total += try once(index) }
        let allocations = counter() - before
        #expect(allocations == 0)
        #expect(total == (1...2_000).reduce(0) { $0 + sizes[$1 % sizes.count] }, "every frame opened whole")
    }
}
