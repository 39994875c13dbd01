import Glibc
import Foundation
import OTMedia

/// Where a leg of `otbench sfu` connects: the SFU's ICE-lite, DTLS-server address and
/// credentials, the SSRCs a publisher must send with, the VP8 payload type a subscriber
/// receives.
struct SFUEndpoint {
    var host: String
    var port: UInt16
    var ufrag: String
    var password: String
    var fingerprint: String
    var audioSSRC: UInt32 = 0
    var videoSSRC: UInt32 = 0
    var videoPayloadType: UInt8 = 96
}

/// One SFU under test as `otbench sfu` drives it: a process whose CPU and memory are
/// read, and the signaling that opens a publisher leg and subscriber legs on it.
protocol SFUUnderTest: AnyObject {
    /// The row label ("OTKit router", "Janus VideoRoom").
    var label: String { get }
    /// The SFU's process.
    var process: SFUProcess { get }
    /// The IPv4 address the SFU's media candidates are on; the clients bind to it.
    var mediaHost: String { get }
    /// Opens the publisher leg (audio + video) for this client identity.
    func publish(_ identity: SFUClientLeg.Identity) throws -> SFUEndpoint
    func subscribe(_ identity: SFUClientLeg.Identity, index: Int) throws -> SFUEndpoint
    /// Stops the process and removes what it left.
    func stop()
}

/// OTKit's router in a child process (`otbench --sfu-router-child`), told about legs on
/// its stdin.
final class OTKitSFU: SFUUnderTest {
    let label = "OTKit router"
    let process: SFUProcess
    let mediaHost = "127.0.0.1"

    /// Starts the child with `profile`; throws when it does not say `ready`.
    init(profile: SRTPProfile, log: ProgressLog) throws {
        let executable = try Self.ownExecutable()
        process = try SFUProcess(executable, [SFURouterChild.flag, profile.rfcName],
                                 logPath: "/tmp/otbench-sfu-router-\(getpid()).log", piped: true)
        guard let line = process.readLine(), line == "ready" else {
            throw ScenarioError("the OTKit router child did not start: \(process.logTail())")
        }
        log("  otkit router: pid \(process.pid), one-port edge on 127.0.0.1, SRTP \(profile.rfcName)")
    }

    func publish(_ identity: SFUClientLeg.Identity) throws -> SFUEndpoint {
        try endpoint(process.request(["publish", identity.credentials.ufrag, identity.credentials.password,
                                      identity.certificate.fingerprint.sdpValue].joined(separator: "\t")))
    }

    func subscribe(_ identity: SFUClientLeg.Identity, index: Int) throws -> SFUEndpoint {
        try endpoint(process.request(["subscribe", "s\(index)", identity.credentials.ufrag, identity.credentials.password,
                                      identity.certificate.fingerprint.sdpValue].joined(separator: "\t")))
    }

    func stop() {
        _ = process.request("quit")
        process.stop()
        unlink(process.logPath)
    }

    private func endpoint(_ line: String?) throws -> SFUEndpoint {
        guard let line else { throw ScenarioError("the OTKit router child exited: \(process.logTail())") }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 8, fields[0] == "leg", let port = UInt16(fields[2]), let audio = UInt32(fields[6]),
              let video = UInt32(fields[7]) else { throw ScenarioError("the OTKit router child answered: \(line)") }
        return SFUEndpoint(host: fields[1], port: port, ufrag: fields[3], password: fields[4], fingerprint: fields[5],
                           audioSSRC: audio, videoSSRC: video, videoPayloadType: ArchiveClip.videoPayloadType)
    }

    /// This program's own path (`/proc/self/exe`).
    static func ownExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw ScenarioError("cannot read /proc/self/exe") }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Janus's VideoRoom: one session, one handle per leg, the publisher joins room 1234
/// with our offer, each subscriber joins its feed, gets Janus's offer and starts with
/// our answer.
final class JanusSFU: SFUUnderTest {
    let label = "Janus VideoRoom"
    let server: JanusServer
    var process: SFUProcess { server.process }
    /// Janus gathers host candidates on the machine's interfaces, not on loopback: its
    /// `local-ip` (server info).
    let mediaHost: String
    private let session: UInt64
    private var feed: UInt64 = 0

    /// Starts Janus and opens the API session.
    init(log: ProgressLog) throws {
        server = try JanusServer.start(portRange: 30_000...39_999, log: log)
        do {
            session = try server.api.createSession()
            let info = try server.api.post("/janus", ["janus": "info"])
            guard let ip = info["local-ip"] as? String, SocketAddress(ipv4: ip, port: 0) != nil else {
                throw ScenarioError("Janus reports no IPv4 local-ip: \(info["local-ip"] ?? "none")")
            }
            mediaHost = ip
        } catch { server.stop(); throw error }
    }

    func publish(_ identity: SFUClientLeg.Identity) throws -> SFUEndpoint {
        let handle = try server.api.attachVideoRoom(session: session)
        let audioSSRC = UInt32.random(in: 1...UInt32.max), videoSSRC = UInt32.random(in: 1...UInt32.max)
        let offer = SFUSDP.publisherOffer(identity.local, audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        let (data, sdp) = try server.api.message(
            session: session, handle: handle,
            body: ["request": "joinandconfigure", "room": JanusServer.room, "ptype": "publisher", "display": "otbench",
                   "audio": true, "video": true],
            jsep: ["type": "offer", "sdp": offer])
        guard let sdp, let id = (data["id"] as? NSNumber)?.uint64Value else {
            throw ScenarioError("Janus's publisher join carried no answer or id: \(data)")
        }
        feed = id
        let answer = try SFUSDP.parse(sdp)
        return SFUEndpoint(host: answer.host, port: answer.port, ufrag: answer.ufrag, password: answer.password,
                           fingerprint: answer.fingerprint, audioSSRC: audioSSRC, videoSSRC: videoSSRC)
    }

    func subscribe(_ identity: SFUClientLeg.Identity, index: Int) throws -> SFUEndpoint {
        let handle = try server.api.attachVideoRoom(session: session)
        let (_, sdp) = try server.api.message(
            session: session, handle: handle,
            body: ["request": "join", "room": JanusServer.room, "ptype": "subscriber", "streams": [["feed": feed]]], jsep: nil)
        guard let sdp else { throw ScenarioError("Janus's subscriber join carried no offer") }
        let offer = try SFUSDP.parse(sdp)
        guard let videoPayloadType = offer.videoPayloadType else { throw ScenarioError("Janus offered no VP8") }
        let answer = SFUSDP.subscriberAnswer(identity.local, to: offer)
        _ = try server.api.message(session: session, handle: handle, body: ["request": "start"],
                                   jsep: ["type": "answer", "sdp": answer])
        return SFUEndpoint(host: offer.host, port: offer.port, ufrag: offer.ufrag, password: offer.password,
                           fingerprint: offer.fingerprint, videoPayloadType: videoPayloadType)
    }

    func stop() { server.stop() }
}
