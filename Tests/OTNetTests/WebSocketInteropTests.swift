import Foundation
import OTNet
import OTTestSupport
import Testing

/// Echoes text; answers a binary message with its length and byte sum as text.
private final class InteropHandler: WebServerHandler, @unchecked Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse { .json(404, "{}") }
    func shouldAcceptWebSocket(path: String, query: [(name: String, value: String)]) -> Bool { path == "/ws" }
    func webSocketOpened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)]) {}
    func webSocketReceived(_ peer: any WebSocketPeer, text: String) { peer.send(text) }
    func webSocketReceived(_ peer: any WebSocketPeer, binary: [UInt8]) {
        peer.send("binary \(binary.count) \(binary.reduce(0) { $0 &+ Int($1) })")
    }
    func webSocketClosed(_ peer: any WebSocketPeer) {}
}

/// The server against a WebSocket client nobody here wrote: Python's `websockets`
/// (which offers permessage-deflate, masks its frames with random keys, pings and closes
/// by the book). Required: an unreachable PyPI fails the test, it does not skip it.
@Suite(.serialized) struct WebSocketInteropTests {
    static let script = #"""
import asyncio, json, ssl, sys
from websockets.asyncio.client import connect

async def main(url):
    out = {}
    options = {}
    if url.startswith("wss:"):
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the test's self-signed certificate
        options["ssl"] = context
    async with connect(url, max_size=None, **options) as ws:
        out["extensions"] = [e.name for e in ws.protocol.extensions]
        await ws.send("hello")
        out["text"] = await ws.recv()
        await ws.send("κόσμε 😀")
        out["unicode"] = await ws.recv()
        blob = bytes((i * 7) & 0xFF for i in range(1 << 20))
        await ws.send(blob)
        out["binary"] = await ws.recv()
        out["binaryExpected"] = "binary %d %d" % (len(blob), sum(blob))
        big = "".join(chr(97 + i % 26) for i in range(1 << 20))
        await ws.send(big)
        echoed = await ws.recv()
        out["bigTextEchoed"] = echoed == big
        waiter = await ws.ping(b"are you there")
        await asyncio.wait_for(waiter, 10)
        out["pong"] = True
        # Fragmented: an iterable sends one message in several frames.
        await ws.send(["frag", "ment", "ed"])
        out["fragmented"] = await ws.recv()
    out["closeCode"] = ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None
    print(json.dumps(out))

asyncio.run(main(sys.argv[1]))
"""#

    /// Plain and over TLS (wss, OpenSSL on both ends but nothing else shared).
    @Test(arguments: [false, true])
    func pythonWebsocketsTalksToTheServer(tls: Bool) throws {
        var configuration = WebServerConfiguration()
        configuration.maximumMessageBytes = 4 << 20
        let files = try SelfSignedCertificate()
        defer { files.remove() }
        if tls {
            configuration.tlsCertificatePath = files.certificate
            configuration.tlsPrivateKeyPath = files.key
        }
        let server = try WebServer(configuration: configuration, handler: InteropHandler())
        defer { server.stop() }
        let url = "\(tls ? "wss" : "ws")://127.0.0.1:\(server.port)/ws"
        let result = try PythonWebSockets.run(Self.script, arguments: [url], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(output["extensions"] as? [String] == [])  // permessage-deflate offered, declined
        #expect(output["text"] as? String == "hello")
        #expect(output["unicode"] as? String == "κόσμε 😀")
        #expect(output["binary"] as? String == output["binaryExpected"] as? String)
        #expect(output["bigTextEchoed"] as? Bool == true)
        #expect(output["pong"] as? Bool == true)
        #expect(output["fragmented"] as? String == "fragmented")
        #expect(output["closeCode"] as? Int == 1000)
        #expect(server.statistics.webSocketProtocolErrors == 0)
    }
}
