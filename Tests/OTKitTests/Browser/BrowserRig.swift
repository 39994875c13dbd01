import Foundation
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// The world of one browser media test: `device` as the process's audio device (under
/// `AudioDeviceTestLock`), an embedded router with its own `MediaRouter` (so tests read the
/// forwarding counters), a session (routed, or relayed or e2ee when asked), the app page server and one headless Chromium whose
/// fake camera runs at `fps`; all closed after the body. Cost: one Chromium process.
struct BrowserRig {
    let kit: SessionTestKit
    let router: Router
    let media: MediaRouter
    let sessionId: String
    let browser: ChromiumBrowser
    let server: ChromiumPageServer

    /// Runs `body` in a fresh rig for `kit`'s project.
    /// `e2ee`: the session is created through `POST /session/create` with `e2ee=true`.
    static func run(_ kit: SessionTestKit, device: ToneSourceDevice = ToneSourceDevice(), fps: Int? = nil, relayed: Bool = false,
                    e2ee: Bool = false, _ body: (BrowserRig) throws -> Void) throws {
        try AudioDeviceTestLock.run {
            OTAudioDeviceManager.setAudioDevice(device)
            defer {
                OTAudioDeviceManager.setAudioDevice(nil)
                device.close()
            }
            let media = try MediaRouter()
            let router = try kit.startRouter(media: media)
            defer { router.stop() }
            let sessionId: String
            if e2ee {
                let created = try RouterREST(router: router, project: kit.project).createSession("p2p.preference=disabled&e2ee=true")
                sessionId = try #require(created.sessionId, "e2ee session create: \(created.status)")
            } else {
                sessionId = try router.createSession(apiKey: kit.project.apiKey, relayed: relayed)
            }
            let server = try ChromiumPageServer(pages: ["app.html": BrowserClient.appPage])
            defer { server.stop() }
            let browser = try ChromiumBrowser(extraFlags: fps.map { ["--use-fake-device-for-media-stream=fps=\($0)"] } ?? [])
            defer { browser.close() }
            try body(BrowserRig(kit: kit, router: router, media: media, sessionId: sessionId, browser: browser, server: server))
        }
    }

    /// A new tab joined to the session with a token of `role` carrying `data`.
    func tab(data: String, role: Role = .publisher, sourceLocation: SourceLocation = #_sourceLocation) throws -> BrowserClient {
        let client = try BrowserClient(browser, server)
        let joined = try client.join(router.baseURL, apiKey: kit.project.apiKey, sessionId: sessionId,
                                     token: try kit.token(sessionId, role, data: data))
        _ = try #require(try? joined.get(), "browser connect failed: \(joined)", sourceLocation: sourceLocation)
        return client
    }

    /// Waits up to `seconds` for `condition`; false when it never held.
    static func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }
}
