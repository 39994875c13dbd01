import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// A publisher for the archive tests: OTKit's media pipeline (VP8 test pattern with frame
/// numbers + an Opus tone, SRTP, sender reports) on a signaling connection of its own, so
/// several publish at once without sharing the process's one audio device.
final class ArchivePublisher {
    let raw: RawSignalingClient
    private(set) var pipeline: PublisherPipeline?
    private(set) var streamId: String?

    /// Connects to `sessionId` with `token` (fails the test if the router refuses).
    init(router: Router, sessionId: String, apiKey: String, token: String) throws {
        raw = try RawSignalingClient(url: router.signalingURL(sessionId: sessionId))
        guard case .connected? = raw.request(.connect(ConnectRequest(apiKey: apiKey, token: token))) else {
            throw RouterError("the publisher could not connect")
        }
    }

    /// Publishes `width`x`height` (160x120 by default) at 30 fps, frame numbers from
    /// `firstFrameNumber`, and a tone of `frequency` at `amplitude` (of full scale);
    /// returns the stream id.
    @discardableResult
    func publish(name: String, frequency: Double, width: Int = 160, height: Int = 120, bitrateKbps: Int = 200,
                 firstFrameNumber: UInt32 = 0, amplitude: Double = 0.5) throws -> String {
        let request = PublishRequest(name: name, hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                     videoWidth: width, videoHeight: height, videoType: "custom")
        guard case .published(let published)? = raw.request(.publish(request)), let leg = published.media,
              let profile = SRTPProfile(rfcName: leg.profile), let videoSSRC = leg.videoSSRC, let audioSSRC = leg.audioSSRC,
              let destination = SocketAddress(ipv4: leg.host, port: UInt16(leg.port)) else {
            throw RouterError("the publisher could not publish")
        }
        var configuration = PublisherConfiguration(destination: destination,
                                                   video: VP8EncoderSettings(width: width, height: height, frameRate: 30,
                                                                             bitrateKbps: bitrateKbps),
                                                   audio: OpusEncoderSettings(format: .mono20ms))
        configuration.videoStream = .vp8(ssrc: videoSSRC)
        configuration.audioStream = .opus(ssrc: audioSSRC)
        configuration.keys = SRTPLegKeys(send: try SRTPKeyMaterial(profile: profile, base64: leg.clientKey ?? ""),
                                         receive: try SRTPKeyMaterial(profile: profile, base64: leg.routerKey ?? ""))
        configuration.localAddress = .ipv4Loopback()
        let pipeline = try PublisherPipeline(configuration: configuration,
                                             videoSource: try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: 30),
                                                                                firstFrameNumber: firstFrameNumber),
                                             audioSource: try ToneSource(frequency: frequency, amplitude: amplitude, format: .mono20ms))
        try pipeline.start()
        self.pipeline = pipeline
        streamId = published.stream.streamId
        return published.stream.streamId
    }

    /// Stops sending and unpublishes (the router ends the stream).
    func unpublish() {
        pipeline?.stop()
        pipeline = nil
        if let streamId { _ = raw.request(.unpublish(streamId: streamId)) }
        streamId = nil
    }

    /// Stops everything and disconnects.
    func close() {
        pipeline?.stop()
        pipeline = nil
        raw.close()
    }
}

/// What ffprobe/ffmpeg (decoders the project did not write) say about archive files, and
/// the REST calls on archives. ffmpeg and ffprobe are required: missing, the test fails.
enum ArchiveTools {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "ffmpeg/ffprobe/unzip are required by the archive tests (scripts/install-deps.sh installs them)" }
    }

    static func tool(_ name: String) throws -> String {
        guard let path = Subprocess.which(name) else { throw Missing() }
        return path
    }

    /// Codec names by stream type ("video": "vp8", "audio": "opus").
    static func codecs(_ file: String) throws -> [String: String] {
        let result = try Subprocess.run(try tool("ffprobe"), ["-v", "error", "-show_streams", "-of", "json", file])
        let object = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        var codecs: [String: String] = [:]
        for stream in object["streams"] as? [[String: Any]] ?? [] {
            if let type = stream["codec_type"] as? String, let name = stream["codec_name"] as? String { codecs[type] = name }
        }
        return codecs
    }

    /// ffmpeg decoding every packet: its error output (empty when clean). Video frames pass
    /// through with their own times (`-fps_mode passthrough`) in the file's time base
    /// (`-enc_time_base:v -1`; audio keeps 1/sample rate): at ffmpeg's default 1/frame-rate
    /// output, two frames under 33 ms apart (a publisher catching up under load) share a
    /// tick and it complains about its own output ("non monotonically increasing dts to
    /// muxer"), not about the file.
    static func decodeErrors(_ file: String) throws -> String {
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-fps_mode", "passthrough", "-enc_time_base:v", "-1", "-f", "null", "-"])
        return result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)"
    }

    /// The times (seconds) of one track's packets ("v" or "a") in file order.
    static func packetTimes(_ file: String, stream: String) throws -> [Double] {
        let result = try Subprocess.run(try tool("ffprobe"), ["-v", "error", "-select_streams", stream, "-show_entries",
                                                              "packet=pts_time", "-of", "csv=p=0", file])
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Unpacks `zip` into `directory`.
    static func unzip(_ zip: String, into directory: String) throws {
        let result = try Subprocess.run(try tool("unzip"), ["-o", "-q", zip, "-d", directory])
        #expect(result.status == 0, "\(result)")
    }

    /// `GET url` (absolute): status and body bytes.
    static func get(_ url: String) throws -> (status: Int, body: [UInt8]) {
        let response = try HTTPClient.request("GET", url)
        return (response.status, response.body)
    }

    /// `GET /v2/project/{apiKey}/archive/{id}` as a server SDK does.
    static func archive(_ router: Router, _ project: ProjectCredentials, _ id: String) throws -> [String: Any] {
        let response = try HTTPClient.request("GET", router.baseURL + "/v2/project/\(project.apiKey)/archive/\(id)",
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project)])
        return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}
