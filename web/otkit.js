// otkit.js: OTKit's JavaScript client, a plain ES module shaped like OpenTok.js.
//
//   import OT from 'http://<router>/otkit.js';
//   const session = OT.initSession(apiKey, sessionId);
//   session.on('signal:chat', (event) => console.log(event.data, event.from.connectionId));
//   session.connect(token, (error) => { if (error) console.log(error.name, error.code); });
//
// It speaks the signaling protocol OTKit's native clients speak (docs/sessions.md): JSON
// over a WebSocket at /v1/session/{sessionId}/ws on the router that served this file,
// numbered requests answered by id, numbered events acknowledged, a 1 s heartbeat, and a
// resume of the same connection (no event lost) after a dropped socket.
// Media (publish, subscribe) arrives with the router's WebRTC edge; until then those
// calls fail with an OTError that says so. The router serves this file at /otkit.js
// from an embedded copy (Sources/OTRouter/Web/OTKitJS.swift, checked byte for byte
// against this file by the tests). See docs/webrtc.md.

const VERSION = '0.1.0';
const HEARTBEAT_INTERVAL_MS = 1000;  // the agreed heartbeat (as OTKit's native client)
const HEARTBEAT_TIMEOUT_MS = 3000;   // silence that counts as a lost path
const CONNECT_TIMEOUT_MS = 10000;    // a first connect the router never answers: 1021
const RESUME_RETRY_MS = 500;         // between resume attempts while reconnecting
const ACKNOWLEDGE_EVERY = 256;       // unacknowledged events that trigger an ack at once
const MAX_SIGNAL_TYPE = 128;
const MAX_SIGNAL_DATA_BYTES = 8192;

// OpenTok's error codes and the OpenTok.js names for them (OT_ prefix); codes OpenTok.js
// names no error for get the nearest name.
const ERROR_NAMES = {
  1004: 'OT_AUTHENTICATION_ERROR',
  1005: 'OT_INVALID_SESSION_ID',
  1006: 'OT_CONNECT_FAILED',
  1010: 'OT_NOT_CONNECTED',
  1011: 'OT_INVALID_PARAMETER',
  1015: 'OT_ILLEGAL_STATE',
  1021: 'OT_TIMEOUT',
  1022: 'OT_CONNECTION_DROPPED',
  1026: 'OT_TERMS_OF_SERVICE_FAILURE',
  1027: 'OT_CONNECTION_LIMIT_EXCEEDED',
  1112: 'OT_NOT_FOUND',
  1113: 'OT_NOT_FOUND',
  1413: 'OT_INVALID_PARAMETER',
  1461: 'OT_INVALID_PARAMETER',
  1500: 'OT_UNABLE_TO_PUBLISH',
  1520: 'OT_UNABLE_TO_FORCE_DISCONNECT',
  1540: 'OT_UNABLE_TO_FORCE_MUTE',
  1550: 'OT_UNABLE_TO_SIGNAL',
  1600: 'OT_UNABLE_TO_SUBSCRIBE',
  1605: 'OT_STREAM_LIMIT_EXCEEDED',
  2000: 'OT_UNEXPECTED_SERVER_RESPONSE',
};

/** An OpenTok error: `name` (OT_...), `code` (OpenTok's number) and `message`. */
export class OTError extends Error {
  constructor(code, message, name) {
    super(message);
    this.code = code;
    this.name = name || ERROR_NAMES[code] || 'OT_UNEXPECTED_SERVER_RESPONSE';
  }
}

const MEDIA_NOT_YET = 'media needs the router\'s WebRTC edge (issue 16), which this router does not have yet: '
  + 'otkit.js connects, signals and moderates, but cannot publish or subscribe';

// ---------------------------------------------------------------- events

/** An event as OpenTok.js hands it to handlers: `type`, `target`, `cancelable`, plus its fields. */
export class OTEvent {
  constructor(type, target, fields = {}, cancelable = false) {
    this.type = type;
    this.target = target;
    this.cancelable = cancelable;
    this._defaultPrevented = false;
    Object.assign(this, fields);
  }
  preventDefault() { if (this.cancelable) this._defaultPrevented = true; }
  isDefaultPrevented() { return this._defaultPrevented; }
}

/** on/once/off/dispatch with OpenTok.js's forms: on(type, handler, context) and on({type: handler}, context). */
class Emitter {
  constructor() { this._listeners = new Map(); }

