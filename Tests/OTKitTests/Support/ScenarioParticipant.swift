import Foundation
import Testing
@testable import OTKit

/// One client of a scenario: its session, the recorder of its delegate calls, and the
/// calls it must have seen so far, in order. Steps append what they cause with
/// `expect(...)`; `check()` waits for that many calls and compares them exactly.
final class ScenarioParticipant {
    let name: String
    let recorder: DelegateRecorder
    let session: OTSession
    private(set) var expected: [String] = []

    init(_ name: String, recorder: DelegateRecorder, session: OTSession) {
        self.name = name
        self.recorder = recorder
        self.session = session
    }

    /// The connection id (after didConnect). Remembered once seen: the session forgets
    /// its connection when it disconnects, and steps name the leaver afterwards.
    var id: String {
        if let known = knownID { return known }
        knownID = session.connection?.connectionId
        return knownID ?? "?"
    }
    private var knownID: String?

    /// Appends calls this participant must see next.
    func expect(_ lines: String...) { expected += lines }
    func expect(_ lines: [String]) { expected += lines }

    /// Waits (up to `seconds`) until it has seen as many calls as expected, then checks
    /// they are exactly the expected ones, in order (extra calls fail the comparison).
    @discardableResult
    func check(_ seconds: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        recorder.wait(seconds) { $0.count >= expected.count }
        let calls = recorder.calls
        let same = calls == expected
        // Long lines (an 8 KB signal) are shortened in the failure message only.
        func compact(_ lines: [String]) -> [String] { lines.map { $0.count > 100 ? "\($0.prefix(80))…(\($0.count) chars)" : $0 } }
        #expect(same, "\(name): got \(compact(calls)), expected \(compact(expected))", sourceLocation: sourceLocation)
        return same
    }
}
