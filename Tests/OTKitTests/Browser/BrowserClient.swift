import Foundation
import OTTestSupport
import Testing

/// A browser participant for the tests: a Chromium tab on an app page (served by the
/// test's own web server, another origin than the router's, as a real app's) that loads
/// `/otkit.js` from the router, joins a session and records every event it gets in a
/// global array the test reads through DevTools.
struct BrowserClient {
    /// The app page: `join(...)` imports otkit.js from the router, registers handlers
    /// that record each event as plain JSON, and connects.
    static let appPage = """
    <!doctype html><meta charset=utf-8><title>otkit.js test app</title>
    <script type=module>
    window.events = [];
    const record = (event) => window.events.push(event);
    const connection = (c) => c ? {connectionId: c.connectionId, data: c.data, creationTime: c.creationTime} : null;
    const stream = (s) => ({streamId: s.streamId, name: s.name, hasAudio: s.hasAudio, hasVideo: s.hasVideo,
      videoType: s.videoType, width: s.videoDimensions.width, height: s.videoDimensions.height,
      connection: connection(s.connection)});
    const failure = (error) => error ? {name: error.name, code: error.code, message: error.message} : null;
    window.join = async (moduleURL, apiKey, sessionId, token, options) => {
      const {default: OT} = await import(moduleURL);
      window.OT = OT;
      OT.on('exception', (e) => window.events.push({type: 'exception', reason: e.title, data: `${e.code} ${e.message}`}));
      const session = OT.initSession(apiKey, sessionId, options);
      window.session = session;
      session.on({
        sessionConnected: (e) => record({type: e.type, connections: e.connections.map(connection), streams: e.streams.map(stream)}),
        sessionDisconnected: (e) => record({type: e.type, reason: e.reason}),
        sessionReconnecting: (e) => record({type: e.type}),
        sessionReconnected: (e) => record({type: e.type}),
        connectionCreated: (e) => record({type: e.type, connection: connection(e.connection)}),
        connectionDestroyed: (e) => record({type: e.type, connection: connection(e.connection), reason: e.reason}),
        streamCreated: (e) => record({type: e.type, stream: stream(e.stream)}),
        streamDestroyed: (e) => record({type: e.type, stream: stream(e.stream), reason: e.reason}),
        muteForced: (e) => record({type: e.type, active: e.active}),
        archiveStarted: (e) => record({type: e.type, id: e.id, name: e.name}),
        archiveStopped: (e) => record({type: e.type, id: e.id}),
        streamPropertyChanged: (e) => record({type: e.type, stream: stream(e.stream), changedProperty: e.changedProperty,
          oldValue: JSON.stringify(e.oldValue), newValue: JSON.stringify(e.newValue)}),
        signal: (e) => record({type: 'signal', signalType: e.type, data: e.data, from: connection(e.from)}),
      });
      session.on('signal:chat', (e) => record({type: 'signal:chat', signalType: e.type, data: e.data, from: connection(e.from)}));
      return await new Promise((resolve) => session.connect(token, (error) =>
        resolve(error ? {error: failure(error)} : {connectionId: session.connection.connectionId})));
    };
    window.sendSignal = (options) => new Promise((resolve) => session.signal(options, (error) => resolve(failure(error))));
    window.failure = failure;
    // Media: one publisher and any number of subscribers (by stream id), each in a <div>;
    // their own events are recorded too, with `on` naming the object.
    const box = (id) => { const div = document.createElement('div'); div.id = id; document.body.appendChild(div); return div; };
    window.publish = (props) => new Promise((resolve) => {
      const publisher = OT.initPublisher(box('publisher'), props, (error) => { if (error) resolve({error: failure(error)}); });
      window.publisher = publisher;
      for (const type of ['accessAllowed', 'accessDenied', 'videoElementCreated', 'streamCreated', 'streamDestroyed', 'muteForced', 'destroyed']) {
        publisher.on(type, (e) => record({type: 'publisher:' + type, stream: e.stream ? stream(e.stream) : undefined, reason: e.reason}));
      }
      session.publish(publisher, (error) => resolve(error ? {error: failure(error)} : {streamId: publisher.stream.streamId}));
    });
    window.subscribers = {};
    window.subscribe = (streamId, props) => new Promise((resolve) => {
      const target = session.streams.find((s) => s.streamId === streamId);
      if (!target) { resolve({error: {name: 'test', code: 0, message: 'no stream ' + streamId}}); return; }
      const subscriber = session.subscribe(target, box('subscriber-' + streamId), props || {},
        (error) => resolve(error ? {error: failure(error)} : {subscriberId: subscriber.subscriberId}));
      window.subscribers[streamId] = subscriber;
      for (const type of ['videoElementCreated', 'connected', 'destroyed', 'encryptionSecretMismatch', 'encryptionSecretMatch']) {
        subscriber.on(type, (e) => record({type: 'subscriber:' + type, reason: e.reason}));
      }
    });
    // The RTCPeerConnection's own report of the publisher (no argument) or of the
    // subscriber of `streamId`, as a plain list, plus the OpenTok.js getStats summary.
    window.mediaStats = async (streamId) => {
      const who = streamId === undefined ? window.publisher : window.subscribers[streamId];
      const report = streamId === undefined ? (await who.getRtcStatsReport())[0].rtcStatsReport : await who.getRtcStatsReport();
      const summary = await who.getStats();
      return {report: [...report.values()], summary: streamId === undefined ? summary[0].stats : summary};
    };
    // session.setEncryptionSecret: null once the key is in use, else the error.
    window.setSecret = (secret) => session.setEncryptionSecret(secret).then(() => null, failure);
    window.ready = true;
    </script>
    """

