import CUDP
import Glibc

/// Scratch memory for one batched `recvmmsg`/`sendmmsg` call: the message headers and
/// I/O vectors for up to `capacity` datagrams, allocated once.
///
/// The socket is shared by the threads of a pipeline (the receive thread also sends RTCP
/// feedback), so the scratch belongs to the caller, not to the socket: each thread makes
/// its own batch and reuses it for every call. A batch must not be used by two threads at
/// once; it is `Sendable` only so it can be created on one thread and moved to another.
public final class UDPMessageBatch: @unchecked Sendable {
    /// The most datagrams one call can move (the kernel caps a call at UIO_MAXIOV = 1024).
    public let capacity: Int
    let messages: UnsafeMutablePointer<CUDPMessage>
    let vectors: UnsafeMutablePointer<iovec>
    /// Per message, room for the kernel's receive-timestamp and UDP_GRO control messages
    /// (received) or a UDP_SEGMENT one (sent).
    let controls: UnsafeMutableRawPointer
    let controlBytes: Int
    /// Per message of a segmented send, how many datagrams it carries.
    let segments: UnsafeMutablePointer<Int>

    /// Allocates headers for `capacity` datagrams (32 is a good batch for media: a video
    /// frame at 1200-byte packets rarely needs more). Cost: one allocation of about
    /// 120 bytes per datagram, here and never again.
    public init(capacity: Int = 32) {
        precondition(capacity >= 1 && capacity <= 1024, "a batch holds 1...1024 datagrams")
        self.capacity = capacity
        messages = .allocate(capacity: capacity)
        messages.initialize(repeating: CUDPMessage(), count: capacity)
        vectors = .allocate(capacity: capacity)
        vectors.initialize(repeating: iovec(), count: capacity)
        controlBytes = (max(Int(CUDP_receive_control_bytes()), Int(CUDP_segment_control_bytes())) + 7) & ~7
        controls = .allocate(byteCount: controlBytes * capacity, alignment: 8)
        segments = .allocate(capacity: capacity)
        segments.initialize(repeating: 0, count: capacity)
    }

    deinit {
        messages.deallocate()
        vectors.deallocate()
        controls.deallocate()
        segments.deallocate()
    }

    /// Points message `index` at the free part of `buffer` to receive into it.
    func prepareReceive(_ index: Int, _ buffer: PacketBuffer) {
        vectors[index] = iovec(iov_base: buffer.data + buffer.headroom, iov_len: buffer.capacity - buffer.headroom)
        messages[index] = CUDPMessage(
            header: msghdr(
                msg_name: buffer.addressPointer, msg_namelen: socklen_t(PacketBuffer.addressBytes),
                msg_iov: vectors + index, msg_iovlen: 1,
                msg_control: controls + index * controlBytes, msg_controllen: controlBytes, msg_flags: 0),
            length: 0)
    }

    /// The kernel's receive time of message `index` (CLOCK_REALTIME ns), nil when the
    /// socket does not ask for timestamps. Cost: a walk over its control messages.
    func kernelTimestamp(_ index: Int) -> Int64? {
        let stamp = withUnsafePointer(to: &messages[index].header) { CUDP_receive_timestamp($0) }
        return stamp >= 0 ? stamp : nil
    }

    /// Points message `index` at `buffer`'s packet bytes and its peer (none: connected peer).
    func prepareSend(_ index: Int, _ buffer: PacketBuffer) {
        vectors[index] = iovec(iov_base: buffer.data + buffer.start, iov_len: buffer.length)
        messages[index] = CUDPMessage(
            header: msghdr(
                msg_name: buffer.addressLength > 0 ? buffer.addressPointer : nil, msg_namelen: buffer.addressLength,
                msg_iov: vectors + index, msg_iovlen: 1,
                msg_control: nil, msg_controllen: 0, msg_flags: 0),
            length: 0)
    }

    /// Points message `index` at `buffers[first..<first+count]` (one I/O vector each, from
    /// vector `vector` on) sent to the first one's peer; with more than one, a UDP_SEGMENT
    /// control message of the first one's length makes the kernel cut them apart again
    /// (UDP GSO). The caller checked that they qualify (`segmentRun`).
    func prepareSegmentedSend(_ index: Int, _ buffers: [PacketBuffer], first: Int, count: Int, vector: Int) {
        let head = buffers[first]
        for offset in 0 ..< count {
            let buffer = buffers[first + offset]
            vectors[vector + offset] = iovec(iov_base: buffer.data + buffer.start, iov_len: buffer.length)
        }
        messages[index] = CUDPMessage(
            header: msghdr(
                msg_name: head.addressLength > 0 ? head.addressPointer : nil, msg_namelen: head.addressLength,
                msg_iov: vectors + vector, msg_iovlen: count,
                msg_control: nil, msg_controllen: 0, msg_flags: 0),
            length: 0)
        segments[index] = count
        if count > 1 {
            withUnsafeMutablePointer(to: &messages[index].header) {
                CUDP_set_segment_control($0, controls + index * controlBytes, UInt16(head.length))
            }
        }
    }

    /// The most datagrams one UDP GSO send carries (the kernel's UDP_MAX_SEGMENTS, 64 on
    /// older kernels) and the most bytes (an IP packet's 64 KB less headers, rounded down).
    static let maximumSegments = 64
    static let maximumSegmentedBytes = 60_000

    /// How many of `buffers[first..<limit]` can go out as one segmented datagram: the same
    /// peer and the same length as the first (the last of a run may be shorter), at most
    /// `maximumSegments` and `maximumSegmentedBytes`. At least 1. Cost: a length and an
    /// address comparison per buffer.
    static func segmentRun(_ buffers: [PacketBuffer], first: Int, limit: Int) -> Int {
        let head = buffers[first]
        let size = head.length
        guard size > 0 else { return 1 }
        let most = min(limit - first, maximumSegments, maximumSegmentedBytes / size)
        var count = 1
        while count < most {
            let next = buffers[first + count]
            guard next.length <= size, next.length > 0, next.addressLength == head.addressLength,
                  memcmp(next.addressPointer, head.addressPointer, Int(head.addressLength)) == 0 else { break }
            count += 1
            if next.length < size { break }  // a shorter one ends the run
        }
        return count
    }

    /// Copies what the kernel reported for message `index` into `buffer`; with
    /// `coalescing`, also the message's UDP_GRO segment size. A coalesced message whose
    /// control data was cut (MSG_CTRUNC) cannot be split safely and counts as truncated.
    func finishReceive(_ index: Int, _ buffer: PacketBuffer, timestamp: UInt64, coalescing: Bool) {
        let message = messages[index]
        let flags = message.header.msg_flags
        buffer.setReceived(
            length: Int(message.length),
            addressLength: message.header.msg_namelen,
            truncated: flags & Int32(MSG_TRUNC) != 0 || (coalescing && flags & Int32(MSG_CTRUNC) != 0),
            timestamp: timestamp)
        if coalescing {
            buffer.segmentSize = Int(withUnsafePointer(to: &messages[index].header) { CUDP_receive_segment_size($0) })
        }
    }
}

extension PacketBuffer {
    /// Records a datagram the kernel wrote at the headroom offset.
    func setReceived(length: Int, addressLength: socklen_t, truncated: Bool, timestamp: UInt64) {
        reset()
        setLength(length)
        self.addressLength = addressLength
        isTruncated = truncated
        receiveTimestamp = timestamp
    }
}
