import Foundation
import OTTestSupport
import Testing

/// The Chromium harness on this machine: Debian's Chromium starts headless, the DevTools
/// driver navigates tabs and evaluates JavaScript in them, the fake camera feeds WebRTC
/// (two RTCPeerConnections in one page, VP8 over 127.0.0.1), and closing leaves no
/// process and no profile behind. A few seconds; a machine without Chromium fails here.
@Suite(.serialized) struct ChromiumHarnessTests {
    /// Sends the fake camera from one RTCPeerConnection to another in the same page with
    /// VP8 and resolves with the receiver's getStats once it decoded `frames` frames.
    static let loopbackPage = """
    <!doctype html><meta charset=utf-8><title>loopback</title>
    <script>
    async function loopback(frames) {
      const media = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 480}, audio: false});
      const a = new RTCPeerConnection(), b = new RTCPeerConnection();
      a.onicecandidate = e => e.candidate && b.addIceCandidate(e.candidate);
      b.onicecandidate = e => e.candidate && a.addIceCandidate(e.candidate);
      const transceiver = a.addTransceiver(media.getVideoTracks()[0], {direction: 'sendonly'});
      const vp8 = RTCRtpSender.getCapabilities('video').codecs.filter(c => c.mimeType === 'video/VP8');
      transceiver.setCodecPreferences(vp8);
      await a.setLocalDescription();
      await b.setRemoteDescription(a.localDescription);
      await b.setLocalDescription();
      await a.setRemoteDescription(b.localDescription);
      for (;;) {
        const stats = [...(await b.getStats()).values()];
        const inbound = stats.find(s => s.type === 'inbound-rtp' && s.kind === 'video');
        if (inbound && inbound.framesDecoded >= frames) {
          const codec = stats.find(s => s.id === inbound.codecId);
          const pair = stats.find(s => s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded');
          const local = pair && stats.find(s => s.id === pair.localCandidateId);
          return {framesDecoded: inbound.framesDecoded, codec: codec ? codec.mimeType : '',
                  width: inbound.frameWidth || 0, candidateType: local ? local.candidateType : ''};
        }
        await new Promise(r => setTimeout(r, 50));
      }
    }
    </script>
    """

    struct LoopbackResult: Decodable {
        var framesDecoded: Int
        var codec: String
        var width: Int
        var candidateType: String
    }

    @Test func fakeCameraDecodesOverLoopbackWebRTC() throws {
        let server = try ChromiumPageServer(pages: ["loopback.html": Self.loopbackPage])
        defer { server.stop() }
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let page = try browser.openPage()
        try page.navigate(server.url("loopback.html"))
        let result = try page.evaluate("loopback(30)", as: LoopbackResult.self, timeout: 60)
        #expect(result.framesDecoded >= 30)
        #expect(result.codec == "video/VP8")
        #expect(result.width > 0)
        // The machine's own addresses (127.0.0.1 or another local interface: Chrome picks), never a relay.
        #expect(result.candidateType == "host")
    }

    @Test func pagesEvaluateAndCollectConsoleAndErrors() throws {
        let server = try ChromiumPageServer(pages: ["a.html": "<!doctype html><title>a</title><script>var who = 'a'</script>",
                                                    "b.html": "<!doctype html><title>b</title><script>var who = 'b'</script>"])
        defer { server.stop() }
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let first = try browser.openPage(), second = try browser.openPage()
        try first.navigate(server.url("a.html"))
        try second.navigate(server.url("b.html"))
        // Two tabs, two documents: each evaluation runs in its own.
        #expect(try first.evaluate("who", as: String.self) == "a")
        #expect(try second.evaluate("who", as: String.self) == "b")
        // Promises are awaited; values come back by value.
        #expect(try first.evaluate("new Promise(r => setTimeout(() => r({n: 6 * 7}), 100)).then(v => v.n)", as: Int.self) == 42)
        try second.run("console.log('hello', 7); console.error('bad thing')")
        try second.waitFor("true")
        #expect(second.consoleMessages.contains("log: hello 7"), "\(second.consoleMessages)")
        #expect(second.consoleMessages.contains("error: bad thing"), "\(second.consoleMessages)")
        #expect(first.consoleMessages.isEmpty, "console of one tab must not leak into another: \(first.consoleMessages)")
        // A thrown exception and a rejected promise are failures that say what happened.
        #expect(throws: ChromiumError.self) { try first.run("throw new Error('boom')") }
        do {
            try first.run("Promise.reject(new Error('refused here'))")
            Issue.record("a rejected promise must throw")
        } catch {
            #expect(error.description.contains("refused here"), "\(error)")
        }
        // A condition that never holds times out with a message naming it.
        do {
            try first.waitFor("window.neverSet === true", timeout: 0.5, what: "neverSet")
            Issue.record("waitFor must time out")
        } catch {
            #expect(error.description.contains("neverSet"), "\(error)")
        }
    }

    @Test func closeKillsEveryProcessAndRemovesTheProfile() throws {
        let browser = try ChromiumBrowser()
        let page = try browser.openPage()
        try page.run("1")
        let profile = browser.profileDirectory
        #expect(browser.livingProcesses.count >= 2, "a running Chromium has several processes")
        #expect(FileManager.default.fileExists(atPath: profile))
        browser.close()
        // Killed processes can linger as zombies until their parent (also killed) is reaped
        // by init; they are not counted. Give the kernel a moment under load.
        let deadline = Date().addingTimeInterval(10)
        while !browser.livingProcesses.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(browser.livingProcesses.isEmpty, "left running: \(browser.livingProcesses)")
        #expect(!browser.isRunning)
        #expect(!FileManager.default.fileExists(atPath: profile))
        #expect(throws: ChromiumError.self) { try page.run("1") }
    }
}
