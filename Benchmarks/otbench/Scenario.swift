/// A benchmark scenario: a named set of measurements that produces result rows.
protocol Scenario {
    /// The name on the command line (`otbench <name>`).
    static var name: String { get }
    /// One line for `otbench list` and `--help`.
    static var summary: String { get }
    /// Runs the measurements. Progress goes to `log`; stdout is left to the caller.
    static func run(options: Options, log: ProgressLog) throws -> [BenchResult]
}

/// A scenario as the runner sees it: its name, summary and entry point.
struct ScenarioEntry {
    let name: String
    let summary: String
    let run: (Options, ProgressLog) throws -> [BenchResult]

    init<S: Scenario>(_ scenario: S.Type) {
        name = S.name
        summary = S.summary
        run = { options, log in try S.run(options: options, log: log) }
    }
}

/// Every scenario otbench knows, in the order `list` shows them.
var allScenarios: [ScenarioEntry] { [ScenarioEntry(CodecScenario.self), ScenarioEntry(TransportScenario.self), ScenarioEntry(RouterScenario.self), ScenarioEntry(AdaptScenario.self), ScenarioEntry(DTLSScenario.self), ScenarioEntry(E2EEScenario.self), ScenarioEntry(ArchiveScenario.self), ScenarioEntry(CascadeScenario.self), ScenarioEntry(SFUScenario.self)] }

/// A failure that stops a scenario (the message is printed as is).
struct ScenarioError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