  on(type, handler, context) {
    if (type && typeof type === 'object') {
      for (const [name, fn] of Object.entries(type)) this._add(name, fn, handler, false);
    } else {
      this._add(type, handler, context, false);
    }
    return this;
  }

  once(type, handler, context) {
    if (type && typeof type === 'object') {
      for (const [name, fn] of Object.entries(type)) this._add(name, fn, handler, true);
    } else {
      this._add(type, handler, context, true);
    }
    return this;
  }

  off(type, handler, context) {
    if (type === undefined) { this._listeners.clear(); return this; }
    if (type && typeof type === 'object') {
      for (const [name, fn] of Object.entries(type)) this._remove(name, fn, handler);
      return this;
    }
    this._remove(type, handler, context);
    return this;
  }

  _add(types, handler, context, once) {
    if (typeof handler !== 'function') throw new OTError(1011, `a handler for "${types}" must be a function`);
    for (const type of String(types).split(/\s+/).filter(Boolean)) {
      if (!this._listeners.has(type)) this._listeners.set(type, []);
      this._listeners.get(type).push({ handler, context, once });
    }
  }

  _remove(types, handler, context) {
    for (const type of String(types).split(/\s+/).filter(Boolean)) {
      const list = this._listeners.get(type);
      if (!list) continue;
      const kept = list.filter((l) => (handler !== undefined && l.handler !== handler)
        || (context !== undefined && l.context !== context));
      if (kept.length) this._listeners.set(type, kept); else this._listeners.delete(type);
    }
  }

  /** Calls the handlers of `type` (default: event.type) with `event`; a throwing handler does not stop the others. */
  _dispatch(event, type = event.type) {
    const list = this._listeners.get(type);
    if (!list) return;
    for (const listener of [...list]) {
      if (listener.once) this._remove(type, listener.handler, listener.context);
      try {
        listener.handler.call(listener.context || this, event);
      } catch (error) {
        setTimeout(() => { throw error; });  // reported as uncaught, like a DOM event handler's
      }
    }
  }
}

// ---------------------------------------------------------------- model objects

/** A client in the session (OpenTok.js's Connection). */
export class Connection {
  constructor(wire) {
    this.connectionId = wire.connectionId;
    this.id = wire.connectionId;
    this.creationTime = wire.creationTime;
    this.data = wire.data === undefined || wire.data === null ? '' : wire.data;
  }
}

/** A published stream (OpenTok.js's Stream). */
export class Stream {
  constructor(wire, connection) {
    this.streamId = wire.streamId;
    this.id = wire.streamId;
    this.connection = connection;
    this.name = wire.name;
    this.hasAudio = wire.hasAudio;
    this.hasVideo = wire.hasVideo;
    this.videoType = wire.videoType;
    this.videoDimensions = { width: wire.videoWidth, height: wire.videoHeight };
    this.creationTime = wire.creationTime;
    this.frameRate = undefined;  // the signaling protocol does not carry it
  }
}

// ---------------------------------------------------------------- the session

/** A session (OpenTok.js's Session): connect, events, signals, moderation. Made by OT.initSession. */
export class Session extends Emitter {
  constructor(apiKey, sessionId, options = {}) {
    super();
    if (!sessionId || typeof sessionId !== 'string') throw new OTError(1005, 'initSession needs a session id');
    this.apiKey = String(apiKey);
    this.sessionId = sessionId;
    this.connection = null;
    this.capabilities = { publish: 0, subscribe: 0, forceMute: 0, forceDisconnect: 0, forceUnpublish: 0, signal: 0 };
    this._routerURL = new URL(options.routerURL || new URL('.', import.meta.url).href);
    this._state = 'disconnected';  // connecting, connected, reconnecting, disconnecting, disconnected
    this._reset();
  }

  /** The other clients connected now (an array snapshot). */
  get connections() { return [...this._connections.values()]; }
  /** Others' streams published now (an array snapshot). */
  get streams() { return [...this._streams.values()]; }
  /** Whether the session is connected (also while it reconnects). */
  isConnected() { return this._state === 'connected' || this._state === 'reconnecting'; }

