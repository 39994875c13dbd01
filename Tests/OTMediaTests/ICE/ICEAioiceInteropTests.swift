import Foundation
import Glibc
import OTTestSupport
import Synchronization
import Testing
@testable import OTMedia

/// aioice (PyPI), an independent ICE implementation, as the controlling client against
/// the ICE-lite agent over a real UDP socket on 127.0.0.1: its checks (built, signed and
/// fingerprinted by `aioice.stun`) are answered, nominate, and its own parser and integrity
/// check accept the answers with the right mapped address; a check signed with the wrong
/// password gets no answer. It also reads a check our request writer made. A missing
/// aioice fails the test (never skips).
@Suite(.serialized) struct ICEAioiceInteropTests {
    static let script = #"""
import json, socket, sys
from aioice import stun

port, ufrag, pwd, ours = int(sys.argv[1]), sys.argv[2], sys.argv[3], bytes.fromhex(sys.argv[4])
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
results = []
for nominate, password, timeout in [(False, pwd, 5.0), (True, pwd, 5.0), (True, "x" * 24, 1.0), (True, pwd, 5.0)]:
    request = stun.Message(message_method=stun.Method.BINDING, message_class=stun.Class.REQUEST)
    request.attributes["USERNAME"] = ufrag + ":aioC"
    request.attributes["PRIORITY"] = 0x6E001EFF
    request.attributes["ICE-CONTROLLING"] = 0x0102030405060708
    if nominate:
        request.attributes["USE-CANDIDATE"] = None
    request.add_message_integrity(password.encode())  # adds FINGERPRINT too
    sock.settimeout(timeout)
    sock.sendto(bytes(request), ("127.0.0.1", port))
    try:
        data, _ = sock.recvfrom(2048)
    except socket.timeout:
        results.append({"answered": False})
        continue
    response = stun.parse_message(data)  # raises on a wrong FINGERPRINT
    results.append({
        "answered": True,
        "success": response.message_class == stun.Class.RESPONSE and response.message_method == stun.Method.BINDING,
        "sameTransaction": response.transaction_id == request.transaction_id,
        "integrity": response.check_message_integrity(pwd.encode()),
        "fingerprint": "FINGERPRINT" in response.attributes,
        "mapped": list(response.attributes.get("XOR-MAPPED-ADDRESS", ("", 0))),
        "local": list(sock.getsockname()),
    })
parsed = stun.parse_message(ours)
print(json.dumps({"checks": results, "ours": {
    "integrity": parsed.check_message_integrity(pwd.encode()),
    "username": parsed.attributes.get("USERNAME"),
    "priority": parsed.attributes.get("PRIORITY"),
    "controlling": parsed.attributes.get("ICE-CONTROLLING"),
    "useCandidate": "USE-CANDIDATE" in parsed.attributes,
    "request": parsed.message_class == stun.Class.REQUEST,
}}))
"""#

    /// A UDP socket on 127.0.0.1 served by a thread that feeds every datagram to the agent
    /// and sends back what it answers.
    final class Server: @unchecked Sendable {
        let descriptor: Int32
        let port: UInt16
        let state: Mutex<(agent: ICELiteAgent, events: [ICEEvent], stop: Bool)>
        let finished = DispatchSemaphore(value: 0)

        init(agent: ICELiteAgent) throws {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            bound |= withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard fd >= 0, bound == 0 else {
                if fd >= 0 { close(fd) }
                throw POSIXError(.EADDRNOTAVAIL)
            }
            descriptor = fd
            port = UInt16(bigEndian: address.sin_port)
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            state = Mutex((agent, [], false))
            Thread.detachNewThread { [self] in serve() }
        }

        private func serve() {
            var buffer = [UInt8](repeating: 0, count: 2048)
            var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
            while !state.withLock({ $0.stop }) {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let received = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length)
                        }
                    }
                }
                guard received > 0 else { continue }
                let source = SocketAddress(storage: storage, length: length)
                let now = UInt64(DispatchTime.now().uptimeNanoseconds)
                let result = buffer.withUnsafeBytes { bytes in
                    response.withUnsafeMutableBytes { out in
                        state.withLock { $0.agent.handle(UnsafeRawBufferPointer(rebasing: bytes[0 ..< received]),
                                                         from: source, now: now, response: out) }
                    }
                }
                guard case let .respond(byteCount, event) = result else { continue }
                state.withLock { $0.events.append(event) }
                _ = response.withUnsafeBytes { out in
                    withUnsafePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, out.baseAddress, byteCount, 0, $0, length) }
                    }
                }
            }
            finished.signal()
        }

        func stop() {
            state.withLock { $0.stop = true }
            _ = finished.wait(timeout: .now() + 5)
            close(descriptor)
        }
    }

    @Test func aioiceControllingClientIsAnsweredAndNominates() throws {
        let python: String
        switch AioiceVenv.python {
        case let .success(path): python = path
        case let .failure(reason): Issue.record("aioice is required for this test: \(reason)"); return
        }
        let local = ICECredentials.generate()
        var agent = ICELiteAgent(maximumLegs: 4)
        try agent.register(ICELegID(1), local: local, remoteUfrag: "aioC", now: UInt64(DispatchTime.now().uptimeNanoseconds))
        let server = try Server(agent: agent)
        defer { server.stop() }

        // A check our writer makes, as a native client will send it to the router.
        var ours = [UInt8](repeating: 0, count: 128)
        let oursSize = try ours.withUnsafeMutableBytes { buffer in
            try Array(local.password.utf8).withUnsafeBytes { key in
                try STUNBinding.writeRequest(into: buffer, transactionID: .random(), username: "\(local.ufrag):aioC",
                                             priority: 0x6E00_1EFF, tieBreaker: 99, nominate: true, integrityKey: key)
            }
        }
        let oursHex = ours.prefix(oursSize).map { String(format: "%02x", $0) }.joined()

        let result = try Subprocess.run(python, ["-W", "ignore", "-c", Self.script, String(server.port), local.ufrag,
                                                 local.password, oursHex], timeoutSeconds: 60)
        try #require(result.status == 0 && !result.timedOut, "\(result)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let checks = try #require(output["checks"] as? [[String: Any]])
        try #require(checks.count == 4)
        for index in [0, 1, 3] {
            let check = checks[index]
            #expect(check["answered"] as? Bool == true, "check \(index): \(check)")
            #expect(check["success"] as? Bool == true && check["sameTransaction"] as? Bool == true)
            #expect(check["integrity"] as? Bool == true, "aioice's integrity check refused our response")
            #expect(check["fingerprint"] as? Bool == true)
            let mapped = check["mapped"] as? [Any], sender = check["local"] as? [Any]
            #expect(mapped?.first as? String == "127.0.0.1" && sender?.first as? String == "127.0.0.1")
            #expect(mapped?.last as? Int == sender?.last as? Int, "XOR-MAPPED-ADDRESS is not aioice's socket")
        }
        #expect(checks[2]["answered"] as? Bool == false, "a check signed with the wrong password was answered")

        let (events, counters, selected) = server.state.withLock { ($0.events, $0.agent.counters, $0.agent.selectedAddress(of: ICELegID(1))) }
        #expect(events.map(\.change) == [.checked, .nominated, .checked])
        #expect(counters.responses == 3 && counters.drops(.badIntegrity) == 1 && counters.nominations == 1)
        let port = (checks[1]["local"] as? [Any])?.last as? Int
        #expect(selected?.port == port.map(UInt16.init) && selected?.description.hasPrefix("127.0.0.1:") == true)

        let parsed = try #require(output["ours"] as? [String: Any])
        #expect(parsed["integrity"] as? Bool == true, "aioice refused the integrity of our request")
        #expect(parsed["username"] as? String == "\(local.ufrag):aioC")
        #expect(parsed["priority"] as? Int == 0x6E00_1EFF && parsed["controlling"] as? Int == 99)
        #expect(parsed["useCandidate"] as? Bool == true && parsed["request"] as? Bool == true)
    }
}
