/// Captured browser SDP: the Chromium and Firefox vectors shared by the SDP suite
/// (`OTSignalingTests`' `SDPVectors`) and the router's browser tests (`OTRouterTests`'
/// `BrowserSDP` suites, which substitute credentials and renumber them), kept here once.
///
/// The Chromium ones are real offers, captured on this machine from Debian's `chromium`
/// 156.0.8078.114 (headless: `--headless=new --no-sandbox --use-fake-device-for-media-stream
/// --use-fake-ui-for-media-stream --allow-loopback-in-peer-connection
/// --disable-features=WebRtcHideLocalIpsWithMdns --enable-logging=stderr --v=0`, in a
/// loopback-only network namespace) from a page served by `python3 -m http.server` on
/// 127.0.0.1 that ran `getUserMedia({audio, video})` on the fake devices, built the
/// transceivers named on each vector, `createOffer` + `setLocalDescription`, waited for ICE
/// gathering to complete and `console.log`ged `pc.localDescription.sdp`; the CONSOLE line
/// was taken from chromium's stderr. Stored with LF here; ``crlf(_:)`` restores the CRLF
/// line endings the browser wrote.
public enum BrowserSDPVectors {
    /// `text` with each line ended by CRLF (a Swift multi-line literal has LF and no final one).
    public static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") + "\r\n"
    }

    /// addTransceiver(audio/video, {direction: 'sendonly'}).
    public static let chromePublisher = crlf(#"""
v=0
o=- 100381190153904393 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS bcc16336-8b2d-451c-92a1-1583e1a8f3c5
m=audio 60823 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:581881551 1 udp 2122260223 127.0.0.1 60823 typ host generation 0 network-id 1 network-cost 50
a=candidate:1549872215 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:3S4b
a=ice-pwd:1cZPRfRnli5jjAtV4ZWFa+mb
a=ice-options:trickle
a=fingerprint:sha-256 4D:B9:0B:E7:21:89:0E:0D:A5:0A:50:28:38:91:57:71:56:E4:02:39:8B:15:65:9E:AB:0F:00:93:AE:41:0F:9A
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendonly
a=msid:bcc16336-8b2d-451c-92a1-1583e1a8f3c5 e9673527-6c18-4463-9f50-57cb9f396f1d
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:2200770856 cname:IjYbTCnwgt2F/OT5
a=ssrc:2200770856 msid:bcc16336-8b2d-451c-92a1-1583e1a8f3c5 e9673527-6c18-4463-9f50-57cb9f396f1d
m=video 51978 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:581881551 1 udp 2122260223 127.0.0.1 51978 typ host generation 0 network-id 1 network-cost 50
a=candidate:1549872215 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:3S4b
a=ice-pwd:1cZPRfRnli5jjAtV4ZWFa+mb
a=ice-options:trickle
a=fingerprint:sha-256 4D:B9:0B:E7:21:89:0E:0D:A5:0A:50:28:38:91:57:71:56:E4:02:39:8B:15:65:9E:AB:0F:00:93:AE:41:0F:9A
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=sendonly
a=msid:bcc16336-8b2d-451c-92a1-1583e1a8f3c5 73bb69fa-171a-4fd7-a4cc-c456f0429df1
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=ssrc-group:FID 148646483 1261301464
a=ssrc:148646483 cname:IjYbTCnwgt2F/OT5
a=ssrc:148646483 msid:bcc16336-8b2d-451c-92a1-1583e1a8f3c5 73bb69fa-171a-4fd7-a4cc-c456f0429df1
a=ssrc:1261301464 cname:IjYbTCnwgt2F/OT5
a=ssrc:1261301464 msid:bcc16336-8b2d-451c-92a1-1583e1a8f3c5 73bb69fa-171a-4fd7-a4cc-c456f0429df1
"""#)

    /// audio sendonly + video sendonly with sendEncodings rids q (÷4), h (÷2), f.
    public static let chromeSimulcast = crlf(#"""
v=0
o=- 1523016330491069675 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS a5499e95-b378-4bdd-aee2-4f9835447c33
m=audio 48973 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:612767703 1 udp 2122260223 127.0.0.1 48973 typ host generation 0 network-id 1 network-cost 50
a=candidate:3660366659 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:3EtR
a=ice-pwd:KYbGgVufw04kbntg8pfbwS/I
a=ice-options:trickle
a=fingerprint:sha-256 98:4A:45:0A:60:FB:B6:33:4D:69:BC:C9:9E:C2:A2:D3:E3:A5:0E:86:2E:6D:A1:1B:33:71:48:5F:25:FB:3D:B9
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendonly
a=msid:a5499e95-b378-4bdd-aee2-4f9835447c33 752cdeef-3501-47b3-a2e6-e9fd61c91967
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:2189941903 cname:NzSdI5aFi7ZCRbR5
a=ssrc:2189941903 msid:a5499e95-b378-4bdd-aee2-4f9835447c33 752cdeef-3501-47b3-a2e6-e9fd61c91967
m=video 41487 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:612767703 1 udp 2122260223 127.0.0.1 41487 typ host generation 0 network-id 1 network-cost 50
a=candidate:3660366659 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:3EtR
a=ice-pwd:KYbGgVufw04kbntg8pfbwS/I
a=ice-options:trickle
a=fingerprint:sha-256 98:4A:45:0A:60:FB:B6:33:4D:69:BC:C9:9E:C2:A2:D3:E3:A5:0E:86:2E:6D:A1:1B:33:71:48:5F:25:FB:3D:B9
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=extmap:12 https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension
a=extmap:9 http://www.webrtc.org/experiments/rtp-hdrext/video-layers-allocation00
a=sendonly
a=msid:a5499e95-b378-4bdd-aee2-4f9835447c33 9b57f59b-d700-4a24-8761-b29317a7e220
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=rid:q send
a=rid:h send
a=rid:f send
a=simulcast:send q;h;f
"""#)

    /// audio sendonly + video sendonly restricted to H.264 (+rtx) by setCodecPreferences + createDataChannel('chat').
    public static let chromeH264AndDataChannel = crlf(#"""
v=0
o=- 7499505954200340010 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1 2
a=extmap-allow-mixed
a=msid-semantic: WMS b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8
m=audio 34503 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:2891081266 1 udp 2122260223 127.0.0.1 34503 typ host generation 0 network-id 1 network-cost 50
a=candidate:1392030374 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:YIjc
a=ice-pwd:41+/B3Pxafg6rh2T5mmQZpKe
a=ice-options:trickle
a=fingerprint:sha-256 27:DC:26:E6:AE:91:E9:AB:29:A4:E2:65:5C:44:79:E2:3C:1A:E6:C3:3A:7A:2F:FC:92:AF:26:8C:D7:11:26:C8
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendonly
a=msid:b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8 913e93b8-67c8-4a8b-b37c-4e829b4ce519
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:1746964171 cname:CbYL7m1eB6xp1X9y
a=ssrc:1746964171 msid:b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8 913e93b8-67c8-4a8b-b37c-4e829b4ce519
m=video 44064 UDP/TLS/RTP/SAVPF 102 103 104 107 108 109 114 115 116 117 39 40
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:2891081266 1 udp 2122260223 127.0.0.1 44064 typ host generation 0 network-id 1 network-cost 50
a=candidate:1392030374 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:YIjc
a=ice-pwd:41+/B3Pxafg6rh2T5mmQZpKe
a=ice-options:trickle
a=fingerprint:sha-256 27:DC:26:E6:AE:91:E9:AB:29:A4:E2:65:5C:44:79:E2:3C:1A:E6:C3:3A:7A:2F:FC:92:AF:26:8C:D7:11:26:C8
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=sendonly
a=msid:b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8 24c41d45-c63c-4d38-934d-414f0211fe77
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=ssrc-group:FID 2066265140 677334250
a=ssrc:2066265140 cname:CbYL7m1eB6xp1X9y
a=ssrc:2066265140 msid:b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8 24c41d45-c63c-4d38-934d-414f0211fe77
a=ssrc:677334250 cname:CbYL7m1eB6xp1X9y
a=ssrc:677334250 msid:b6a099fa-6e9b-45e8-a2bc-22a9a997c7b8 24c41d45-c63c-4d38-934d-414f0211fe77
m=application 35128 UDP/DTLS/SCTP webrtc-datachannel
c=IN IP4 127.0.0.1
a=candidate:2891081266 1 udp 2122260223 127.0.0.1 35128 typ host generation 0 network-id 1 network-cost 50
a=candidate:1392030374 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:YIjc
a=ice-pwd:41+/B3Pxafg6rh2T5mmQZpKe
a=ice-options:trickle
a=fingerprint:sha-256 27:DC:26:E6:AE:91:E9:AB:29:A4:E2:65:5C:44:79:E2:3C:1A:E6:C3:3A:7A:2F:FC:92:AF:26:8C:D7:11:26:C8
a=setup:actpass
a=mid:2
a=sctp-port:5000
a=max-message-size:262144
"""#)

    /// pc.addTrack(audio), pc.addTrack(video): sendrecv sections.
    public static let chromeAddTrack = crlf(#"""
v=0
o=- 6395571393350302076 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS 5bc85193-ddf9-424c-a3b6-2a3d2d385328
m=audio 42447 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:1999103377 1 udp 2122260223 127.0.0.1 42447 typ host generation 0 network-id 1 network-cost 50
a=candidate:166201097 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:HTHc
a=ice-pwd:lVLmcYK1iNbfUcDwFAFBVIxq
a=ice-options:trickle
a=fingerprint:sha-256 74:A9:B3:65:00:CD:6E:83:D8:7C:16:30:38:65:DC:93:51:80:D0:DC:67:8E:66:B0:29:89:B0:0C:B2:23:D6:36
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendrecv
a=msid:5bc85193-ddf9-424c-a3b6-2a3d2d385328 5b149c9e-1bf1-4f87-b76f-8624abcbf3b6
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:2772096265 cname:bCLI/H79hwTLcz4h
a=ssrc:2772096265 msid:5bc85193-ddf9-424c-a3b6-2a3d2d385328 5b149c9e-1bf1-4f87-b76f-8624abcbf3b6
m=video 43795 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:1999103377 1 udp 2122260223 127.0.0.1 43795 typ host generation 0 network-id 1 network-cost 50
a=candidate:166201097 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:HTHc
a=ice-pwd:lVLmcYK1iNbfUcDwFAFBVIxq
a=ice-options:trickle
a=fingerprint:sha-256 74:A9:B3:65:00:CD:6E:83:D8:7C:16:30:38:65:DC:93:51:80:D0:DC:67:8E:66:B0:29:89:B0:0C:B2:23:D6:36
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=sendrecv
a=msid:5bc85193-ddf9-424c-a3b6-2a3d2d385328 95e50e98-fdb6-40b7-8fbe-cc42711ceaeb
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=ssrc-group:FID 2719111838 3842572561
a=ssrc:2719111838 cname:bCLI/H79hwTLcz4h
a=ssrc:2719111838 msid:5bc85193-ddf9-424c-a3b6-2a3d2d385328 95e50e98-fdb6-40b7-8fbe-cc42711ceaeb
a=ssrc:3842572561 cname:bCLI/H79hwTLcz4h
a=ssrc:3842572561 msid:5bc85193-ddf9-424c-a3b6-2a3d2d385328 95e50e98-fdb6-40b7-8fbe-cc42711ceaeb
"""#)

    /// Firefox ESR 153.8.0 (Debian `firefox-esr`, `--headless`, prefs
    /// `media.navigator.streams.fake`, `media.navigator.permission.disabled`,
    /// `devtools.console.stdout.content`, the same page and network namespace; the offer
    /// was read from Firefox's stdout console line): addTransceiver(audio/video, {direction: 'sendonly'}). Trickle: no candidates,
    /// session-level fingerprint, payload types other than Chromium's (Opus 109, VP8 120 / RTX 124).
    public static let firefoxPublisher = crlf(#"""
v=0
o=mozilla...THIS_IS_SDPARTA-99.0 1538264544902955704 0 IN IP4 0.0.0.0
s=-
t=0 0
a=sendrecv
a=fingerprint:sha-256 E9:16:6F:B2:8E:BD:57:FA:3E:78:B9:86:DA:FC:A7:AF:04:74:EB:9A:90:69:D5:D3:23:CD:C8:98:25:9A:E1:99
a=group:BUNDLE 0 1
a=ice-options:trickle
a=msid-semantic:WMS *
m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101
c=IN IP4 0.0.0.0
a=sendonly
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level
a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap-allow-mixed
a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1
a=fmtp:101 0-15
a=ice-pwd:9142381f16226de20c2f62f811b360a7
a=ice-ufrag:d17d56db
a=mid:0
a=msid:{385e3c37-8f0c-4985-b74b-4f3855951f15} {2d7a824e-e9d4-4326-af6d-849c824a8e75}
a=rtcp-fb:109 transport-cc
a=rtcp-fb:9 transport-cc
a=rtcp-fb:0 transport-cc
a=rtcp-fb:8 transport-cc
a=rtcp-mux
a=rtpmap:109 opus/48000/2
a=rtpmap:9 G722/8000/1
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:101 telephone-event/8000
a=setup:actpass
a=ssrc:971380692 cname:{71270a3f-32dd-4e77-a70b-8850aa1be716}
m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 99 100 123 122 119
c=IN IP4 0.0.0.0
a=sendonly
a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:4 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:5 urn:ietf:params:rtp-hdrext:toffset
a=extmap:6/recvonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap-allow-mixed
a=fmtp:120 max-fs=12288;max-fr=60
a=fmtp:124 apt=120
a=fmtp:121 max-fs=12288;max-fr=60
a=fmtp:125 apt=121
a=fmtp:100 apt=99
a=fmtp:119 apt=122
a=ice-pwd:9142381f16226de20c2f62f811b360a7
a=ice-ufrag:d17d56db
a=mid:1
a=msid:{385e3c37-8f0c-4985-b74b-4f3855951f15} {11dd2c21-3f63-4549-9c42-eb450cfee7b2}
a=rtcp-fb:120 nack
a=rtcp-fb:120 nack pli
a=rtcp-fb:120 ccm fir
a=rtcp-fb:120 goog-remb
a=rtcp-fb:120 transport-cc
a=rtcp-fb:121 nack
a=rtcp-fb:121 nack pli
a=rtcp-fb:121 ccm fir
a=rtcp-fb:121 goog-remb
a=rtcp-fb:121 transport-cc
a=rtcp-fb:99 nack
a=rtcp-fb:99 nack pli
a=rtcp-fb:99 ccm fir
a=rtcp-fb:99 goog-remb
a=rtcp-fb:99 transport-cc
a=rtcp-fb:123 nack
a=rtcp-fb:123 nack pli
a=rtcp-fb:123 ccm fir
a=rtcp-fb:123 goog-remb
a=rtcp-fb:123 transport-cc
a=rtcp-fb:122 nack
a=rtcp-fb:122 nack pli
a=rtcp-fb:122 ccm fir
a=rtcp-fb:122 goog-remb
a=rtcp-fb:122 transport-cc
a=rtcp-mux
a=rtcp-rsize
a=rtpmap:120 VP8/90000
a=rtpmap:124 rtx/90000
a=rtpmap:121 VP9/90000
a=rtpmap:125 rtx/90000
a=rtpmap:99 AV1/90000
a=rtpmap:100 rtx/90000
a=rtpmap:123 ulpfec/90000
a=rtpmap:122 red/90000
a=rtpmap:119 rtx/90000
a=setup:actpass
a=ssrc:1119322222 cname:{71270a3f-32dd-4e77-a70b-8850aa1be716}
a=ssrc:56973900 cname:{71270a3f-32dd-4e77-a70b-8850aa1be716}
a=ssrc-group:FID 1119322222 56973900
"""#)

    /// Firefox ESR 153.8.0 (Debian `firefox-esr`, `--headless`, prefs
    /// `media.navigator.streams.fake`, `media.navigator.permission.disabled`,
    /// `devtools.console.stdout.content`, the same page and network namespace; the offer
    /// was read from Firefox's stdout console line): audio sendonly + video sendonly with sendEncodings rids q (÷4), h (÷2), f. Trickle: no candidates,
    /// session-level fingerprint, payload types other than Chromium's (Opus 109, VP8 120 / RTX 124).
    public static let firefoxSimulcast = crlf(#"""
v=0
o=mozilla...THIS_IS_SDPARTA-99.0 6272018186001574302 0 IN IP4 0.0.0.0
s=-
t=0 0
a=sendrecv
a=fingerprint:sha-256 6D:E0:96:4C:86:8F:C9:27:0A:99:91:F6:D4:52:DF:20:8D:2B:23:0B:E0:09:85:00:67:31:CE:0E:3A:6A:4A:A1
a=group:BUNDLE 0 1
a=ice-options:trickle
a=msid-semantic:WMS *
m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101
c=IN IP4 0.0.0.0
a=sendonly
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level
a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap-allow-mixed
a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1
a=fmtp:101 0-15
a=ice-pwd:aee1fd157202d2db0b9eb65d8edb758d
a=ice-ufrag:1f2aab3d
a=mid:0
a=msid:{c83e1f46-24b2-466a-a1f2-67912dece3b8} {f6b886b9-4aa1-4eb2-8d7d-870f5ccdd64f}
a=rtcp-fb:109 transport-cc
a=rtcp-fb:9 transport-cc
a=rtcp-fb:0 transport-cc
a=rtcp-fb:8 transport-cc
a=rtcp-mux
a=rtpmap:109 opus/48000/2
a=rtpmap:9 G722/8000/1
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:101 telephone-event/8000
a=setup:actpass
a=ssrc:2532174210 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 99 100 123 122 119
c=IN IP4 0.0.0.0
a=sendonly
a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:4 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:5 urn:ietf:params:rtp-hdrext:toffset
a=extmap:6/recvonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:8/sendonly https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension
a=extmap:9/sendonly urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:10/sendonly urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=extmap-allow-mixed
a=fmtp:120 max-fs=12288;max-fr=60
a=fmtp:124 apt=120
a=fmtp:121 max-fs=12288;max-fr=60
a=fmtp:125 apt=121
a=fmtp:100 apt=99
a=fmtp:119 apt=122
a=ice-pwd:aee1fd157202d2db0b9eb65d8edb758d
a=ice-ufrag:1f2aab3d
a=mid:1
a=msid:{c83e1f46-24b2-466a-a1f2-67912dece3b8} {012ffba1-94a6-42bb-a731-865e4502a102}
a=rid:q send
a=rid:h send
a=rid:f send
a=rtcp-fb:120 nack
a=rtcp-fb:120 nack pli
a=rtcp-fb:120 ccm fir
a=rtcp-fb:120 goog-remb
a=rtcp-fb:120 transport-cc
a=rtcp-fb:121 nack
a=rtcp-fb:121 nack pli
a=rtcp-fb:121 ccm fir
a=rtcp-fb:121 goog-remb
a=rtcp-fb:121 transport-cc
a=rtcp-fb:99 nack
a=rtcp-fb:99 nack pli
a=rtcp-fb:99 ccm fir
a=rtcp-fb:99 goog-remb
a=rtcp-fb:99 transport-cc
a=rtcp-fb:123 nack
a=rtcp-fb:123 nack pli
a=rtcp-fb:123 ccm fir
a=rtcp-fb:123 goog-remb
a=rtcp-fb:123 transport-cc
a=rtcp-fb:122 nack
a=rtcp-fb:122 nack pli
a=rtcp-fb:122 ccm fir
a=rtcp-fb:122 goog-remb
a=rtcp-fb:122 transport-cc
a=rtcp-mux
a=rtcp-rsize
a=rtpmap:120 VP8/90000
a=rtpmap:124 rtx/90000
a=rtpmap:121 VP9/90000
a=rtpmap:125 rtx/90000
a=rtpmap:99 AV1/90000
a=rtpmap:100 rtx/90000
a=rtpmap:123 ulpfec/90000
a=rtpmap:122 red/90000
a=rtpmap:119 rtx/90000
a=setup:actpass
a=simulcast:send q;h;f
a=ssrc:791942676 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc:2951223915 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc:167939296 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc:3684266340 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc:2596706708 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc:221143893 cname:{90efdc71-0387-4770-aa47-8d42fd9b0685}
a=ssrc-group:FID 791942676 2951223915
a=ssrc-group:FID 167939296 3684266340
a=ssrc-group:FID 2596706708 221143893
"""#)

    /// Chromium's ANSWER to the router's subscriber offer (``JSEPSubscriberTests/offer``:
    /// audio mid 0 SSRC 1111, video mid 1 SSRC 2222 + RTX 3333, session id 43): the page ran
    /// `setRemoteDescription(offer)`, `createAnswer`, `setLocalDescription` and logged
    /// `pc.localDescription.sdp`; both transceivers came out `recvonly`.
    public static let chromeSubscriberAnswer = crlf(#"""
v=0
o=- 39659638171636164 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=msid-semantic: WMS
m=audio 43158 UDP/TLS/RTP/SAVPF 111
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:2853805051 1 udp 2122260223 127.0.0.1 43158 typ host generation 0 network-id 1 network-cost 50
a=candidate:3570825571 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 network-id 1 network-cost 50
a=ice-ufrag:ThxB
a=ice-pwd:RJtIaEMTkC/8l9XMAV8eZeeF
a=ice-options:trickle
a=fingerprint:sha-256 F0:3C:FA:B3:32:7E:0B:18:5B:90:23:1F:00:AA:0C:23:28:B9:AA:66:5D:06:55:F7:BF:CC:2A:5A:12:E0:E8:C9
a=setup:active
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=recvonly
a=rtcp-mux
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
m=video 9 UDP/TLS/RTP/SAVPF 96 97
c=IN IP4 0.0.0.0
a=rtcp:9 IN IP4 0.0.0.0
a=ice-ufrag:ThxB
a=ice-pwd:RJtIaEMTkC/8l9XMAV8eZeeF
a=ice-options:trickle
a=fingerprint:sha-256 F0:3C:FA:B3:32:7E:0B:18:5B:90:23:1F:00:AA:0C:23:28:B9:AA:66:5D:06:55:F7:BF:CC:2A:5A:12:E0:E8:C9
a=setup:active
a=mid:1
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=recvonly
a=rtcp-mux
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
"""#)

    /// Firefox ESR 153.8.0's ANSWER to the same router offer as ``chromeSubscriberAnswer``
    /// (same page and method): session-level fingerprint and `a=sendrecv`, sections `recvonly`.
    public static let firefoxSubscriberAnswer = crlf(#"""
v=0
o=mozilla...THIS_IS_SDPARTA-99.0 2856113021838212855 0 IN IP4 0.0.0.0
s=-
t=0 0
a=sendrecv
a=fingerprint:sha-256 05:7F:14:F3:93:0F:38:BC:AA:7C:67:03:61:DD:41:0B:46:27:D0:9E:99:BA:97:FF:AB:EE:57:B7:23:81:95:44
a=group:BUNDLE 0 1
a=ice-options:trickle
a=msid-semantic:WMS *
m=audio 9 UDP/TLS/RTP/SAVPF 111
c=IN IP4 0.0.0.0
a=recvonly
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=fmtp:111 maxplaybackrate=48000;stereo=1;useinbandfec=1
a=ice-pwd:8a641a69979908a5da05b66ad03ddc92
a=ice-ufrag:66588f5d
a=mid:0
a=rtcp-fb:111 transport-cc
a=rtcp-mux
a=rtpmap:111 opus/48000/2
a=setup:active
a=ssrc:2324236991 cname:{db479dbd-7686-47f9-97aa-2ce40b4dd0e1}
m=video 9 UDP/TLS/RTP/SAVPF 96 97
c=IN IP4 0.0.0.0
a=recvonly
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=fmtp:96 max-fs=12288;max-fr=60
a=fmtp:97 apt=96
a=ice-pwd:8a641a69979908a5da05b66ad03ddc92
a=ice-ufrag:66588f5d
a=mid:1
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-mux
a=rtpmap:96 VP8/90000
a=rtpmap:97 rtx/90000
a=setup:active
a=ssrc:3197068238 cname:{db479dbd-7686-47f9-97aa-2ce40b4dd0e1}
"""#)
}
