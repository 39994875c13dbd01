import Foundation
import OTNet
import Testing

@Suite(.serialized) struct WebServerHTTPTests {
    let handler = EchoHandler()
    let server: WebServer
    var base: String { "http://127.0.0.1:\(server.port)" }

    init() throws {
        server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
    }

    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE"])
    func methodsWithAndWithoutBodiesAreEchoed(method: String) throws {
        defer { server.stop() }
        let plain = try HTTPClient.request(method, base + "/v2/thing")
        #expect(plain.status == 200)
        let echoed = jsonObject(plain.body)
        #expect(echoed["method"] as? String == method)
        #expect(echoed["path"] as? String == "/v2/thing")
        #expect(echoed["bodyCount"] as? Int == 0)

        let text = #"{"name":"\#(method)","n":[1,2,3]}"#
        let withBody = try HTTPClient.request(method, base + "/v2/thing", headers: ["Content-Type": "application/json"], body: Array(text.utf8))
        #expect(withBody.status == 200)
        let body = jsonObject(withBody.body)
        #expect(body["method"] as? String == method)
        #expect(body["body"] as? String == text)
        #expect((body["headers"] as? [String: String])?["content-type"] == "application/json")
    }

    @Test func theJSONContentTypeArrivesExactly() throws {
        defer { server.stop() }
        let response = try HTTPClient.request("GET", base + "/x")
        #expect(response.headers["content-type"] == "application/json")
        #expect(Int(response.headers["content-length"] ?? "") == response.body.count)
        let plain = try HTTPClient.request("GET", base + "/plain")
        #expect(plain.status == 201)
        #expect(plain.headers["content-type"] == "text/plain; version=0.0.4")
        #expect(plain.headers["x-extra"] == "yes")
        #expect(plain.body == Array("ok".utf8))
    }

    @Test func aDoubleSlashPathArrivesFolded() throws {
        defer { server.stop() }
        let response = try HTTPClient.request("GET", base + "//v2/x")
        #expect(jsonObject(response.body)["path"] as? String == "/v2/x")
    }

    @Test func queryArgumentsArriveDecodedAndInOrder() throws {
        defer { server.stop() }
        let response = try HTTPClient.request("GET", base + "/v2/archive?offset=5&count=10&sessionId=1_a%2Bb&space=a%20b&empty=")
        let query = jsonObject(response.body)["query"] as? [[String]]
        #expect(query == [["offset", "5"], ["count", "10"], ["sessionId", "1_a+b"], ["space", "a b"], ["empty", ""]])
    }

    @Test func headersArriveWithLowerCaseNames() throws {
        defer { server.stop() }
        let response = try HTTPClient.request("POST", base + "/v2/project/1/session", headers: [
            "X-OPENTOK-AUTH": "jwt.token.here", "Accept": "application/json", "User-Agent": "OpenTok-Python-SDK/3.9",
            "Authorization": "Basic abc", "Content-Type": "application/json",
        ])
        let headers = jsonObject(response.body)["headers"] as? [String: String] ?? [:]
        #expect(headers["x-opentok-auth"] == "jwt.token.here")
        #expect(headers["accept"] == "application/json")
        #expect(headers["user-agent"] == "OpenTok-Python-SDK/3.9")
        #expect(headers["authorization"] == "Basic abc")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["content-length"] == "0")
        #expect(jsonObject(response.body)["bodyCount"] as? Int == 0)
        #expect(jsonObject(response.body)["remote"] as? String == "127.0.0.1")
    }

    @Test func unknownPathsGetTheHandlersStatusAndNoContentHasNoBody() throws {
        defer { server.stop() }
        let missing = try HTTPClient.request("GET", base + "/missing")
        #expect(missing.status == 404)
        #expect(missing.body == Array(#"{"code":404}"#.utf8))
        let empty = try HTTPClient.request("DELETE", base + "/empty")
        #expect(empty.status == 204)
        #expect(empty.body.isEmpty)
    }

    @Test func bodiesOverOneMebibyteAreRefusedWith413() throws {
        defer { server.stop() }
        let big = [UInt8](repeating: 0x61, count: 2 << 20)
        let response = try HTTPClient.request("POST", base + "/v2/big", headers: ["Content-Type": "application/json"], body: big, timeoutSeconds: 20)
        #expect(response.status == 413)
        // The connection-level limit does not poison the server: a 1 MiB body still passes.
        let fits = [UInt8](repeating: 0x62, count: 1 << 20)
        let ok = try HTTPClient.request("PUT", base + "/v2/fits", body: fits, timeoutSeconds: 20)
        #expect(ok.status == 200)
        #expect(jsonObject(ok.body)["bodyCount"] as? Int == 1 << 20)
    }

    @Test func largeResponsesArriveWholeAndHeadGetsNoBody() throws {
        defer { server.stop() }
        let big = try HTTPClient.request("GET", base + "/big")
        #expect(big.status == 200)
        #expect(big.body == (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let head = try HTTPClient.request("HEAD", base + "/big")
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "300000")
        #expect(head.body.isEmpty)
        // The server still answers normally after a HEAD.
        #expect(try HTTPClient.request("GET", base + "/after-head").status == 200)
    }

    @Test func aSecondServerOnTheSamePortFails() throws {
        defer { server.stop() }
        var configuration = WebServerConfiguration()
        configuration.port = server.port
        #expect(throws: WebError.self) { _ = try WebServer(configuration: configuration, handler: handler) }
    }

    @Test func keepAliveConnectionsServeManyRequests() throws {
        defer { server.stop() }
        // Python's http.client keeps one connection open for all requests.
        let script = """
        import http.client, sys
        c = http.client.HTTPConnection("127.0.0.1", \(server.port), timeout=10)
        for i in range(50):
            c.request("POST", "/k?i=%d" % i, body=b'{"i":%d}' % i, headers={"Content-Type": "application/json"})
            r = c.getresponse(); b = r.read()
            assert r.status == 200 and (b'"/k"' in b), (r.status, b)
            c.request("DELETE", "/empty"); r = c.getresponse(); r.read()
            assert r.status == 204, r.status
        print("ok")
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(output.contains("ok"))
    }
}

@Suite(.serialized) struct WebServerEncodingTests {
    @Test func percentEscapesInPathAndQuery() throws {
        let server = try WebServer(configuration: WebServerConfiguration(), handler: EchoHandler())
        defer { server.stop() }
        let response = try HTTPClient.request("GET", "http://127.0.0.1:\(server.port)/p%20q/x?a=1+2&b=%2B&c=%26d%3D")
        let echoed = jsonObject(response.body)
        // The server decodes both; a `&` or `=` written as an escape stays inside its value.
        #expect(echoed["path"] as? String == "/p q/x")
        #expect(echoed["query"] as? [[String]] == [["a", "1 2"], ["b", "+"], ["c", "&d="]])
    }
}
