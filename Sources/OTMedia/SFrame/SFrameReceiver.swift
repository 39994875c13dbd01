/// One subscriber's SFrame decryption (RFC 9605): reads each frame's header, finds the
/// key of its KID — derived from the session's base key the first time that KID
/// authenticates — checks the KID's replay window, and decrypts into a buffer the
/// caller owns.
///
/// Every sender of a session shares the base key and has its own KID, so the receiver
/// can derive any sender's key; it keeps up to `keyCapacity` KIDs (the least recently
/// used goes when a new one authenticates). A KID enters the table only once a frame
/// under it verifies, so forged headers cannot push genuine keys out; the key last
/// derived for an unknown KID is kept aside, so a publisher whose secret differs costs
/// one derivation, not one per frame.
///
/// Errors (`SFrameError`): a frame that does not authenticate, or is not an SFrame at
/// all, is `authenticationFailed` / `truncatedHeader` / `nonMinimalHeader` /
/// `truncatedCiphertext` (6003, the secret mismatch); a replay is `replayed` or `tooOld`
/// (dropped quietly). The output buffer's bytes are never to be used after an error.
///
/// Cost: per frame of a known KID nothing is allocated: a header parse, a linear search of
/// the few KIDs, AES-GCM over the frame. A new KID costs a derivation (HKDF, ~5 µs) and an
/// EVP context. Threads: one frame at a time; `@unchecked Sendable` so it can be handed to
/// the subscriber's thread.
public final class SFrameReceiver: @unchecked Sendable {
    /// What `decrypt` produced: the header it read and the plaintext's length.
    public struct Decrypted: Sendable, Equatable {
        /// KID and CTR of the frame.
        public let header: SFrameHeader
        /// Bytes of plaintext written at the start of the output buffer.
        public let length: Int
    }

    /// One KID's key, salt (inside the cipher) and replay window.
    private final class Entry {
        let keyID: UInt64
        let cipher: SFrameAESGCM
        var window = SFrameReplayWindow()
        var lastUse: UInt64 = 0
        init(keyID: UInt64, cipher: SFrameAESGCM) {
            self.keyID = keyID
            self.cipher = cipher
        }
    }

    /// KIDs kept by default: a subscriber sees one publisher, whose KID changes rarely.
    public static let defaultKeyCapacity = 8

    /// The cipher suite (AES_128_GCM_SHA256_128).
    public let suite: SFrameCipherSuite
    /// How many KIDs the table holds.
    public let keyCapacity: Int
    private var baseKey: SFrameBaseKey
    private var entries: [Entry] = []
    /// The key derived for a KID whose frames have not authenticated (yet).
    private var candidate: Entry?
    private var uses: UInt64 = 0

    /// A receiver for frames under `baseKey`, keeping up to `keyCapacity` (≥ 1) KIDs.
    public init(baseKey: SFrameBaseKey, suite: SFrameCipherSuite = .aes128GCMSHA256, keyCapacity: Int = SFrameReceiver.defaultKeyCapacity) {
        self.baseKey = baseKey
        self.suite = suite
        self.keyCapacity = max(1, keyCapacity)
        entries.reserveCapacity(self.keyCapacity)
    }

    /// Switches to another base key (the encryption secret changed): every KID's key and
    /// replay window is forgotten; frames still under the old key stop decrypting.
    public func replaceBaseKey(_ baseKey: SFrameBaseKey) {
        self.baseKey = baseKey
        entries.removeAll(keepingCapacity: true)
        candidate = nil
    }

    /// Decrypts the SFrame ciphertext `sframe` (header ‖ ciphertext ‖ tag) into `output`
    /// (at least `sframe.count − header − 16` bytes; must not overlap `sframe`) with the
    /// same `metadata` the sender authenticated. Returns the header and plaintext length.
    @inline(__always)
    public func decrypt(_ sframe: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                        into output: UnsafeMutableRawBufferPointer) throws(SFrameError) -> Decrypted {
        let (header, headerLength) = try SFrameHeader.parse(sframe)
        let ciphertextLength = sframe.count - headerLength
        guard ciphertextLength >= suite.tagLength else {
            throw .truncatedCiphertext(length: ciphertextLength, tag: suite.tagLength)
        }
        let plaintextLength = ciphertextLength - suite.tagLength
        guard output.count >= plaintextLength, ciphertextLength <= Int(Int32.max), metadata.count <= Int(Int32.max) else {
            throw .bufferTooSmall(side: .receiver, needed: plaintextLength, available: output.count)
        }
        let base = sframe.baseAddress!
        let headerBytes = UnsafeRawBufferPointer(start: base, count: headerLength)
        let ciphertext = UnsafeRawBufferPointer(start: base + headerLength, count: ciphertextLength)
        // A zero-length plaintext may come with an empty output buffer; OpenSSL writes nothing then.
        let out = output.baseAddress ?? UnsafeMutableRawPointer(mutating: base)
        uses &+= 1

        if let entry = find(header.keyID) {
            switch entry.window.check(header.counter) {
            case .fresh: break
            case .replayed: throw .replayed(keyID: header.keyID, counter: header.counter)
            case .tooOld: throw .tooOld(keyID: header.keyID, counter: header.counter)
            }
            try entry.cipher.open(counter: header.counter, header: headerBytes, metadata: metadata, ciphertext: ciphertext, output: out)
            entry.window.accept(header.counter)
            entry.lastUse = uses
            return Decrypted(header: header, length: plaintextLength)
        }

        let entry = try candidateEntry(for: header.keyID)
        try entry.cipher.open(counter: header.counter, header: headerBytes, metadata: metadata, ciphertext: ciphertext, output: out)
        candidate = nil
        entry.window.accept(header.counter)
        entry.lastUse = uses
        admit(entry)
        return Decrypted(header: header, length: plaintextLength)
    }

    /// The KIDs whose frames have authenticated, most recent first (diagnostics). Allocates.
    public var knownKeyIDs: [UInt64] { entries.sorted { $0.lastUse > $1.lastUse }.map(\.keyID) }

    /// An index loop, not `for in`: the unspecialized iterator of a debug build allocates.
    @inline(__always)
    private func find(_ keyID: UInt64) -> Entry? {
        var index = 0
        while index < entries.count {
            if entries[index].keyID == keyID { return entries[index] }
            index += 1
        }
        return nil
    }

    /// The kept-aside key of `keyID`, derived now if the one kept is another KID's.
    private func candidateEntry(for keyID: UInt64) throws(SFrameError) -> Entry {
        if let candidate, candidate.keyID == keyID { return candidate }
        let schedule: SFrameKeySchedule
        do { schedule = try SFrameKeySchedule(baseKey: baseKey.bytes, keyID: keyID, suite: suite) } catch {
            throw .cryptoFailure(side: .receiver, "\(error)")
        }
        let entry = Entry(keyID: keyID, cipher: try SFrameAESGCM(schedule: schedule, suite: suite, side: .receiver))
        candidate = entry
        return entry
    }

    /// Puts an authenticated KID in the table, in place of the least recently used when full.
    private func admit(_ entry: Entry) {
        if entries.count < keyCapacity {
            entries.append(entry)
            return
        }
        var oldest = 0
        for index in entries.indices where entries[index].lastUse < entries[oldest].lastUse { oldest = index }
        entries[oldest] = entry
    }
}
