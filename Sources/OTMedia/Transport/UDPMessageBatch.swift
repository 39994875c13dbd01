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
    /// Per message, room for the kernel's receive-timestamp control message.
    let controls: UnsafeMutableRawPointer
    let controlBytes: Int

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
        controlBytes = Int(CUDP_timestamp_control_bytes())
        controls = .allocate(byteCount: controlBytes * capacity, alignment: 8)
    }

    deinit {
        messages.deallocate()
        vectors.deallocate()
        controls.deallocate()
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

    /// Copies what the kernel reported for message `index` into `buffer`.
    func finishReceive(_ index: Int, _ buffer: PacketBuffer, timestamp: UInt64) {
        let message = messages[index]
        buffer.setReceived(
            length: Int(message.length),
            addressLength: message.header.msg_namelen,
            truncated: message.header.msg_flags & Int32(MSG_TRUNC) != 0,
            timestamp: timestamp)
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
