import OTMedia

/// What a peer decoded from an audio stream, measured from the 16-bit 48 kHz WAV it
/// wrote (read with `WAVFileSource`): length, level, the strongest tone
/// (`AudioAnalysis.dominantFrequency`) and how many 20 ms blocks are silent.
///
/// Test support. Cost: the whole file is read into memory (about 1 MB for 5 s stereo) and
/// analyzed once, O(n log n).
struct DecodedAudioSummary: CustomStringConvertible {
    /// Channels in the file.
    let channels: Int
    /// Samples per channel, after `skipSeconds`.
    let samplesPerChannel: Int
    /// RMS of channel 0 after `skipSeconds`, in sample units.
    let rms: Double
    /// The strongest frequency in channel 0 in Hz, or nil for silence or too few samples.
    let dominantFrequency: Double?
    /// 20 ms blocks of channel 0 (after `skipSeconds`) with an RMS under `silenceRMS`.
    let silentBlocks: Int
    /// The RMS under which a block counts as silent (about -60 dBFS).
    static let silenceRMS = 33.0

    /// Seconds of audio analyzed.
    var seconds: Double { Double(samplesPerChannel) / 48_000 }

    /// Reads and analyzes `wavPath`, ignoring its first `skipSeconds` (decoder start-up).
    init(wavPath: String, skipSeconds: Double = 0.1) throws(MediaError) {
        let source = try WAVFileSource(path: wavPath, frameMilliseconds: 20, paced: false)
        try source.start()
        defer { source.stop() }
        var mono: [Int16] = []
        while true {
            let frame: AudioFrame?
            do throws(MediaError) {
                frame = try source.nextFrame(timeoutMilliseconds: 0)
            } catch where error.code == .endOfStream {
                break
            }
            guard let frame else { continue }
            let channelCount = frame.format.channels
            for index in 0..<frame.samplesPerChannel { mono.append(frame.samples[index * channelCount]) }
        }
        // WAVFileSource pads the last frame with zeros: drop what the file did not hold.
        mono = Array(mono.prefix(source.samplesPerChannelInFile))
        let skipped = min(mono.count, Int(skipSeconds * 48_000))
        let kept = Array(mono[skipped...])
        channels = source.format.channels
        samplesPerChannel = kept.count
        rms = AudioAnalysis.rms(kept)
        dominantFrequency = AudioAnalysis.dominantFrequency(samples: kept, sampleRate: 48_000)
        var silent = 0
        var start = 0
        while start + 960 <= kept.count {
            if AudioAnalysis.rms(Array(kept[start..<(start + 960)])) < Self.silenceRMS { silent += 1 }
            start += 960
        }
        silentBlocks = silent
    }

    /// One line for test messages.
    var description: String {
        "\(String(format2: seconds)) s, \(channels) ch, RMS \(Int(rms)), peak "
            + "\(dominantFrequency.map { String(format2: $0) } ?? "none") Hz, silent 20 ms blocks \(silentBlocks)"
    }
}
