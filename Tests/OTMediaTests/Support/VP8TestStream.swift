import OTMedia

/// A copied-out encoded VP8 frame, for tests that decode after the encode callback.
struct StoredVP8Frame {
    var bytes: [UInt8]
    var isKeyframe: Bool
    var temporalLayer: Int
    var layerSync: Bool
    var isNonReference: Bool
    var timestampNanoseconds: UInt64
    var width: Int
    var height: Int
    /// The source frame number.
    var index: Int

    init(_ frame: EncodedVideoFrame, index: Int) {
        bytes = Array(frame.data)
        isKeyframe = frame.isKeyframe
        temporalLayer = frame.temporalLayer
        layerSync = frame.layerSync
        isNonReference = frame.isNonReference
        timestampNanoseconds = frame.timestampNanoseconds
        width = frame.width
        height = frame.height
        self.index = index
    }
}

extension VP8Encoder {
    /// Encodes synthetic frames `range` at the encoder's size and returns copies.
    func encodeSynthetic(_ range: Range<Int>, forceKeyframeAt keyframes: Set<Int> = []) throws -> [StoredVP8Frame] {
        let source = VideoFrame(width: settings.width, height: settings.height)
        var out: [StoredVP8Frame] = []
        for t in range {
            SyntheticVideo.draw(t, into: source)
            try encode(source, forceKeyframe: keyframes.contains(t)) { out.append(StoredVP8Frame($0, index: t)) }
        }
        return out
    }
}

extension VP8Decoder {
    /// Decodes a stored frame.
    func decode(_ frame: StoredVP8Frame) throws(MediaError) -> VideoFrame? {
        try decode(bytes: frame.bytes, timestampNanoseconds: frame.timestampNanoseconds)
    }

    /// Decodes bytes held in an array, keeping the typed error.
    func decode(bytes: [UInt8], timestampNanoseconds: UInt64 = 0) throws(MediaError) -> VideoFrame? {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(MediaError) -> VideoFrame? in try decode(raw, timestampNanoseconds: timestampNanoseconds) }
        }
        return try result.get()
    }
}
