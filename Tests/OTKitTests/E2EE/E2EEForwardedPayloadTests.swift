import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, acceptance, checked from outside the library: what the router forwards holds
/// neither the VP8 frames nor the Opus packets the publisher's encoders produced. An OTKit
/// publisher (test pattern and a tone, secret S) in an e2ee session; the test itself is
/// the subscriber over the wire (`RawEdgeSubscriber`: signaling, ICE, DTLS, SRTP), holds S
/// and the session id, and opens the frames with OTMedia's public SFrame API
/// (`ForwardedMediaCheck`). Every forwarded frame must open (the payload is the sealed
/// real frame), the opened frames must decode with libvpx and libopus, and no 24-byte
/// probe of an opened frame may occur in the forwarded payloads. The non-e2ee control
/// decodes the forwarded frames directly and finds its probes, so the search can fail.
@Suite(.serialized)
struct E2EEForwardedPayloadTests {
    static let project = ProjectCredentials(apiKey: "4719", apiSecret: "0123456789abcdef0123456789abcdef01234719")
    static let secret = "tap the forwarded payloads"

    @Test(arguments: [true, false])
    func forwardedPayloadsHoldNoPlaintext(e2ee: Bool) throws {
        try AudioDeviceTestLock.run { try body(e2ee: e2ee) }
    }

    private func body(e2ee: Bool) throws {
        let device = ToneLoopDevice(frequency: 440)  // audible input: real Opus packets, not DTX
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let rig = try AcceptanceRig(project: Self.project, e2ee: e2ee)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        if e2ee {
            try a.session.setEncryptionSecret(Self.secret)
            #expect(poll(20) { a.session.encryptionKeys.hasKey })
        }
        let (_, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let raw = try RawEdgeSubscriber(router: rig.router, kit: rig.kit, sessionId: rig.sessionId, streamId: streamId)
        defer { raw.close() }
        let received = try raw.collect(seconds: 4)
        let check = try ForwardedMediaCheck(received, secret: e2ee ? Self.secret : nil, sessionId: rig.sessionId)
        let report = "\(e2ee ? "e2ee" : "control"): \(check)"
        print("E2EE forwarded payloads:", report)
        #expect(check.videoFrames >= 15 && check.audioPackets >= 50, "enough was forwarded (a loaded machine encodes fewer frames): \(report)")
        #expect(check.videoOpened == check.videoFrames && check.audioOpened == check.audioPackets,
                "(a) every forwarded frame opens: \(report)")
        #expect(check.videoDecoded >= 10 && check.videoDecodeErrors == 0 && check.audioDecoded == check.audioPackets,
                "(b) the opened frames decode: \(report)")
        #expect(check.videoProbes >= 10 && check.audioProbes >= 50, "enough probes: \(report)")
        if e2ee {
            #expect(check.videoProbesFound == 0 && check.audioProbesFound == 0, "(c) no plaintext in what the router forwards: \(report)")
        } else {
            #expect(Double(check.videoProbesFound) >= 0.8 * Double(check.videoProbes)
                        && Double(check.audioProbesFound) >= 0.8 * Double(check.audioProbes),
                    "(d) the control finds the forwarded frames' bytes: \(report)")
        }
    }
}
