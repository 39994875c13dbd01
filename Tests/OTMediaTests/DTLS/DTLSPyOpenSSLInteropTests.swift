import Foundation
import OTTestSupport
import Testing
@testable import OTMedia
import OTSignaling

/// OTKit's DTLS server against pyOpenSSL (its own bundled OpenSSL) as the DTLS client with
/// use_srtp, over UDP on 127.0.0.1: the exporter bytes are equal on both sides, each side
/// saw the other's real certificate, and the profile is the server's choice.
@Suite(.serialized) struct DTLSPyOpenSSLInteropTests {
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Result<Subprocess.Result, Error>?
        func set(_ value: Result<Subprocess.Result, Error>) { lock.withLock { stored = value } }
        var value: Result<Subprocess.Result, Error>? { lock.withLock { stored } }
    }

    struct Outcome {
        var server: DTLSTransport
        /// The keys as the server held them once connected (closing clears them).
        var keys: DTLSSRTPKeys?
        var python: [String: Any]
    }

    /// Runs the Python client against an OTKit server transport made from `serverProfiles`.
    static func run(clientOffers: String, serverProfiles: [SRTPProfile]) throws -> Outcome {
        let python: String
        switch PyOpenSSLPeer.python {
        case .success(let path): python = path
        case .failure(let reason): throw reason
        }
        let socket = try DTLSTestSocket()
        let fingerprintPath = NSTemporaryDirectory() + "otkit-dtls-\(getpid())-\(socket.port).fp"
        defer { unlink(fingerprintPath) }
        let box = Box()
        let port = socket.port
        let thread = Thread {
            box.set(Result { try Subprocess.run(python, ["-W", "ignore", "-c", PyOpenSSLPeer.clientScript,
                                                         String(port), fingerprintPath, clientOffers], timeoutSeconds: 60) })
        }
        thread.start()
        let context = try DTLSContext(certificate: DTLSTest.serverCertificate, srtpProfiles: serverProfiles)
        var server: DTLSTransport?
        var peerPort: UInt16 = 0
        var keys: DTLSSRTPKeys?
        let begin = DTLSTest.now()
        // Until Python has exited and nothing more arrives (its close_notify comes last).
        while box.value == nil || server.map({ !$0.state.isFinal }) ?? false, DTLSTest.now() - begin < 60_000_000_000 {
            if let (bytes, from) = socket.receive(timeoutMilliseconds: 10) {
                if server == nil {
                    // The router learns the peer's fingerprint from its SDP before media flows;
                    // here the script wrote it before its ClientHello.
                    let text = try String(contentsOfFile: fingerprintPath, encoding: .utf8)
                    let sdp = try SDPFingerprint(sdpValue: Substring(text))
                    let remote = try #require(sdp.algorithm == DTLSFingerprint.sha256 ? DTLSFingerprint(sha256: sdp.bytes) : nil)
                    server = try DTLSTransport(context: context, role: .server, remoteFingerprint: remote)
                    server?.start(now: DTLSTest.now())
                    peerPort = from
                }
                guard let server, from == peerPort else { continue }
                bytes.withUnsafeBytes { _ = server.receive($0, now: DTLSTest.now()) }
                socket.sendOutgoing(of: server, to: peerPort)
                if let connected = server.srtpKeys { keys = connected }
            } else if box.value != nil {
                break
            }
            if let server {
                server.handleTimeout(now: DTLSTest.now())
                socket.sendOutgoing(of: server, to: peerPort)
            }
        }
        while box.value == nil { DTLSTest.sleepNanoseconds(10_000_000) }
        let result = try box.value!.get()
        guard result.status == 0, !result.timedOut,
              let line = result.stdout.split(separator: "\n").first,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw DTLSTestSocketError(message: "the pyOpenSSL client failed: \(result)")
        }
        return Outcome(server: try #require(server), keys: keys, python: json)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func pyOpenSSLClientGetsGCMAndTheSameKeys() throws {
        let outcome = try Self.run(clientOffers: "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80",
                                   serverProfiles: SRTPProfile.dtlsDefaultOrder)
        let keys = try #require(outcome.keys, "server state: \(outcome.server.state)")
        #expect(keys.profile == .aeadAES128GCM)
        #expect(outcome.python["profile"] as? String == "SRTP_AEAD_AES_128_GCM")
        #expect(outcome.python["exporter"] as? String == Self.hex(DTLSTest.exporterBytes(keys, role: .server)))
        #expect(outcome.python["serverFingerprint"] as? String == DTLSTest.serverCertificate.fingerprint.sdpValue)
        #expect(outcome.python["ownFingerprint"] as? String == outcome.server.remoteFingerprint.sdpValue)
        #expect(outcome.server.state == .closed, "pyOpenSSL's close_notify closes the transport")
    }

    @Test func pyOpenSSLClientGetsCMWhenTheServerOnlyTakesCM() throws {
        let outcome = try Self.run(clientOffers: "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80",
                                   serverProfiles: [.aesCM128HMACSHA1_80])
        let keys = try #require(outcome.keys, "server state: \(outcome.server.state)")
        #expect(keys.profile == .aesCM128HMACSHA1_80)
        #expect(outcome.python["profile"] as? String == "SRTP_AES128_CM_SHA1_80")
        let exporter = try #require(outcome.python["exporter"] as? String)
        #expect(exporter.count == 120)
        #expect(exporter == Self.hex(DTLSTest.exporterBytes(keys, role: .server)))
    }
}
