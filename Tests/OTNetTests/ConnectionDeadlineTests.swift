import Foundation
import OTNet
import OTTestSupport
import Testing

/// A socket that connects and then says nothing — in plain HTTP, or without ever starting
/// its TLS handshake — is closed by the server's first-request deadline (10 s), so idle
/// sockets cannot pile up; a client that talks meanwhile is served.
@Suite(.serialized) struct ConnectionDeadlineTests {
    @Test func silentSocketsAreClosedPlainAndTLS() throws {
        let files = try SelfSignedCertificate()
        defer { files.remove() }
        var secure = WebServerConfiguration()
        secure.tlsCertificatePath = files.certificate
        secure.tlsPrivateKeyPath = files.key
        let plainServer = try WebServer(configuration: WebServerConfiguration(), handler: EchoHandler())
        let tlsServer = try WebServer(configuration: secure, handler: EchoHandler())
        defer { plainServer.stop(); tlsServer.stop() }
        let silentPlain = try #require(RawTCPConnection(port: plainServer.port))
        let silentTLS = try #require(RawTCPConnection(port: tlsServer.port))
        // Half a request: the head never ends.
        let slow = try #require(RawTCPConnection(port: plainServer.port))
        #expect(slow.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        #expect(try HTTPClient.request("GET", "http://127.0.0.1:\(plainServer.port)/x").status == 200)
        let started = Date()
        #expect(silentPlain.readUntilClosed(seconds: 30).closed)
        #expect(silentTLS.readUntilClosed(seconds: 30).closed)
        // Closed by the deadline, not at once (which would mean something else went wrong).
        #expect(Date().timeIntervalSince(started) > 3)
        #expect(slow.readUntilClosed(seconds: 40).closed)
    }
}
