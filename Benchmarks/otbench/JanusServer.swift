import Foundation
import Glibc
import OTMedia

/// Janus (Debian's `janus` package) as `otbench sfu` runs it: a configuration written
/// into a fresh temporary directory — only the VideoRoom plugin and the HTTP transport
/// (symlinked into folders of their own), one room (1234: one publisher, Opus + VP8, no
/// bitrate cap, no periodic FIR), ICE-lite, full-trickle off, no STUN/TURN, no ICE-TCP,
/// no mDNS, IPv6 off, RTP ports in `portRange`, debug level 2 (errors and warnings), no
/// event handlers or loggers, sessions never time out — then `janus -C … -F …`, polled
/// until its HTTP API answers. libnice ignores the loopback interface, so Janus's
/// candidates are on the machine's own address (its `local-ip`); the traffic still stays
/// inside the kernel. Cost: one process start (about a second).
struct JanusServer {
    /// The Janus binary and its plugin folders (Debian 12 paths).
    static let binary = "/usr/bin/janus"
    static let libraryFolder = "/usr/lib/x86_64-linux-gnu/janus"
    /// The VideoRoom room every run uses.
    static let room = 1234

    /// The running process.
    let process: SFUProcess
    /// Its HTTP API on 127.0.0.1.
    let api: JanusAPI
    /// The configuration directory (removed by `stop`).
    let directory: String

    /// Writes the configuration and starts Janus; throws when it is not installed or its
    /// API does not answer within 30 s.
    static func start(portRange: ClosedRange<Int>, log: ProgressLog) throws -> JanusServer {
        guard access(binary, X_OK) == 0 else {
            throw ScenarioError("\(binary) is missing: install Debian's janus package (scripts/install-deps.sh)")
        }
        var template = Array("/tmp/otbench-janus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ScenarioError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        for folder in ["plugins", "transports", "empty"] { mkdir("\(directory)/\(folder)", 0o700) }
        symlink("\(libraryFolder)/plugins/libjanus_videoroom.so", "\(directory)/plugins/libjanus_videoroom.so")
        symlink("\(libraryFolder)/transports/libjanus_http.so", "\(directory)/transports/libjanus_http.so")
        let port = try freeTCPPort()
        // OTBENCH_JANUS_DEBUG=N: Janus's debug level N (default 2) and its directory and log kept.
        let debugLevel = getenv("OTBENCH_JANUS_DEBUG").flatMap { Int(String(cString: $0)) } ?? 2
        let files = [
            "janus.jcfg": """
            general: {
            \tconfigs_folder = "\(directory)"
            \tplugins_folder = "\(directory)/plugins"
            \ttransports_folder = "\(directory)/transports"
            \tevents_folder = "\(directory)/empty"
            \tloggers_folder = "\(directory)/empty"
            \tdebug_level = \(debugLevel)
            \tsession_timeout = 0
            }
            media: {
            \tipv6 = false
            \trtp_port_range = "\(portRange.lowerBound)-\(portRange.upperBound)"
            }
            nat: {
            \tice_lite = true
            \tfull_trickle = false
            \tice_tcp = false
            \tignore_mdns = true
            \tnice_debug = \(debugLevel > 4)
            }
            events: {
            \tbroadcast = false
            }

            """,
            "janus.plugin.videoroom.jcfg": """
            general: {
            }
            room-\(room): {
            \tdescription = "otbench sfu"
            \tpublishers = 1
            \tbitrate = 0
            \tfir_freq = 0
            \taudiocodec = "opus"
            \tvideocodec = "vp8"
            \tnotify_joining = false
            }

            """,
            "janus.transport.http.jcfg": """
            general: {
            \tjson = "compact"
            \tbase_path = "/janus"
            \thttp = true
            \tport = \(port)
            \tip = "127.0.0.1"
            \thttps = false
            }
            admin: {
            \tadmin_http = false
            }

            """,
        ]
        for (name, text) in files {
            try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
        }
        let process = try SFUProcess(binary, ["-C", "\(directory)/janus.jcfg", "-F", directory],
                                     logPath: "\(directory)/janus.log", piped: false)
        let api = JanusAPI(port: port)
        let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
        while true {
            if (try? api.post("/janus", ["janus": "info"])) != nil { break }
            guard process.isRunning, MonotonicClock.nanoseconds() < deadline else {
                let tail = process.logTail()
                process.stop()
                throw ScenarioError("Janus did not answer on 127.0.0.1:\(port) within 30 s; its log ends:\n\(tail)")
            }
            usleep(50_000)
        }
        log("  janus: pid \(process.pid), HTTP API on 127.0.0.1:\(port), RTP ports \(portRange), config in \(directory)")
        return JanusServer(process: process, api: api, directory: directory)
    }

    /// Stops Janus and removes its configuration.
    func stop() {
        process.stop()
        guard getenv("OTBENCH_JANUS_DEBUG") == nil else { return }
        for name in ["janus.jcfg", "janus.plugin.videoroom.jcfg", "janus.transport.http.jcfg", "janus.log",
                     "plugins/libjanus_videoroom.so", "transports/libjanus_http.so"] {
            unlink("\(directory)/\(name)")
        }
        for folder in ["plugins", "transports", "empty", ""] { rmdir("\(directory)/\(folder)") }
    }

    /// A loopback TCP port nobody listens on now (bound, read back, closed).
    static func freeTCPPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ScenarioError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw ScenarioError("cannot find a free TCP port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
