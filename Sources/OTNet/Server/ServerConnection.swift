import Glibc

/// What the server knows about one accepted TCP socket: its TLS session, the HTTP request
/// reader or — after an upgrade — the WebSocket frame reader and peer, the bytes waiting
/// to be written, and the one deadline that drops it (TLS handshake, request head, idle
/// keep-alive, unauthenticated WebSocket, close handshake). Service thread only.
/// Cost: the buffered input of one request or frame, and the queued output.
final class ServerConnection {
    /// Where the connection is.
    enum Phase {
        /// The TLS handshake is running.
        case tlsHandshake
        /// Reading HTTP requests.
        case http
        /// A WebSocket.
        case webSocket
    }

    /// The key in the core's table and in epoll's event data (never reused, unlike descriptors).
    let serial: UInt64
    let descriptor: Int32
    /// `ip` and `ip:port` of the peer.
    let remoteIP: String
    let remoteAddress: String
    let tls: TLSSession?
    var phase: Phase
    var http: HTTPRequestReader
    var frames: WebSocketFrameReader?
    var peer: ServerPeer?

    /// Bytes waiting for the socket; `outputOffset` of them are already written.
    var output: [UInt8] = []
    var outputOffset = 0
    /// The file body being sent (`HTTPResponse.bodyFile`): `flush` reads its next chunk into
    /// `output` each time `output` has drained. No request is read meanwhile.
    var fileBody: FileBody?
    /// Close the socket once `output` is written.
    var closeAfterFlush = false
    /// The peer has ended its side (end of stream): nothing more will be read.
    var inputEnded = false
    /// False once the socket is closed: nothing more is done with it.
    var isOpen = true
    /// Reading stopped because the output is over the high-water mark; resumed when it drains.
    var readPaused = false
    /// TLS needs the socket writable before it can go on.
    var tlsWantsWrite = false
    /// HTTP: the first byte of the current request has arrived (its deadline is running).
    var requestStarted = false
    /// Epoll events currently registered.
    var registeredEvents: UInt32 = 0

    /// When (CLOCK_MONOTONIC nanoseconds) the connection is dropped; nil: no deadline.
    var deadline: UInt64?
    /// The deadline is the close handshake's: it is never lifted.
    var closeDeadlineArmed = false
    /// WebSocket: our close frame is queued or sent.
    var sentClose = false

    init(serial: UInt64, descriptor: Int32, remoteIP: String, remoteAddress: String, tls: TLSSession?, http: HTTPRequestReader) {
        self.serial = serial
        self.descriptor = descriptor
        self.remoteIP = remoteIP
        self.remoteAddress = remoteAddress
        self.tls = tls
        self.phase = tls == nil ? .http : .tlsHandshake
        self.http = http
    }

    /// Bytes queued and not yet written.
    var pendingOutput: Int { output.count - outputOffset }

    /// Marks `count` more bytes as written; empties the buffer once all are.
    func consumeOutput(_ count: Int) {
        outputOffset += count
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 256 << 10)
            outputOffset = 0
        } else if outputOffset >= 1 << 20 && outputOffset * 2 >= output.count {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
    }

    /// Sets the deadline to `at` unless the close deadline is already armed (it wins).
    func setDeadline(_ at: UInt64?) {
        guard !closeDeadlineArmed else { return }
        deadline = at
    }

    /// Arms the close deadline (once): the connection is dropped at `at` whatever happens.
    func armCloseDeadline(_ at: UInt64) {
        guard !closeDeadlineArmed else { return }
        closeDeadlineArmed = true
        deadline = min(deadline ?? at, at)
    }
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}
