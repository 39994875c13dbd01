import COpenSSL

/// AES-128-GCM for one SFrame key in one direction: an OpenSSL EVP cipher context keyed
/// once, then per frame only the nonce (salt XOR counter, RFC 9605 §4.4.3), the AAD
/// (header ‖ metadata), the data and the 16-byte tag.
///
/// Cost: `init` allocates the EVP context and expands the AES key (OpenSSL allocates);
/// `seal` and `open` allocate nothing (OpenSSL's GCM re-init with only an IV does not)
/// and cost the AES-GCM work plus five EVP calls.
/// Threads: one frame at a time (the EVP context is not thread-safe).
final class SFrameAESGCM {
    /// Which way the context works.
    let side: SFrameError.Side
    let suite: SFrameCipherSuite
    private let context: OpaquePointer
    /// The nonce under construction: the salt's first 4 bytes stay, the last 8 are
    /// rewritten per frame.
    private let nonce: UnsafeMutablePointer<UInt8>
    /// The salt's last 8 bytes as a big-endian number, XORed with the counter.
    private let saltTail: UInt64

    /// Keys a context with `schedule.key`; `side` decides encrypt or decrypt.
    init(schedule: SFrameKeySchedule, suite: SFrameCipherSuite, side: SFrameError.Side) throws(SFrameError) {
        guard schedule.key.count == suite.keyLength, schedule.salt.count == suite.nonceLength else {
            throw .cryptoFailure(side: side, "key schedule of the wrong length")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .cryptoFailure(side: side, "EVP_CIPHER_CTX_new") }
        let keyed = schedule.key.withUnsafeBufferPointer {
            EVP_CipherInit_ex(context, EVP_aes_128_gcm(), nil, $0.baseAddress, nil, side == .sender ? 1 : 0)
        }
        guard keyed == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(suite.nonceLength), nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .cryptoFailure(side: side, "EVP_CipherInit_ex (AES-128-GCM)")
        }
        self.context = context
        self.side = side
        self.suite = suite
        nonce = UnsafeMutablePointer<UInt8>.allocate(capacity: suite.nonceLength)
        nonce.initialize(from: schedule.salt, count: suite.nonceLength)
        saltTail = schedule.salt[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        nonce.update(repeating: 0, count: suite.nonceLength)
        nonce.deallocate()
    }

    /// Encrypts `plaintext` with nonce salt ⊕ `counter` and AAD `header` ‖ `metadata`,
    /// writing the ciphertext then the tag at `output` (room for `plaintext.count +
    /// tagLength` bytes is the caller's to check; `output` must not overlap the input).
    @inline(__always)
    func seal(counter: UInt64, header: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer,
              plaintext: UnsafeRawBufferPointer, output: UnsafeMutableRawPointer) throws(SFrameError) {
        guard start(counter: counter, header: header, metadata: metadata) else { throw .cryptoFailure(side: .sender, "GCM setup") }
        var written: Int32 = 0
        let out = output.assumingMemoryBound(to: UInt8.self)
        if plaintext.count > 0 {
            guard EVP_EncryptUpdate(context, out, &written, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Int32(plaintext.count)) == 1 else { throw .cryptoFailure(side: .sender, "EVP_EncryptUpdate") }
        }
        var tail: Int32 = 0
        guard EVP_EncryptFinal_ex(context, out + Int(written), &tail) == 1, Int(written + tail) == plaintext.count,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(suite.tagLength), output + plaintext.count) == 1 else {
            throw .cryptoFailure(side: .sender, "EVP_EncryptFinal_ex")
        }
    }

    /// Decrypts `ciphertext` (data ‖ tag, at least `tagLength` bytes) into `output` (room
    /// for `ciphertext.count − tagLength` bytes; no overlap). Throws
    /// `authenticationFailed` when the tag does not verify; `output` then holds bytes that
    /// must not be used.
    @inline(__always)
    func open(counter: UInt64, header: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer,
              ciphertext: UnsafeRawBufferPointer, output: UnsafeMutableRawPointer) throws(SFrameError) {
        let length = ciphertext.count - suite.tagLength
        guard start(counter: counter, header: header, metadata: metadata) else { throw .cryptoFailure(side: .receiver, "GCM setup") }
        let base = ciphertext.baseAddress!
        var written: Int32 = 0
        let out = output.assumingMemoryBound(to: UInt8.self)
        if length > 0 {
            guard EVP_DecryptUpdate(context, out, &written, base.assumingMemoryBound(to: UInt8.self), Int32(length)) == 1 else {
                throw .cryptoFailure(side: .receiver, "EVP_DecryptUpdate")
            }
        }
        // OpenSSL takes a non-const pointer for SET_TAG but only reads it.
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(suite.tagLength), UnsafeMutableRawPointer(mutating: base + length)) == 1 else {
            throw .cryptoFailure(side: .receiver, "EVP_CTRL_AEAD_SET_TAG")
        }
        var tail: Int32 = 0
        guard EVP_DecryptFinal_ex(context, out + Int(written), &tail) == 1 else { throw .authenticationFailed }
    }

    /// Sets the nonce for `counter` and feeds the AAD. False when OpenSSL refuses.
    @inline(__always)
    private func start(counter: UInt64, header: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer) -> Bool {
        UnsafeMutableRawPointer(nonce + 4).storeBytes(of: (saltTail ^ counter).bigEndian, as: UInt64.self)
        guard EVP_CipherInit_ex(context, nil, nil, nil, nonce, -1) == 1 else { return false }
        return feed(header) && feed(metadata)
    }

    /// Feeds AAD bytes (none is fine). False when OpenSSL refuses.
    @inline(__always)
    private func feed(_ aad: UnsafeRawBufferPointer) -> Bool {
        guard aad.count > 0 else { return true }
        var ignored: Int32 = 0
        return EVP_CipherUpdate(context, nil, &ignored, aad.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(aad.count)) == 1
    }
}
