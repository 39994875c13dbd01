import Foundation
import OTNet
import Testing

@Suite(.serialized) struct WebSocketRaceTests {
    // Sends that straddle the moment the connection opens: some are queued before the
    // handshake, some race the first writes, the rest go out on an open socket.
    @Test(arguments: [0, 200, 1000, 5000])
    func sendsAroundTheOpeningAllArrive(pauseMicroseconds: Int) throws {
        let server = try WebServer(configuration: WebServerConfiguration(), handler: EchoHandler())
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.connect("ws://127.0.0.1:\(server.port)/ws")
        for index in 0..<300 {
            client.send("m\(index)")
            if index % 10 == 0 && pauseMicroseconds > 0 { usleep(useconds_t(pauseMicroseconds)) }
        }
        #expect(eventually { recorder.texts.count == 300 })
        #expect(recorder.texts == (0..<300).map { "m\($0)" })
        client.close()
    }
}
