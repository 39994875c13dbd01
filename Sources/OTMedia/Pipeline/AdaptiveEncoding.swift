/// One spatial encoding of an `AdaptiveVideoEncoder`: its VP8 encoder, its reused
/// scaling buffer, its quality ladder and controller, its frame-rate decimator and the
/// state it publishes.
///
/// Owned by the video thread (reference type so the per-frame loop mutates it in place
/// without copies). Cost: the encoder (a few MB at 720p) and one frame of its base size.
final class AdaptiveEncoding {
    /// Position in the encoder's list (0: the largest).
    let index: Int
    /// The size this encoding has at the ceiling (the capture size divided by 1, 2 or 4);
    /// the encoder is created at it, so every smaller size is set in place.
    let baseWidth: Int
    /// See `baseWidth`.
    let baseHeight: Int
    /// The libvpx encoder.
    let encoder: VP8Encoder
    /// Frames scaled for this encoding, reused for every frame (capacity of the base size).
    let scaled: VideoFrame
    /// How the ladder is derived (simulcast encodings keep their size: no heights).
    let ladderConfiguration: QualityLadder.Configuration
    /// The ladder below the current ceiling.
    var ladder: QualityLadder
    /// Walks `ladder` from the encoding's bitrate share.
    var controller: QualityController
    /// Drops captured frames evenly down to the rung's rate.
    var decimator: FrameRateDecimator
    /// False while the encoding is switched off (simulcast share too low, limit).
    var isActive = true
    /// The next frame this encoding encodes is a keyframe.
    var keyframePending = false
    /// Capture time of the last keyframe this encoding produced (nil: none yet).
    var lastKeyframeNanoseconds: UInt64?
    /// How long receivers' keyframe requests are ignored after that keyframe.
    var keyframeHoldNanoseconds: UInt64 = 0
    /// Frames this encoding encoded.
    var framesEncoded: UInt64 = 0
    /// The bitrate it was configured with (bps), used while there is no estimate.
    let configuredBitrate: Int
    /// What it produces now.
    var state: VideoEncodingState

    init(index: Int, ssrc: UInt32, settings: VP8EncoderSettings, sourceFrameRate: Double,
         ladderConfiguration: QualityLadder.Configuration, quality: QualityController.Configuration) throws(MediaError) {
        self.index = index
        baseWidth = settings.width
        baseHeight = settings.height
        encoder = try VP8Encoder(settings: settings)
        configuredBitrate = settings.bitrateKbps * 1000
        scaled = VideoFrame(width: settings.width, height: settings.height)
        self.ladderConfiguration = ladderConfiguration
        ladder = QualityLadder(ceilingWidth: settings.width, ceilingHeight: settings.height,
                               ceilingFrameRate: settings.frameRate, configuration: ladderConfiguration)
        controller = QualityController(ladder: ladder, configuration: quality)
        decimator = FrameRateDecimator(sourceFrameRate: sourceFrameRate)
        decimator.setFrameRate(settings.frameRate)
        state = VideoEncodingState(ssrc: ssrc, width: settings.width, height: settings.height, frameRate: settings.frameRate,
                                   bitrate: settings.bitrateKbps * 1000, isActive: true, rungIndex: 0)
    }

    /// Switches the encoder to `width`x`height` at `frameRate` and `bitrate` (bps).
    /// Each part is applied only when it changed. Cost: up to two libvpx reconfigurations.
    func apply(width: Int, height: Int, frameRate: Double, bitrate: Int, rungIndex: Int) throws(MediaError) {
        if frameRate != encoder.settings.frameRate { try encoder.setFrameRate(frameRate) }
        decimator.setFrameRate(frameRate)
        let kbps = min(100_000, max(1, bitrate / 1000))
        if kbps != encoder.settings.bitrateKbps { try encoder.setBitrate(kbps: kbps) }
        if width != encoder.settings.width || height != encoder.settings.height {
            try encoder.setResolution(width: width, height: height)
            scaled.reshape(width: width, height: height)
        }
        state.width = width
        state.height = height
        state.frameRate = frameRate
        state.bitrate = kbps * 1000
        state.rungIndex = rungIndex
    }

    /// Builds the ladder under a new ceiling and a fresh controller starting at the rung
    /// `share` fits (the ceiling when `share` is 0). Allocates the ladder: call on
    /// changes only.
    func rebuild(ceilingWidth: Int, ceilingHeight: Int, ceilingFrameRate: Double, share: Int,
                 quality: QualityController.Configuration) {
        ladder = QualityLadder(ceilingWidth: ceilingWidth, ceilingHeight: ceilingHeight,
                               ceilingFrameRate: ceilingFrameRate, configuration: ladderConfiguration)
        restartController(share: share, quality: quality)
    }

    /// A fresh controller on the current ladder (after the encoding was off, its timers
    /// are stale), starting at the rung `share` fits.
    func restartController(share: Int, quality: QualityController.Configuration) {
        controller = QualityController(ladder: ladder, configuration: quality,
                                       startRung: share > 0 ? ladder.highestRung(fitting: share) : 0)
    }
}
