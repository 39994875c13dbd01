import OTTestSupport

/// SDP test vectors: the captured browser ones (``BrowserSDPVectors``, in `OTTestSupport`,
/// shared with the router's browser tests; see there how they were captured) and the RFC
/// examples. Stored with LF here; ``crlf(_:)`` restores CRLF line endings.
enum SDPVectors {
    /// `text` with each line ended by CRLF (a Swift multi-line literal has LF and no final one).
    static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") + "\r\n"
    }

    /// ``BrowserSDPVectors/chromePublisher``.
    static let chromePublisher = BrowserSDPVectors.chromePublisher
    /// ``BrowserSDPVectors/chromeSimulcast``.
    static let chromeSimulcast = BrowserSDPVectors.chromeSimulcast
    /// ``BrowserSDPVectors/chromeH264AndDataChannel``.
    static let chromeH264AndDataChannel = BrowserSDPVectors.chromeH264AndDataChannel
    /// ``BrowserSDPVectors/chromeAddTrack``.
    static let chromeAddTrack = BrowserSDPVectors.chromeAddTrack
    /// ``BrowserSDPVectors/firefoxPublisher``.
    static let firefoxPublisher = BrowserSDPVectors.firefoxPublisher
    /// ``BrowserSDPVectors/firefoxSimulcast``.
    static let firefoxSimulcast = BrowserSDPVectors.firefoxSimulcast
    /// ``BrowserSDPVectors/chromeSubscriberAnswer``.
    static let chromeSubscriberAnswer = BrowserSDPVectors.chromeSubscriberAnswer
    /// ``BrowserSDPVectors/firefoxSubscriberAnswer``.
    static let firefoxSubscriberAnswer = BrowserSDPVectors.firefoxSubscriberAnswer

    /// RFC 8829 (JSEP) §7.1's offer, as web-platform-tests carries it (fingerprint on one
    /// line, candidate lines left out; the RFC's RTP host candidate of the video section put back,
    /// with `a=end-of-candidates`): sendrecv Opus 96 + VP8 100 / RTX 101, a different
    /// ufrag per section, BUNDLE and LS groups.
    static let rfc8829Offer = crlf(#"""
v=0
o=- 4962303333179871722 1 IN IP4 0.0.0.0
s=-
t=0 0
a=ice-options:trickle
a=group:BUNDLE a1 v1
a=group:LS a1 v1
m=audio 10100 UDP/TLS/RTP/SAVPF 96 0 8 97 98
c=IN IP4 203.0.113.100
a=mid:a1
a=sendrecv
a=rtpmap:96 opus/48000/2
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:97 telephone-event/8000
a=rtpmap:98 telephone-event/48000
a=maxptime:120
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=msid:47017fee-b6c1-4162-929c-a25110252400 f83006c5-a0ff-4e0a-9ed9-d3e6747be7d9
a=ice-ufrag:ETEn
a=ice-pwd:OtSK0WpNtpUjkY4+86js7ZQl
a=fingerprint:sha-256 19:E2:1C:3B:4B:9F:81:E6:B8:5C:F4:A5:A8:D8:73:04:BB:05:2F:70:9F:04:A9:0E:05:E9:26:33:E8:70:88:A2
a=setup:actpass
a=dtls-id:1
a=rtcp:10101 IN IP4 203.0.113.100
a=rtcp-mux
a=rtcp-rsize
m=video 10102 UDP/TLS/RTP/SAVPF 100 101
c=IN IP4 203.0.113.100
a=mid:v1
a=sendrecv
a=rtpmap:100 VP8/90000
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=msid:47017fee-b6c1-4162-929c-a25110252400 f30bdb4a-5db8-49b5-bcdc-e0c9a23172e0
a=ice-ufrag:BGKk
a=ice-pwd:mqyWsAjvtKwTGnvhPztQ9mIf
a=fingerprint:sha-256 19:E2:1C:3B:4B:9F:81:E6:B8:5C:F4:A5:A8:D8:73:04:BB:05:2F:70:9F:04:A9:0E:05:E9:26:33:E8:70:88:A2
a=setup:actpass
a=dtls-id:1
a=rtcp:10103 IN IP4 203.0.113.100
a=rtcp-mux
a=rtcp-rsize
a=candidate:1 1 udp 2113929471 203.0.113.100 10102 typ host
a=end-of-candidates
"""#)

    /// RFC 8866 §5's example session description (every optional session line type:
    /// `i= u= e= p= c=`; a section with its own `c=`).
    static let rfc8866Example = crlf(#"""
v=0
o=jdoe 3724394400 3724394405 IN IP4 198.51.100.1
s=Call to John Smith
i=SDP Offer #1
u=http://www.jdoe.example.com/home.html
e=Jane Doe <jane@jdoe.example.com>
p=+1 617 555-6011
c=IN IP4 198.51.100.1
t=0 0
m=audio 49170 RTP/AVP 0
m=audio 49180 RTP/AVP 0
m=video 51372 RTP/AVP 99
c=IN IP6 2001:db8::2
a=rtpmap:99 h263-1998/90000
"""#)

    /// Every vector, named, for table-driven tests.
    static let all: [(String, String)] = [
        ("chromePublisher", chromePublisher), ("chromeSimulcast", chromeSimulcast),
        ("chromeH264AndDataChannel", chromeH264AndDataChannel), ("chromeAddTrack", chromeAddTrack),
        ("firefoxPublisher", firefoxPublisher), ("firefoxSimulcast", firefoxSimulcast),
        ("chromeSubscriberAnswer", chromeSubscriberAnswer), ("firefoxSubscriberAnswer", firefoxSubscriberAnswer), ("rfc8829Offer", rfc8829Offer), ("rfc8866Example", rfc8866Example),
    ]
}