    /// A connection as the page recorded it.
    struct Connection: Decodable, Equatable {
        var connectionId: String
        var data: String
        var creationTime: Int64
    }

    /// A stream as the page recorded it.
    struct Stream: Decodable, Equatable {
        var streamId: String
        var name: String
        var hasAudio: Bool
        var hasVideo: Bool
        var videoType: String
        var width: Int
        var height: Int
        var connection: Connection?
    }

    /// One recorded event.
    struct Event: Decodable {
        var type: String
        var reason: String?
        var connection: Connection?
        var connections: [Connection]?
        var stream: Stream?
        var signalType: String?
        var data: String?
        var from: Connection?
        var active: Bool?
        var id: String?
        var name: String?
        var changedProperty: String?
        var oldValue: String?
        var newValue: String?
    }

    /// An OTError as the page saw it.
    struct Failure: Decodable, Equatable {
        var name: String
        var code: Int
        var message: String
    }

    private struct JoinResult: Decodable {
        var connectionId: String?
        var error: Failure?
    }

    let page: ChromiumPage

    /// Opens a tab on the app page of `server`.
    init(_ browser: ChromiumBrowser, _ server: ChromiumPageServer) throws {
        page = try browser.openPage()
        try page.navigate(server.url("app.html"))
        try page.waitFor("window.ready === true", what: "the app page's module to run")
    }

    /// Joins with `token` through `routerURL`'s /otkit.js (signaling to `signalingURL`
    /// when given); returns the connection id or the connect callback's error.
    func join(_ routerURL: String, apiKey: String, sessionId: String, token: String,
              signalingURL: String? = nil) throws -> Result<String, BrowserFailure> {
        let options = signalingURL.map { #"{routerURL: "\#($0)"}"# } ?? "{}"
        let result = try page.evaluate("join(\(js(routerURL + "/otkit.js")), \(js(apiKey)), \(js(sessionId)), \(js(token)), \(options))",
                                       as: JoinResult.self, timeout: 30)
        if let id = result.connectionId { return .success(id) }
        return .failure(BrowserFailure(failure: result.error ?? Failure(name: "?", code: 0, message: "no answer")))
    }

    /// Sends a signal from the page; nil when the callback had no error.
    func signal(type: String?, data: String, to: String? = nil) throws -> Failure? {
        var fields = ["data: \(js(data))"]
        if let type { fields.append("type: \(js(type))") }
        // A Connection object, as OpenTok.js apps pass it (an unknown id is a test error, not "everyone").
        if let to { fields.append("to: session.connections.find((c) => c.connectionId === \(js(to))) || (() => { throw new Error('no connection ' + \(js(to))) })()") }
        return try page.evaluate("sendSignal({\(fields.joined(separator: ", "))})", as: Failure?.self)
    }

    /// Everything recorded so far.
    func events() throws -> [Event] { try page.evaluate("window.events", as: [Event].self) }

    /// Waits (up to `seconds`) until the recorded events satisfy `predicate`; returns them.
    @discardableResult
    func wait(_ seconds: Double = 15, what: String, sourceLocation: SourceLocation = #_sourceLocation,
              until predicate: ([Event]) -> Bool) throws -> [Event] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let events = try self.events()
            if predicate(events) { return events }
            if Date() >= deadline {
                let summary = events.map { "\($0.type)(\([$0.reason, $0.data].compactMap { $0 }.joined(separator: ": ")))" }
                Issue.record("browser: waited \(seconds) s for \(what); events: \(summary); console: \(page.consoleMessages.suffix(10))",
                             sourceLocation: sourceLocation)
                return events
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// `text` as a JavaScript string literal.
    func js(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "''"
    }
}

/// A connect callback's error, as a Swift error for `Result`.
struct BrowserFailure: Error, Equatable {
    var failure: BrowserClient.Failure
}
