import Glibc
import OTMedia
import OTRouter
import OTSignaling

/// `otbench --sfu-router-child PROFILE`: the OTKit router as a process of its own for
/// `otbench sfu`, so its CPU and memory are read from `/proc` exactly as Janus's are and
/// the load generator's are not in them. A `MediaRouter` with the one-port edge (default
/// workers, consent timeout 10 min: the benchmark's clients send no consent checks, as
/// with Janus in ICE-lite mode) on 127.0.0.1, driven by tab-separated lines on stdin:
///   `publish UFRAG PWD FINGERPRINT` → one audio + video publisher leg of stream "bench"
///   `subscribe ID UFRAG PWD FINGERPRINT` → one audio + video subscriber leg of it
///   `quit`
/// Each answer is one line: `leg HOST PORT UFRAG PWD FINGERPRINT AUDIO_SSRC VIDEO_SSRC`
/// or `error MESSAGE`. It prints `ready` first. Cost: what the router costs.
enum SFURouterChild {
    /// The hidden first argument that selects this mode.
    static let flag = "--sfu-router-child"

    /// Runs the child until `quit` or EOF; returns the exit status.
    static func run(arguments: [String]) -> Int32 {
        guard let name = arguments.first, let profile = SRTPProfile(rfcName: name) else {
            writeToStandardError("otbench \(flag): give an SRTP profile (e.g. AES_CM_128_HMAC_SHA1_80)\n")
            return 2
        }
        let router: MediaRouter
        do {
            router = try MediaRouter(host: "127.0.0.1", profile: profile,
                                     edge: MediaEdgeConfiguration(consentTimeout: 600_000_000_000))
        } catch {
            print("error cannot start the router: \(error)")
            return 1
        }
        answer("ready")
        while let line = Swift.readLine() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            do {
                switch fields.first {
                case "publish" where fields.count == 4:
                    let leg = try router.addPublisher(streamId: "bench", audio: true, video: true, simulcastLayers: 1,
                                                      transport: WireTransport(iceUfrag: fields[1], icePassword: fields[2],
                                                                               fingerprint: fields[3]))
                    answer(describe(leg))
                case "subscribe" where fields.count == 5:
                    let leg = try router.addSubscriber(subscriberId: fields[1], streamId: "bench", audio: true, video: true,
                                                       transport: WireTransport(iceUfrag: fields[2], icePassword: fields[3],
                                                                                fingerprint: fields[4]))
                    answer(describe(leg))
                case "quit":
                    router.removePublisher(streamId: "bench")
                    return 0
                default:
                    answer("error unknown request")
                }
            } catch {
                answer("error \(error)")
            }
        }
        return 0
    }

    private static func describe(_ leg: WireMediaLeg) -> String {
        guard let transport = leg.transport else { return "error the leg has no ICE/DTLS transport" }
        return ["leg", leg.host, "\(leg.port)", transport.iceUfrag, transport.icePassword, transport.fingerprint,
                "\(leg.audioSSRC ?? 0)", "\(leg.videoSSRC ?? 0)"].joined(separator: "\t")
    }

    private static func answer(_ line: String) {
        print(line)
        fflush(nil)  // every output stream: stdout is a pipe, fully buffered
    }
}
