import Foundation
import OTTestSupport
import Testing

/// Required delegate methods are required: a conforming type that misspells one does
/// not compile. Each case type-checks a small file against the OTKit module just built
/// (`swiftc -typecheck`, the module from this test bundle's build directory) and reads
/// the compiler's verdict; a correctly spelled twin must compile, so a failure is the
/// misspelling's and not the setup's. The guides' code (`GuideViewController.swift`) is
/// type-checked the same way with a plain `import OTKit`: it needs nothing internal.
@Suite struct DelegateCompileTests {
    /// The build directory holding `Modules/OTKit.swiftmodule` (climbing from this test
    /// executable), and the package root (from this file's path).
    private static func locations() throws -> (build: URL, root: URL) {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        var build: URL?
        for _ in 0..<5 where build == nil {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Modules/OTKit.swiftmodule").path) { build = dir }
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return (try #require(build, "no Modules/OTKit.swiftmodule above \(exe)"), root)
    }

    /// Type-checks `source` (or the file at `path`) against OTKit; returns the status and the compiler's output.
    private static func typecheck(_ source: String? = nil, path: String? = nil) throws -> (status: Int32, output: String) {
        let (build, root) = try locations()
        let swiftc = try #require(Subprocess.which("swiftc"), "swiftc is not on PATH")
        var file = path
        if let source {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("otkit-compile-\(UUID().uuidString).swift")
            try source.write(to: url, atomically: true, encoding: .utf8)
            file = url.path
        }
        defer { if source != nil, let file { try? FileManager.default.removeItem(atPath: file) } }
        var arguments = ["-typecheck", "-I", build.appendingPathComponent("Modules").path]
        let cmodules = root.appendingPathComponent("CModules")
        for name in try FileManager.default.contentsOfDirectory(atPath: cmodules.path).sorted() {
            arguments += ["-I", cmodules.appendingPathComponent(name).path]
        }
        // Targets of C sources (CUDP, CSRTPCipher) get their module map in the build directory.
        for target in ["CUDP", "CSRTPCipher"] {
            arguments += ["-Xcc", "-fmodule-map-file=" + build.appendingPathComponent("\(target).build/module.modulemap").path]
        }
        arguments.append(try #require(file))
        let result = try Subprocess.run(swiftc, arguments, timeoutSeconds: 300)
        return (result.status, result.stdout + result.stderr)
    }

    /// The compiler refuses the conformance: "does not conform to protocol 'P'", or, when
    /// the misspelling is a near miss of one requirement, "… required by protocol 'P'".
    private static func refuses(_ output: String, _ protocolName: String) -> Bool {
        output.contains("does not conform to protocol '\(protocolName)'") || output.contains("required by protocol '\(protocolName)'")
    }

    private static let sessionMethods = [
        "func sessionDidConnect(_ session: OTSession) {}",
        "func sessionDidDisconnect(_ session: OTSession) {}",
        "func session(_ session: OTSession, didFailWithError error: OTError) {}",
        "func session(_ session: OTSession, streamCreated stream: OTStream) {}",
        "func session(_ session: OTSession, streamDestroyed stream: OTStream) {}",
    ]

    private static func conformer(_ protocolName: String, _ methods: [String]) -> String {
        "import OTKit\nfinal class App: \(protocolName) {\n" + methods.map { "    " + $0 }.joined(separator: "\n") + "\n}\n"
    }

    @Test func correctlySpelledRequiredMethodsCompile() throws {
        let session = try Self.typecheck(Self.conformer("OTSessionDelegate", Self.sessionMethods))
        #expect(session.status == 0, "\(session.output)")
        let subscriber = try Self.typecheck(Self.conformer("OTSubscriberDelegate", [
            "func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}",
            "func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) {}"]))
        #expect(subscriber.status == 0, "\(subscriber.output)")
        let publisher = try Self.typecheck(Self.conformer("OTPublisherDelegate", [
            "func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) {}"]))
        #expect(publisher.status == 0, "\(publisher.output)")
    }

    /// Each of the five required session methods, misspelt in turn, fails to compile.
    @Test(arguments: 0..<5) func misspeltRequiredSessionMethodDoesNotCompile(index: Int) throws {
        var methods = Self.sessionMethods
        methods[index] = methods[index].replacingOccurrences(of: "session(_ session: OTSession, ", with: "session(_ session: OTSession, my")
            .replacingOccurrences(of: "func sessionDid", with: "func sessionHas")
        let result = try Self.typecheck(Self.conformer("OTSessionDelegate", methods))
        #expect(result.status != 0)
        #expect(Self.refuses(result.output, "OTSessionDelegate"), "\(result.output)")
    }

    /// An app with OTKit's old name `subscriberDidConnectToStream(_:)` no longer compiles
    /// (it would have compiled and never been called).
    @Test func oldSubscriberNameDoesNotCompile() throws {
        let result = try Self.typecheck(Self.conformer("OTSubscriberDelegate", [
            "func subscriberDidConnectToStream(_ subscriber: OTSubscriberKit) {}",
            "func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) {}"]))
        #expect(result.status != 0)
        #expect(Self.refuses(result.output, "OTSubscriberKitDelegate"), "\(result.output)")
    }

    @Test func publisherWithoutDidFailDoesNotCompile() throws {
        let result = try Self.typecheck(Self.conformer("OTPublisherDelegate", [
            "func publisher(_ publisher: OTPublisherKit, didFailWithErorr error: OTError) {}"]))
        #expect(result.status != 0)
        #expect(Self.refuses(result.output, "OTPublisherKitDelegate"), "\(result.output)")
    }

    /// The guides' code compiles against OTKit's public API alone.
    @Test func guideCodeNeedsOnlyThePublicAPI() throws {
        let (_, root) = try Self.locations()
        let result = try Self.typecheck(path: root.appendingPathComponent("Tests/OTKitTests/Guide/GuideViewController.swift").path)
        #expect(result.status == 0, "\(result.output)")
    }
}