  /** Connects with `token`; `callback(error)` once: no error when connected. */
  connect(token, callback) {
    const done = typeof callback === 'function' ? callback : () => {};
    if (this._state !== 'disconnected') {
      const error = new OTError(1015, `connect called while the session is ${this._state}`);
      setTimeout(() => done(error));
      return this;
    }
    if (!token || typeof token !== 'string') {
      const error = new OTError(1004, 'connect needs a token');
      setTimeout(() => done(error));
      return this;
    }
    this._reset();
    this._token = token;
    this._state = 'connecting';
    this._connectCallback = done;
    this._connectTimer = setTimeout(() => {
      if (this._state === 'connecting') this._connectFailed(new OTError(1021, `the router did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`));
    }, CONNECT_TIMEOUT_MS);
    this._openSocket(false);
    return this;
  }

  /** Leaves the session: sessionDisconnected with reason clientDisconnected. */
  disconnect() {
    if (this._state === 'disconnected' || this._state === 'disconnecting') return;
    if (this._state === 'connecting') {
      this._connectFailed(new OTError(1006, 'disconnect was called while connecting'));
      return;
    }
    const socket = this._socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      this._sendRaw(socket, 'disconnect', undefined);
      // The close frame follows the queued message.
      socket.close(1000, 'client disconnected');
    }
    this._finish('clientDisconnected');
  }

  /**
   * Sends a signal: `{type, data, to, retryAfterReconnect}` (`to`: a Connection or a
   * connection id; absent: everyone). `callback(error)` when the router took it or refused it.
   */
  signal(signal, callback) {
    const done = typeof callback === 'function' ? callback : () => {};
    const fail = (error) => { setTimeout(() => done(error)); };
    const options = signal || {};
    const type = options.type === undefined || options.type === null ? '' : String(options.type);
    const data = options.data === undefined || options.data === null ? '' : String(options.data);
    if (type.length > MAX_SIGNAL_TYPE || !/^[A-Za-z0-9\-_~]*$/.test(type)) {
      return fail(new OTError(1461, `a signal type is at most ${MAX_SIGNAL_TYPE} characters of A-Z a-z 0-9 - _ ~`));
    }
    if (new TextEncoder().encode(data).length > MAX_SIGNAL_DATA_BYTES) {
      return fail(new OTError(1413, `signal data is at most ${MAX_SIGNAL_DATA_BYTES} bytes`));
    }
    let to = null;
    if (options.to !== undefined && options.to !== null) {
      to = typeof options.to === 'string' ? options.to : options.to.connectionId;
      if (!to) return fail(new OTError(1011, 'signal "to" must be a Connection or a connection id'));
    }
    const retry = options.retryAfterReconnect !== false;
    if (this._state === 'reconnecting' && retry) {
      this._queuedSignals.push({ request: { type, data, to }, done });
      return undefined;
    }
    if (this._state === 'reconnecting') return fail(new OTError(1550, 'not sent: the session is reconnecting and retryAfterReconnect is false'));
    if (this._state !== 'connected') return fail(new OTError(1010, 'the session is not connected'));
    this._transmitSignal({ request: { type, data, to }, done });
    return undefined;
  }

  /** Moderators: disconnects `connection` (a Connection or its id); `callback(error)`. */
  forceDisconnect(connection, callback) {
    const done = typeof callback === 'function' ? callback : () => {};
    const id = typeof connection === 'string' ? connection : connection && connection.connectionId;
    this._moderate('forceDisconnect', { connectionId: id || '' }, 1520, this.capabilities.forceDisconnect)
      .then(() => done(), (error) => done(error));
  }

  /** Moderators: mutes every stream except `excludedStreams` (Streams or ids), and later ones. Returns a Promise. */
  forceMuteAll(excludedStreams = []) {
    const ids = (excludedStreams || []).map((s) => (typeof s === 'string' ? s : s.streamId));
    return this._moderate('forceMuteAll', { excludedStreamIds: ids }, 1540, this.capabilities.forceMute);
  }

  /** Moderators: mutes one stream (a Stream or its id). Returns a Promise. */
  forceMuteStream(stream) {
    const id = typeof stream === 'string' ? stream : stream && stream.streamId;
    return this._moderate('forceMuteStream', { streamId: id || '' }, 1540, this.capabilities.forceMute);
  }

  /** Moderators: lifts "mute all". Returns a Promise. */
  disableForceMute() {
    return this._moderate('disableForceMute', undefined, 1540, this.capabilities.forceMute);
  }

  /** Not available yet: throws an OTError (1500) saying media needs the WebRTC edge. */
  publish() { throw new OTError(1500, `session.publish: ${MEDIA_NOT_YET}`); }
  /** Not available yet: throws an OTError (1500). */
  unpublish() { throw new OTError(1500, `session.unpublish: ${MEDIA_NOT_YET}`); }
  /** Not available yet: throws an OTError (1600) saying media needs the WebRTC edge. */
  subscribe() { throw new OTError(1600, `session.subscribe: ${MEDIA_NOT_YET}`); }
  /** Not available yet: throws an OTError (1600). */
  unsubscribe() { throw new OTError(1600, `session.unsubscribe: ${MEDIA_NOT_YET}`); }

  // ------------------------------------------------------------ internals: state

  _reset() {
    this._socket = null;
    this._nextRequestId = 1;
    this._pending = new Map();  // requestId -> reply(message)
    this._connections = new Map();
    this._streams = new Map();
    this._archiveId = null;
    this._forceMuteAll = false;
    this._lastEventSeq = 0;
    this._acknowledgedSeq = 0;
    this._lastHeard = 0;
    this._heartbeat = null;
    this._nextSignalId = 1;
    this._inFlightSignals = new Map();  // requestId -> {request, done}
    this._queuedSignals = [];
    this._resumeSecret = null;
    this._graceMs = 30000;
    this._reconnectDeadline = 0;
    this._reconciliation = null;  // {reply, remaining}
  }

  _url() {
    const base = new URL(this._routerURL.href);
    base.protocol = base.protocol === 'https:' || base.protocol === 'wss:' ? 'wss:' : 'ws:';
    base.pathname = `/v1/session/${encodeURIComponent(this.sessionId)}/ws`;
    base.search = '';
    base.hash = '';
    return base.href;
  }

  _openSocket(resume) {
    let socket;
    try {
      socket = new WebSocket(this._url());
    } catch (error) {
      if (resume) this._scheduleResume(); else this._connectFailed(new OTError(1006, `cannot open ${this._url()}: ${error.message}`));
      return;
    }
    this._socket = socket;
    let answered = false;
    socket.onopen = () => {
      if (this._socket !== socket) return;
      this._lastHeard = Date.now();
      const body = { apiKey: this.apiKey, token: this._token, eventSeq: resume ? this._lastEventSeq : 0 };
      if (resume) {
        body.resumeConnectionId = this.connection.connectionId;
        body.resumeSecret = this._resumeSecret;
      }
      this._request('connect', body, (message) => {
        answered = true;
        if (message.local) return;  // the session ended meanwhile
        if (message.type === 'connected') {
          this._startHeartbeat(socket);
          if (resume) this._resumed(message.body); else this._connected(message.body);
        } else if (message.type === 'error') {
          const { code, message: text } = message.body;
          if (resume) {
            if (code !== 1022) this._giveUp(`the router refused to resume: ${text} (${code})`);
          } else {
            this._connectFailed(new OTError(code, text));
          }
        } else {
          this._connectFailed(new OTError(2000, `unexpected reply to connect: ${message.type}`));
        }
      });
    };
    socket.onmessage = (event) => { if (this._socket === socket) this._received(event.data); };
    socket.onclose = (event) => {
      if (this._socket !== socket) return;
      this._lost(`the socket closed (${event.code}${event.reason ? ` ${event.reason}` : ''})`);
    };
    socket.onerror = () => {};  // onclose follows with the code
    if (resume) {
      // An attempt the router accepts but never answers is retried after the heartbeat timeout.
      setTimeout(() => {
        if (!answered && this._socket === socket && this._state === 'reconnecting') {
          this._dropSocket();
          this._scheduleResume();
        }
      }, HEARTBEAT_TIMEOUT_MS);
    }
  }

  _dropSocket() {
    const socket = this._socket;
    this._socket = null;
    if (this._heartbeat) { clearInterval(this._heartbeat); this._heartbeat = null; }
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try { socket.close(); } catch (e) { /* already closing */ }
    }
  }

  _connectFailed(error) {
    clearTimeout(this._connectTimer);
    this._dropSocket();
    this._state = 'disconnected';
    this._token = null;
    const done = this._connectCallback;
    this._connectCallback = null;
    OT._dispatch(new OTEvent('exception', OT, { code: error.code, message: error.message, title: 'Connect Failed', session: this }));
    if (done) done(error);
  }

  _connected(reply) {
    clearTimeout(this._connectTimer);
    if (this._state !== 'connecting') return;
    this._state = 'connected';
    this.connection = new Connection(reply.connection);
    this._applyCapabilities(reply.capabilities);
    this._resumeSecret = reply.resumeSecret;
    if (reply.reconnectGraceMilliseconds > 0) this._graceMs = reply.reconnectGraceMilliseconds;
    this._forceMuteAll = !!reply.forceMuteAll;
    const others = reply.connections.filter((c) => c.connectionId !== this.connection.connectionId).map((c) => new Connection(c));
    for (const connection of others) this._connections.set(connection.connectionId, connection);
    const streams = reply.streams.filter((s) => s.connectionId !== this.connection.connectionId).map((s) => this._makeStream(s));
    for (const stream of streams) this._streams.set(stream.streamId, stream);
    const done = this._connectCallback;
    this._connectCallback = null;
    this._dispatch(new OTEvent('sessionConnected', this, { connections: others, streams }));
    if (done) done(undefined);
    // As OpenTok.js: connectionCreated for every client, your own included (apps compare
    // event.connection.connectionId with session.connection.connectionId). OTKit's native
    // API follows the iOS reference, which leaves your own out.
    for (const connection of [this.connection, ...others]) {
      this._dispatch(new OTEvent('connectionCreated', this, { connection, connections: [connection] }));
    }
    for (const stream of streams) this._dispatch(new OTEvent('streamCreated', this, { stream, streams: [stream] }, true));
    if (reply.archive) {
      this._archiveId = reply.archive.id;
      this._dispatch(new OTEvent('archiveStarted', this, { id: reply.archive.id, name: reply.archive.name }));
    }
  }

  _applyCapabilities(wire) {
    const n = (b) => (b ? 1 : 0);
    this.capabilities = {
      publish: n(wire.canPublish), subscribe: n(wire.canSubscribe), signal: n(wire.canSignal),
      forceMute: n(wire.canForceMute), forceDisconnect: n(wire.canForceDisconnect), forceUnpublish: 0,
    };
  }

  _makeStream(wire) {
    const connection = this._connections.get(wire.connectionId)
      || (this.connection && this.connection.connectionId === wire.connectionId ? this.connection : null)
      || new Connection({ connectionId: wire.connectionId, creationTime: wire.creationTime, data: null });
    return new Stream(wire, connection);
  }

  /** Ends the session locally and tells the app (sessionDisconnected with `reason`). */
  _finish(reason) {
    if (this._state === 'disconnected') return;
    this._dropSocket();
    this._state = 'disconnected';
    const pending = [...this._pending.values()];
    const signals = [...this._inFlightSignals.values(), ...this._queuedSignals];
    this._pending.clear();
    this._inFlightSignals.clear();
    this._queuedSignals = [];
    const error = new OTError(1010, 'the session disconnected before the router answered');
    for (const reply of pending) reply({ type: 'error', body: { code: 1010, message: error.message }, local: true });
    for (const signal of signals) setTimeout(() => signal.done(error));
    this._connections.clear();
    this._streams.clear();
    this._dispatch(new OTEvent('sessionDisconnected', this, { reason }, true));
    this.connection = null;
  }

  // ------------------------------------------------------------ internals: the wire

  _sendRaw(socket, type, body, requestId) {
    const message = { type, requestId: requestId === undefined ? this._nextRequestId++ : requestId };
    if (body !== undefined) message.body = body;
    socket.send(JSON.stringify(message));
    return message.requestId;
  }

  /** Sends a request; `reply(message)` gets the router's answer (an error message when the path is lost first). */
  _request(type, body, reply) {
    const socket = this._socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    const id = this._nextRequestId++;
    if (reply) this._pending.set(id, reply);
    this._sendRaw(socket, type, body, id);
    return id;
  }

  _received(text) {
    this._lastHeard = Date.now();
    let message;
    try { message = JSON.parse(text); } catch (e) { return; }
    if (!message || typeof message.type !== 'string') return;
    if (message.requestId !== undefined && message.requestId !== null) {
      const reply = this._pending.get(message.requestId);
      if (reply) { this._pending.delete(message.requestId); reply(message); }
      return;  // a reply nobody waits for (pong, ok for an ack) is not an event
    }
    const seq = typeof message.seq === 'number' ? message.seq : null;
    if (seq !== null && seq <= this._lastEventSeq) {
      // a copy of an event already handled (replayed after a resume)
    } else {
      this._event(message.type, message.body || {});
      if (seq !== null) {
        this._lastEventSeq = seq;
        if (this._lastEventSeq - this._acknowledgedSeq >= ACKNOWLEDGE_EVERY) this._acknowledge();
      }
    }
    if (this._reconciliation) {
      this._reconciliation.remaining -= 1;
      if (this._reconciliation.remaining <= 0) {
        const { reply } = this._reconciliation;
        this._reconciliation = null;
        this._reconcile(reply);
      }
    }
  }

  _startHeartbeat(socket) {
    if (this._heartbeat) clearInterval(this._heartbeat);
    this._lastHeard = Date.now();
    this._heartbeat = setInterval(() => {
      if (this._socket !== socket) return;
      if (Date.now() - this._lastHeard > HEARTBEAT_TIMEOUT_MS) {
        this._lost(`no message from the router for ${HEARTBEAT_TIMEOUT_MS / 1000} s`);
        return;
      }
      if (!this._acknowledge()) this._request('ping', undefined, null);
    }, HEARTBEAT_INTERVAL_MS);
  }

  /** Acknowledges the events handled since the last ack; true if it sent one. */
  _acknowledge() {
    if (this._lastEventSeq <= this._acknowledgedSeq) return false;
    if (this._request('ack', { eventSeq: this._lastEventSeq }, null) === false) return false;
    this._acknowledgedSeq = this._lastEventSeq;
    return true;
  }

  // ------------------------------------------------------------ internals: events

  _event(type, body) {
    switch (type) {
      case 'connectionCreated': {
        if (this.connection && body.connectionId === this.connection.connectionId) return;
        const connection = new Connection(body);
        this._connections.set(connection.connectionId, connection);
        this._dispatch(new OTEvent('connectionCreated', this, { connection, connections: [connection] }));
        return;
      }
      case 'connectionDestroyed': {
        const connection = this._connections.get(body.connectionId);
        if (!connection) return;
        this._connections.delete(body.connectionId);
        this._dispatch(new OTEvent('connectionDestroyed', this, { connection, connections: [connection], reason: body.reason }));
        return;
      }
      case 'streamCreated': {
        if (this.connection && body.connectionId === this.connection.connectionId) return;
        if (this._streams.has(body.streamId)) return;
        const stream = this._makeStream(body);
        this._streams.set(stream.streamId, stream);
        this._dispatch(new OTEvent('streamCreated', this, { stream, streams: [stream] }, true));
        return;
      }
      case 'streamDestroyed': {
        const stream = this._streams.get(body.streamId);
        if (!stream) return;
        this._streams.delete(body.streamId);
        this._dispatch(new OTEvent('streamDestroyed', this, { stream, streams: [stream], reason: body.reason }, true));
        return;
      }
      case 'streamChanged': {
        const stream = this._streams.get(body.streamId);
        if (!stream) return;
        const change = (property, newValue) => {
          const oldValue = stream[property];
          stream[property] = newValue;
          this._dispatch(new OTEvent('streamPropertyChanged', this, { stream, changedProperty: property, oldValue, newValue }));
        };
        if (typeof body.hasAudio === 'boolean' && body.hasAudio !== stream.hasAudio) change('hasAudio', body.hasAudio);
        if (typeof body.hasVideo === 'boolean' && body.hasVideo !== stream.hasVideo) change('hasVideo', body.hasVideo);
        if (typeof body.videoWidth === 'number' && typeof body.videoHeight === 'number') {
          change('videoDimensions', { width: body.videoWidth, height: body.videoHeight });
        }
        return;
      }
      case 'signal': {
        let from = null;
        if (typeof body.from === 'string') {
          from = this._connections.get(body.from)
            || (this.connection && this.connection.connectionId === body.from ? this.connection : null)
            || new Connection({ connectionId: body.from, creationTime: 0, data: null });
        }
        const eventType = body.type ? `signal:${body.type}` : 'signal';
        const event = new OTEvent(eventType, this, { data: body.data, from });
        this._dispatch(event, 'signal');
        if (body.type) this._dispatch(event, eventType);
        return;
      }
      case 'muteForced':
        // Without a stream: the session-wide state. With one: that (own) stream's publisher,
        // which a browser cannot have until media arrives.
        if (body.streamId === undefined || body.streamId === null) {
          this._forceMuteAll = !!body.active;
          this._dispatch(new OTEvent('muteForced', this, { active: !!body.active }));
        }
        return;
      case 'archiveStarted':
        this._archiveId = body.id;
        this._dispatch(new OTEvent('archiveStarted', this, { id: body.id, name: body.name }));
        return;
      case 'archiveStopped':
        if (this._archiveId === body.archiveId) this._archiveId = null;
        this._dispatch(new OTEvent('archiveStopped', this, { id: body.archiveId }));
        return;
      case 'disconnected': {
        // The router ends this connection (a moderator's forceDisconnect, a fatal error).
        const reason = body.reason === 'forceDisconnected' ? 'forceDisconnected' : 'networkDisconnected';
        if (body.code) {
          OT._dispatch(new OTEvent('exception', OT, { code: body.code, message: `the router closed the connection: ${body.reason}`, title: 'Disconnected', session: this }));
        }
        this._finish(reason);
        return;
      }
      case 'error':
        // An error that answers no request (e.g. a message the router could not read).
        OT._dispatch(new OTEvent('exception', OT, { code: body.code, message: body.message, title: 'Router Error', session: this }));
        return;
      default:
        // streamInterrupted/Resumed, subscriberQuality, encodingPreferences, relayedReceiversRevoked:
        // about media this client does not have yet.
    }
  }

  // ------------------------------------------------------------ internals: signals and moderation

  _transmitSignal(signal) {
    if (signal.request.id === undefined) signal.request.id = this._nextSignalId++;
    const body = { type: signal.request.type, data: signal.request.data, id: signal.request.id };
    if (signal.request.to) body.to = signal.request.to;
    let requestId = null;
    requestId = this._request('signal', body, (message) => {
      this._inFlightSignals.delete(requestId);
      if (message.local) return;  // ended by _finish, which answers the signal itself
      if (message.type === 'ok') signal.done(undefined);
      else if (message.type === 'error') signal.done(new OTError(message.body.code, message.body.message));
      else signal.done(new OTError(2000, `unexpected reply to signal: ${message.type}`));
    });
    if (requestId === false) {
      this._queuedSignals.push(signal);
      return;
    }
    this._inFlightSignals.set(requestId, signal);
  }

  _moderate(type, body, code, allowed) {
    return new Promise((resolve, reject) => {
      if (this._state !== 'connected') { reject(new OTError(1010, 'the session is not connected')); return; }
      if (!allowed) { reject(new OTError(code, `${type} needs a moderator token`)); return; }
      const sent = this._request(type, body, (message) => {
        if (message.type === 'ok') resolve();
        else if (message.type === 'error') reject(new OTError(message.body.code === 1011 ? code : message.body.code, message.body.message));
        else reject(new OTError(2000, `unexpected reply to ${type}: ${message.type}`));
      });
      if (sent === false) reject(new OTError(1010, 'the session is not connected'));
    });
  }

  // ------------------------------------------------------------ internals: reconnection

  _lost(reason) {
    if (this._state === 'connecting') {
      this._connectFailed(new OTError(1006, `cannot reach the router at ${this._url()}: ${reason}`));
    } else if (this._state === 'connected') {
      this._beginReconnecting(reason);
    } else if (this._state === 'reconnecting') {
      this._dropSocket();
      this._scheduleResume();
    }
  }

  _beginReconnecting() {
    this._dropSocket();
    this._state = 'reconnecting';
    this._reconnectDeadline = Date.now() + this._graceMs;
    // Requests whose answer was lost with the path: signals go again after the resume
    // (same id, so the router delivers each once); the others fail.
    const pending = [...this._pending.entries()];
    this._pending.clear();
    const resend = [];
    for (const [requestId, reply] of pending) {
      const signal = this._inFlightSignals.get(requestId);
      if (signal) resend.push(signal); else reply({ type: 'error', body: { code: 1022, message: 'the connection was lost before the router answered' } });
    }
    this._inFlightSignals.clear();
    resend.sort((a, b) => a.request.id - b.request.id);
    this._queuedSignals = [...resend, ...this._queuedSignals];
    this._dispatch(new OTEvent('sessionReconnecting', this));
    this._scheduleResume(0);
  }

  _scheduleResume(delay = RESUME_RETRY_MS) {
    if (this._state !== 'reconnecting') return;
    if (Date.now() >= this._reconnectDeadline) {
      this._giveUp(`could not reach the router again within the ${Math.round(this._graceMs / 1000)} s grace period`);
      return;
    }
    setTimeout(() => { if (this._state === 'reconnecting' && !this._socket) this._openSocket(true); }, delay);
  }

  _giveUp(reason) {
    console.warn(`otkit.js: session ${this.sessionId} lost: ${reason}`);
    OT._dispatch(new OTEvent('exception', OT, { code: 1022, message: reason, title: 'Connection Dropped', session: this }));
    this._finish('networkDisconnected');
  }

  _resumed(reply) {
    if (this._state !== 'reconnecting' || !this.connection || reply.connection.connectionId !== this.connection.connectionId) {
      this._giveUp('the router resumed another connection');
      return;
    }
    this._state = 'connected';
    this._resumeSecret = reply.resumeSecret;
    this._applyCapabilities(reply.capabilities);
    this._acknowledgedSeq = this._lastEventSeq;
    this._dispatch(new OTEvent('sessionReconnected', this));
    const replayed = Math.max(0, reply.replayedEvents || 0);
    if (replayed === 0) this._reconcile(reply); else this._reconciliation = { reply, remaining: replayed };
    const queued = this._queuedSignals;
    this._queuedSignals = [];
    for (const signal of queued) this._transmitSignal(signal);
  }

  /** Brings connections, streams and the archive in line with a resume reply (nothing to do after a complete replay). */
  _reconcile(reply) {
    const own = reply.connection.connectionId;
    const presentStreams = new Set(reply.streams.map((s) => s.streamId));
    const others = reply.connections.filter((c) => c.connectionId !== own);
    const presentConnections = new Set(others.map((c) => c.connectionId));
    for (const id of [...this._streams.keys()]) {
      if (!presentStreams.has(id)) this._event('streamDestroyed', { streamId: id, reason: 'networkDisconnected' });
    }
    for (const id of [...this._connections.keys()]) {
      if (!presentConnections.has(id)) this._event('connectionDestroyed', { connectionId: id, reason: 'networkDisconnected' });
    }
    for (const wire of others) if (!this._connections.has(wire.connectionId)) this._event('connectionCreated', wire);
    for (const wire of reply.streams) if (wire.connectionId !== own && !this._streams.has(wire.streamId)) this._event('streamCreated', wire);
    const archiveId = reply.archive ? reply.archive.id : null;
    if (archiveId !== this._archiveId) {
      if (this._archiveId) this._event('archiveStopped', { archiveId: this._archiveId });
      if (reply.archive) this._event('archiveStarted', reply.archive);
    }
    if (!!reply.forceMuteAll !== this._forceMuteAll) this._event('muteForced', { active: !!reply.forceMuteAll });
  }
}

// ---------------------------------------------------------------- OT

class OTNamespace extends Emitter {
  constructor() {
    super();
    this.version = VERSION;
    this.OTError = OTError;
  }

  /** A Session for `sessionId` on the router that served this file (options.routerURL overrides it). */
  initSession(apiKey, sessionId, options) { return new Session(apiKey, sessionId, options || {}); }

  /** Not available yet: throws an OTError (1500) saying media needs the router's WebRTC edge. */
  initPublisher() { throw new OTError(1500, `OT.initPublisher: ${MEDIA_NOT_YET}`); }

  /** 1 when this browser has what otkit.js needs (WebSocket; RTCPeerConnection for the media to come), else 0. */
  checkSystemRequirements() {
    return typeof WebSocket === 'function' && typeof RTCPeerConnection === 'function' ? 1 : 0;
  }
}

/** The OT namespace: OT.initSession, OT.on('exception', ...), OT.OTError. */
export const OT = new OTNamespace();
if (typeof globalThis !== 'undefined' && globalThis.OT === undefined) globalThis.OT = OT;
export default OT;
