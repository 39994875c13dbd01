import OTTestSupport

/// Real Chromium SDP for the router's browser tests: the captured vectors of
/// ``BrowserSDPVectors`` (in `OTTestSupport`, shared with the SDP suite's `SDPVectors`), not a
/// copy. The tests derive their variants from these by string replacement:
/// ``BrowserPeer/identify(_:)`` substitutes an `EdgeClient`'s ICE credentials and
/// fingerprint, and ``BrowserPeer/renumbered(_:)`` the payload types and header-extension ids
/// another browser build may choose, so what the router sees is a browser's offer with an
/// `EdgeClient`'s identity.
enum BrowserSDPFixture {
    /// Chromium's publisher offer: addTransceiver(audio/video, {direction: 'sendonly'}).
    /// Opus 111, VP8 96 + RTX 97; audio SSRC 2200770856, video 148646483 (RTX 1261301464).
    static let chromePublisher = BrowserSDPVectors.chromePublisher

    /// Chromium's answer to a router subscriber offer with audio mid 0 and video mid 1.
    static let chromeSubscriberAnswer = BrowserSDPVectors.chromeSubscriberAnswer

    /// Chromium's simulcast publisher offer: audio sendonly + video sendonly with
    /// sendEncodings rids q (÷4), h (÷2), f; the video section announces no SSRC.
    static let chromeSimulcast = BrowserSDPVectors.chromeSimulcast
}
