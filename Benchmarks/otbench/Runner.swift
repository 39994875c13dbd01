import Glibc
import OTMedia

/// Parses the command line, runs one scenario and prints its report.
enum Runner {
    /// Runs otbench and returns the exit status (0 all goals met, 1 a goal missed or
    /// a failure, 2 a usage error).
    static func run(arguments: [String]) -> Int32 {
        let options: Options
        do {
            options = try Options.parse(arguments)
        } catch {
            writeToStandardError("otbench: \(error.message)\n")
            return 2
        }
        switch options.command {
        case .help:
            print(Options.usage(scenarios: allScenarios), terminator: "")
            return 0
        case .list:
            for scenario in allScenarios { print("\(scenario.name.padding(12))\(scenario.summary)") }
            return 0
        case .run(let name):
            guard let scenario = allScenarios.first(where: { $0.name == name }) else {
                let known = allScenarios.map(\.name).joined(separator: ", ")
                writeToStandardError("otbench: no scenario named '\(name)'; known scenarios: \(known) (otbench list)\n")
                return 2
            }
            let log = ProgressLog()
            // Every scenario runs libsrtp2 as OTKit does: with its primitives on OpenSSL.
            let crypto = SRTPLibrary.openSSLCryptoStatus
            if crypto != 0 { log("libsrtp2 refused one of OTKit's OpenSSL primitives (status \(crypto)); its stock one is in use") }
            let results: [BenchResult]
            do {
                results = try scenario.run(options, log)
            } catch {
                writeToStandardError("otbench \(name): \(error)\n")
                return 1
            }
            if options.json {
                print(JSONReport.render(scenario: name, results: results))
            } else {
                print(TableReport.render(scenario: name, results: results), terminator: "")
            }
            return results.contains { $0.pass == false } ? 1 : 0
        }
    }
}
