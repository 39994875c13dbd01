import Foundation
import OTNet
import Testing

/// A self-signed P-256 certificate made with the openssl command in a fresh directory.
struct SelfSignedCertificate {
    let directory: String
    var certificate: String { directory + "/cert.pem" }
    var key: String { directory + "/key.pem" }

    init() throws {
        directory = NSTemporaryDirectory() + "otnet-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem", "-days", "2",
                             "-subj", "/CN=localhost"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw WebError("openssl req failed") }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

@Suite(.serialized) struct WebServerTLSTests {
    @Test func wssEchoWorksWithSelfSignedCertificatesAllowedAndFailsWithout() throws {
        let files = try SelfSignedCertificate()
        defer { files.remove() }
        var configuration = WebServerConfiguration()
        configuration.tlsCertificatePath = files.certificate
        configuration.tlsPrivateKeyPath = files.key
        let handler = EchoHandler()
        let server = try WebServer(configuration: configuration, handler: handler)
        defer { server.stop() }
        let url = "wss://127.0.0.1:\(server.port)/ws/secure"

        let trusting = ClientRecorder()
        let client = try trusting.connect(url, allowSelfSigned: true)
        for index in 0..<100 { client.send("secure \(index)") }
        #expect(eventually { trusting.texts.count == 100 })
        #expect(trusting.texts == (0..<100).map { "secure \($0)" })
        client.close()
        #expect(trusting.closes == [nil])

        let strict = ClientRecorder()
        let refused = try strict.connect(url)
        #expect(eventually { strict.closes.count == 1 })
        #expect(strict.opened == 0)
        #expect(strict.closes.first??.contains("cannot connect") == true)
        refused.close()

        // Plain ws:// against the TLS port does not get a WebSocket either.
        let plain = ClientRecorder()
        let wrong = try plain.connect("ws://127.0.0.1:\(server.port)/ws/secure")
        #expect(eventually { plain.closes.count == 1 })
        #expect(plain.opened == 0)
        wrong.close()
        #expect(handler.snapshot().opened.count == 1)
    }

    @Test func missingCertificateFilesAreNamedInTheError() throws {
        var configuration = WebServerConfiguration()
        configuration.tlsCertificatePath = "/nonexistent/otnet-cert.pem"
        configuration.tlsPrivateKeyPath = "/nonexistent/otnet-key.pem"
        let error = #expect(throws: WebError.self) { _ = try WebServer(configuration: configuration, handler: EchoHandler()) }
        #expect(error?.message.contains("/nonexistent/otnet-cert.pem") == true)

        configuration.tlsPrivateKeyPath = nil
        #expect(throws: WebError.self) { _ = try WebServer(configuration: configuration, handler: EchoHandler()) }
    }

    @Test func aKeyThatIsNotPEMFailsToStart() throws {
        let files = try SelfSignedCertificate()
        defer { files.remove() }
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: files.key))
        var configuration = WebServerConfiguration()
        configuration.tlsCertificatePath = files.certificate
        configuration.tlsPrivateKeyPath = files.key
        #expect(throws: WebError.self) { _ = try WebServer(configuration: configuration, handler: EchoHandler()) }
    }
}
