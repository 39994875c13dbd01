import Glibc
import OTMedia

/// `otkit`: OTKit's command. Exit codes: 0 ok, 1 runtime failure, 2 usage error.
let usage = """
    usage: otkit <command> [options]

    commands:
      demo      an embedded router, a publisher (first camera, or the test pattern) and a
                subscriber in one process; prints what the subscriber decodes
      devices   list cameras and ALSA sound devices (--json for scripts)
      router    run the OTKit router (REST API, WebSocket signaling, SFU) until SIGINT/SIGTERM
      token     create a session on a router and/or a token for it
      publish   publish a camera, the test pattern or a Y4M clip, with a microphone or a
                tone, into a session; reconnects forever; SIGINT/SIGTERM stop it cleanly
      subscribe subscribe to a session's streams; record them (Y4M + WAV) or play the audio
      archive   start, stop, list, get, delete and download a router's archives (recordings)
      help      this text; `otkit <command> --help` for a command's options

    exit codes: 0 ok, 1 runtime failure, 2 usage error
    """

func fail(_ message: String, code: Int32) -> Never {
    writeError("otkit: \(message)\n")
    exit(code)
}

let words = CommandLine.arguments
guard words.count >= 2 else { fail("no command given\n\(usage)", code: 2) }
let rest = words.dropFirst(2)
do {
    switch words[1] {
    case "demo": exit(try DemoCommand.run(rest))
    case "devices": exit(try DevicesCommand.run(rest))
    case "router": exit(try RouterCommand.run(rest))
    case "token": exit(try TokenCommand.run(rest))
    case "publish": exit(try PublishCommand.run(rest))
    case "subscribe": exit(try SubscribeCommand.run(rest))
    case "archive": exit(try ArchiveCommand.run(rest))
    case "help", "--help", "-h": print(usage)
    default: fail("unknown command '\(words[1])'\n\(usage)", code: 2)
    }
} catch let error as Arguments.UsageError {
    fail("\(error.description) (see `otkit \(words[1]) --help`)", code: 2)
} catch let error as CommandError {
    fail(error.description, code: 1)
} catch let error as MediaError {
    fail(error.description, code: 1)
} catch {
    fail("\(error)", code: 1)
}

/// Writes to standard error without stdio's shared `stderr` global (not Sendable).
@Sendable func writeError(_ text: String) { writeAll(STDERR_FILENO, text) }

/// Writes all of `text` to `descriptor`, unbuffered (a supervisor reading a pipe sees it
/// at once); gives up quietly if the descriptor fails.
@Sendable func writeAll(_ descriptor: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {  // write(2) may take only part, or be interrupted
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
