import Glibc

/// The parts of a RIFF/WAVE header the engine uses, plus the reader and writer for them.
///
/// Reading walks the chunk list (`fmt `, `data`, and any others, which are skipped) and
/// accepts only what the engine runs natively: PCM (tag 1, or WAVE_FORMAT_EXTENSIBLE with
/// the PCM sub-format), 16-bit, 48 kHz, mono or stereo. Samples are little-endian on
/// disk and in memory (OTKit's Linux targets, x86-64 and arm64, are little-endian).
/// Cost: a few `pread`s and small allocations when a file is opened; nothing per frame.
struct WAVHeader: Equatable {
    var channels: Int
    var sampleRate: Int
    var bitsPerSample: Int
    /// File offset of the first sample.
    var dataOffset: Int
    /// Bytes of samples (clamped to the file's length).
    var dataBytes: Int

    /// Bytes of the canonical header `canonical` writes.
    static let canonicalSize = 44

    /// Reads and checks the header of the open file `fd` (named `path` in messages).
    /// - Throws: `malformedInput` for a file that is not RIFF/WAVE or is cut short,
    ///   `unsupportedFormat` for WAVE data the engine does not take (not PCM, not 16-bit,
    ///   not 48 kHz, not 1–2 channels).
    static func read(fd: Int32, path: String) throws(MediaError) -> WAVHeader {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw MediaError(.systemError, "cannot stat '\(path)': \(String(cString: strerror(errno)))")
        }
        let fileSize = Int(info.st_size)
        let riff = bytes(fd, at: 0, count: 12)
        guard riff.count == 12 else {
            throw MediaError(.malformedInput, "'\(path)' is not a WAV file: \(fileSize) bytes is shorter than a RIFF header")
        }
        let tag = String(decoding: riff[0..<4], as: UTF8.self)
        guard tag == "RIFF" else {
            if tag == "RF64" || tag == "RIFX" {
                throw MediaError(.unsupportedFormat, "'\(path)' is a \(tag) file; OTKit reads little-endian RIFF WAVE (16-bit PCM, 48 kHz)")
            }
            throw MediaError(.malformedInput, "'\(path)' is not a WAV file (no RIFF header)")
        }
        guard String(decoding: riff[8..<12], as: UTF8.self) == "WAVE" else {
            throw MediaError(.malformedInput, "'\(path)' is a RIFF file but not WAVE audio")
        }

        var format: (tag: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int)?
        var offset = 12
        while true {
            let chunk = bytes(fd, at: offset, count: 8)
            guard chunk.count == 8 else {
                throw MediaError(.malformedInput, "'\(path)' is truncated: it ends before the \(format == nil ? "fmt" : "data") chunk")
            }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let size = Int(uint32(chunk, 4))
            let body = offset + 8
            switch id {
            case "fmt ":
                guard size >= 16 else {
                    throw MediaError(.malformedInput, "'\(path)' has a \(size)-byte fmt chunk; WAVE needs at least 16")
                }
                let fields = bytes(fd, at: body, count: min(size, 40))
                guard fields.count == min(size, 40) else {
                    throw MediaError(.malformedInput, "'\(path)' is truncated inside its fmt chunk")
                }
                var formatTag = Int(uint16(fields, 0))
                if formatTag == 0xFFFE && fields.count >= 26 {
                    formatTag = Int(uint16(fields, 24))  // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the tag
                }
                format = (formatTag, Int(uint16(fields, 2)), Int(uint32(fields, 4)), Int(uint16(fields, 12)), Int(uint16(fields, 14)))
            case "data":
                guard let format else {
                    throw MediaError(.malformedInput, "'\(path)' has its data chunk before the fmt chunk")
                }
                try check(format, path: path)
                let available = max(0, fileSize - body)
                let length = size == 0xFFFF_FFFF ? available : min(size, available)
                return WAVHeader(channels: format.channels, sampleRate: format.rate, bitsPerSample: format.bits,
                                 dataOffset: body, dataBytes: length - length % (format.channels * 2))
            default:
                break
            }
            offset = body + size + (size & 1)
        }
    }

    private static func check(_ format: (tag: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int), path: String) throws(MediaError) {
        guard format.tag == 1 else {
            let name = [3: "IEEE float", 6: "A-law", 7: "µ-law", 2: "ADPCM", 0x55: "MP3"][format.tag].map { " (\($0))" } ?? ""
            throw MediaError(.unsupportedFormat, "'\(path)' holds WAVE format \(format.tag)\(name); OTKit reads 16-bit PCM (convert with: ffmpeg -i IN -ar 48000 -c:a pcm_s16le OUT.wav)")
        }
        guard format.bits == 16 else {
            throw MediaError(.unsupportedFormat, "'\(path)' is \(format.bits)-bit PCM; OTKit reads 16-bit PCM (convert with: ffmpeg -i IN -ar 48000 -c:a pcm_s16le OUT.wav)")
        }
        guard format.rate == 48_000 else {
            throw MediaError(.unsupportedFormat, "'\(path)' is sampled at \(format.rate) Hz; OTKit reads 48000 Hz (resample with: ffmpeg -i IN -ar 48000 -c:a pcm_s16le OUT.wav)")
        }
        guard format.channels == 1 || format.channels == 2 else {
            throw MediaError(.unsupportedFormat, "'\(path)' has \(format.channels) channels; OTKit reads mono or stereo")
        }
        guard format.blockAlign == format.channels * 2 else {
            throw MediaError(.malformedInput, "'\(path)' has block align \(format.blockAlign); 16-bit PCM with \(format.channels) channel(s) needs \(format.channels * 2)")
        }
    }

    /// The 44-byte header of a 16-bit PCM file with `dataBytes` bytes of samples.
    static func canonical(channels: Int, sampleRate: Int, dataBytes: UInt32) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(canonicalSize)
        func text(_ value: String) { out.append(contentsOf: Array(value.utf8)) }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        text("RIFF"); u32(36 &+ dataBytes); text("WAVE")
        text("fmt "); u32(16); u16(1); u16(UInt16(channels)); u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * channels * 2)); u16(UInt16(channels * 2)); u16(16)
        text("data"); u32(dataBytes)
        return out
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    private static func bytes(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return Array(out[0..<got])
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(uint16(bytes, at)) | UInt32(uint16(bytes, at + 2)) << 16
    }
}

/// errno's text for messages about `path`, with the code the engine uses for it.
func wavFileError(_ action: String, _ path: String, _ code: Int32) -> MediaError {
    let text = "\(action) '\(path)': \(String(cString: strerror(code)))"
    switch code {
    case ENOENT: return MediaError(.noSuchDevice, text)
    case EACCES, EPERM: return MediaError(.permissionDenied, text)
    default: return MediaError(.systemError, text)
    }
}
