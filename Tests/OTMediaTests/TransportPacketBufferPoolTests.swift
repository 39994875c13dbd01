import Testing
@testable import OTMedia

@Suite struct PacketBufferPoolTests {
    @Test("Take and release in steady state never creates buffers")
    func steadyState() {
        let pool = PacketBufferPool(initialCount: 8, maximumCount: 64)
        for _ in 0..<1000 {
            let taken = (0..<8).map { _ in pool.take()! }
            for buffer in taken.reversed() { pool.release(buffer) }
        }
        #expect(pool.createdCount == 8)
        #expect(pool.availableCount == 8)
    }

    @Test("The pool grows to its maximum while all buffers are busy, then says no")
    func growsToMaximum() {
        let pool = PacketBufferPool(initialCount: 2, maximumCount: 5)
        let taken = (0..<5).compactMap { _ in pool.take() }
        #expect(taken.count == 5)
        #expect(pool.createdCount == 5)
        #expect(pool.take() == nil)
        for buffer in taken { pool.release(buffer) }
        #expect(pool.availableCount == 5)
        _ = (0..<5).map { _ in pool.take()! }
        #expect(pool.createdCount == 5)
    }

    @Test("A taken buffer is reset: empty, at the headroom, no peer, not truncated")
    func takenBufferIsReset() {
        let pool = PacketBufferPool(initialCount: 1, bufferSize: 512, headroom: 32)
        let buffer = pool.take()!
        buffer.setLength(100)
        _ = buffer.prepend(8)
        buffer.peer = .ipv4Loopback(port: 1)
        buffer.isTruncated = true
        pool.release(buffer)
        let again = pool.take()!
        #expect(again === buffer)
        #expect(again.length == 0 && again.start == 32 && again.peer == nil && !again.isTruncated)
    }

    @Test("Headers are prepended into the headroom and trailers appended into the tailroom, in place")
    func headroomAndTailroom() {
        let pool = PacketBufferPool(initialCount: 1, bufferSize: 256, headroom: 16)
        let buffer = pool.take()!
        let payload: [UInt8] = [1, 2, 3, 4]
        #expect(payload.withUnsafeBytes { buffer.assign($0) })
        let before = buffer.bytes.baseAddress
        let header = buffer.prepend(12)
        for index in 0..<12 { header[index] = 0xA0 }
        let trailer = buffer.append(16)
        for index in 0..<16 { trailer[index] = 0xB0 }
        #expect(buffer.length == 32)
        #expect(buffer.headroomAvailable == 4)
        #expect(buffer.tailroom == 256 - 4 - 32)
        #expect(buffer.bytes.baseAddress! + 12 == before)
        #expect(Array(buffer.bytes[12..<16]) == payload)
        #expect(buffer.bytes[0] == 0xA0 && buffer.bytes[31] == 0xB0)
        buffer.trimFront(12)
        buffer.trimBack(16)
        #expect(Array(buffer.bytes) == payload)
        #expect(!([UInt8](repeating: 0, count: 300).withUnsafeBytes { buffer.assign($0) }))
    }

    @Test("Buffers can be taken and released from several threads at once")
    func concurrentUse() async {
        let pool = PacketBufferPool(initialCount: 16)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<2000 {
                        if let buffer = pool.take() { pool.release(buffer) }
                    }
                }
            }
        }
        #expect(pool.availableCount == 16)
        #expect(pool.createdCount == 16)
    }
}
