/// What the command line asked for: `otbench <scenario> [--json] [--frames N] [--runs N]`.
struct Options: Equatable {
    /// What to do.
    enum Command: Equatable {
        case help
        case list
        case run(scenario: String)
    }

    var command: Command
    /// One JSON object on stdout instead of a table.
    var json = false
    /// Video frames per run (audio runs use ten times as many 20 ms frames); nil = scenario default.
    var frames: Int?
    /// Timed runs per side; nil = scenario default.
    var runs: Int?
    /// Which video to encode (`codec`): `pattern` or `camera`; nil = scenario default.
    var content: String?
    /// Only cases whose label contains this text (e.g. "720", "opus"); nil = all.
    var only: String?
    /// Seconds of each measured window (`sfu`); nil = scenario default.
    var seconds: Int?
    /// Subscriber counts to measure (`sfu`, e.g. 1,10,50,100); nil = scenario default.
    var subscribers: [Int]?

    /// A usage error, with the sentence to print.
    struct UsageError: Error {
        let message: String
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options(command: .help)
        var scenario: String?
        var index = 0
        func value(after flag: String) throws(UsageError) -> Int {
            index += 1
            guard index < arguments.count, let number = Int(arguments[index]), number > 0 else {
                throw UsageError(message: "\(flag) needs a positive whole number")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h", "help":
                return Options(command: .help)
            case "--json":
                options.json = true
            case "--frames":
                options.frames = try value(after: argument)
            case "--runs":
                options.runs = try value(after: argument)
            case "--seconds":
                options.seconds = try value(after: argument)
            case "--subscribers":
                index += 1
                let counts = index < arguments.count ? arguments[index].split(separator: ",").compactMap { Int($0) } : []
                guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 && $0 <= 1000 }),
                      counts.count == arguments[index].split(separator: ",").count else {
                    throw UsageError(message: "--subscribers needs a list of whole numbers 1...1000, e.g. 1,10,50,100")
                }
                options.subscribers = counts
            case "--content", "--only":
                index += 1
                guard index < arguments.count, !arguments[index].hasPrefix("-") else {
                    throw UsageError(message: "\(argument) needs a value (see otbench --help)")
                }
                if argument == "--content" { options.content = arguments[index] } else { options.only = arguments[index] }
            default:
                if argument.hasPrefix("-") {
                    throw UsageError(message: "unknown option \(argument) (see otbench --help)")
                }
                guard scenario == nil else {
                    throw UsageError(message: "one scenario at a time, got \(scenario!) and \(argument)")
                }
                scenario = argument
            }
            index += 1
        }
        switch scenario {
        case nil: options.command = .help
        case "list": options.command = .list
        case let name?: options.command = .run(scenario: name)
        }
        return options
    }

    /// The text of `otbench --help`.
    static func usage(scenarios: [ScenarioEntry]) -> String {
        var text = """
        usage: otbench <scenario> [--json] [--frames N] [--runs N] [--content pattern|camera] [--only TEXT]
                         [--seconds N] [--subscribers N,N,…]
               otbench list
               otbench --help

        Runs a benchmark scenario: OTKit against a bare C loop over the same work,
        measured as CPU time in the same process, alternating the two sides.

          --json        print one JSON object on stdout (progress goes to stderr)
          --frames N    video frames per run (audio: 10*N frames of 20 ms;
                        transport: SRTP packets per side per run)
          --runs N      timed runs per side (the medians are reported)
          --content C   codec video: pattern (OTKit's test pattern, default) or
                        camera (a noisy, panning camera-like clip, harder to encode)
          --only TEXT   only the cases whose name contains TEXT (e.g. 720, opus, 500k)
          --seconds N   sfu: seconds of each measured window (default 5)
          --subscribers L  sfu: subscriber counts to measure (default 1,10,50,100)

        exit status: 0 every goal met, 1 a goal missed or the scenario failed, 2 usage error

        scenarios:

        """
        for scenario in scenarios {
            text += "  \(scenario.name.padding(12))\(scenario.summary)\n"
        }
        return text
    }
}

extension String {
    /// The string padded with spaces on the right to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
