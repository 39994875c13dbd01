import Foundation
import OTTestSupport
import Testing

/// The shared venv helper itself: the pinned SDK is what runs, and a failing or hanging
/// script ends in a readable failure instead of a hang or a bare exit code.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"))
struct PythonSDKHelperTests {
    @Test func theVenvRunsThePinnedSDKWithArguments() throws {
        let out = try PythonSDK.output("import sys, opentok; print(opentok.__version__, sys.argv[1:])", arguments: ["a b", "c"])
        #expect(out == "\(PythonSDK.version) ['a b', 'c']\n")
    }

    @Test func aFailingScriptReportsItsTraceback() {
        do {
            _ = try PythonSDK.json("print('partial')\n1 / 0", input: [String: Any](), arguments: ["divide"])
            Issue.record("no failure")
        } catch {
            guard case .failed(let step, let result) = error else { Issue.record("\(error)"); return }
            #expect(step == "divide" && result.status == 1 && !result.timedOut)
            #expect(error.description.contains("ZeroDivisionError") && error.description.contains("partial"))
        }
    }

    @Test func aHangingScriptIsKilledAtItsTimeout() throws {
        let result = try PythonSDK.run("import time; time.sleep(30)", timeoutSeconds: 0.5)
        #expect(result.timedOut && result.status != 0)
    }
}
