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
// Media goes over WebRTC to the router's one-port edge: OT.initPublisher takes the camera
// and microphone (getUserMedia), session.publish sends them on an RTCPeerConnection whose
// offer travels in the `publish` request (the router answers: ICE-lite, DTLS-SRTP, VP8 and
// Opus), session.subscribe takes the router's offer from the `subscribed` reply and sends
// the browser's answer in `subscriberAnswer`. In an end-to-end encrypted session
// (session.setEncryptionSecret) every encoded frame is sealed and opened with SFrame in a
// Worker, as OTKit's native clients do (docs/e2ee.md). The router serves this file at /otkit.js
// from an embedded copy (Sources/OTRouter/Web/OTKitJS.swift, checked byte for byte
// against this file by the tests). See docs/webrtc.md.

const VERSION = '0.2.0';
const HEARTBEAT_INTERVAL_MS = 1000;  // the agreed heartbeat (as OTKit's native client)
const HEARTBEAT_TIMEOUT_MS = 3000;   // silence that counts as a lost path
const CONNECT_TIMEOUT_MS = 10000;    // a first connect the router never answers: 1021
const RESUME_RETRY_MS = 500;         // between resume attempts while reconnecting
const ACKNOWLEDGE_EVERY = 256;       // unacknowledged events that trigger an ack at once
const MAX_SIGNAL_TYPE = 128;
const MAX_SIGNAL_DATA_BYTES = 8192;
const MEDIA_CONNECT_TIMEOUT_MS = 20000;  // ICE + DTLS not done by then: the leg failed

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
  1604: 'OT_STREAM_NOT_FOUND',
  1605: 'OT_STREAM_LIMIT_EXCEEDED',
  1606: 'OT_UNABLE_TO_SUBSCRIBE',
  1610: 'OT_UNABLE_TO_PUBLISH',
  2000: 'OT_UNEXPECTED_SERVER_RESPONSE',
  6000: 'OT_ENCRYPTION_SECRET_MISSING',
  6001: 'OT_ENCRYPTION_INTERNAL_ERROR',
  6002: 'OT_DECRYPTION_INTERNAL_ERROR',
  6003: 'OT_ENCRYPTION_SECRET_MISMATCH',
  6004: 'OT_INVALID_ENCRYPTION_SECRET',
};

/** An OpenTok error: `name` (OT_...), `code` (OpenTok's number) and `message`. */
export class OTError extends Error {
  constructor(code, message, name) {
    super(message);
    this.code = code;
    this.name = name || ERROR_NAMES[code] || 'OT_UNEXPECTED_SERVER_RESPONSE';
  }
}

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

// ---------------------------------------------------------------- media: helpers

const DEFAULT_RESOLUTION = '640x480';
const MAX_DIMENSION = 16384;  // the router's range for widths and heights
const MAX_FRAME_RATE = 60;

/** A fresh id for a Publisher or Subscriber object (local only; the router's ids are the stream and subscriber ids). */
function localId(prefix) {
  const random = typeof crypto !== 'undefined' && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
  return `${prefix}_${random}`;
}

/** The DOM element `target` names: an element, an element id, or nothing (null). */
function elementFor(target) {
  if (!target || typeof document === 'undefined') return null;
  if (typeof target === 'string') return document.getElementById(target);
  return typeof target.appendChild === 'function' ? target : null;
}

/**
 * A <video> playing `mediaStream` put into `element` (insertMode 'append', the default
 * here, or 'replace': the element's content is replaced); null without an element or
 * with insertDefaultUI false. `muted` for a local preview (no echo of one's own mic).
 */
function videoElement(element, mediaStream, properties, muted, className) {
  if (!element || properties.insertDefaultUI === false) return null;
  const video = document.createElement('video');
  video.className = className;
  video.autoplay = true;
  video.playsInline = true;
  video.muted = muted;
  if (properties.width !== undefined) video.style.width = typeof properties.width === 'number' ? `${properties.width}px` : String(properties.width);
  if (properties.height !== undefined) video.style.height = typeof properties.height === 'number' ? `${properties.height}px` : String(properties.height);
  video.srcObject = mediaStream;
  if (properties.insertMode === 'replace') element.replaceChildren(video); else element.appendChild(video);
  const playing = video.play();
  if (playing && playing.catch) playing.catch(() => {});  // autoplay refused: the app can call play() on a click
  return video;
}

/** Calls `callback(error, value)` when given (then returns undefined), else returns the promise. */
function settle(promise, callback) {
  if (typeof callback !== 'function') return promise;
  promise.then((value) => callback(undefined, value), (error) => callback(error));
  return undefined;
}

/** Sums an RTCStatsReport's `type` entries per kind into OpenTok.js's getStats shape (plus the frame and sample counters). */
function summarizeStats(report, type) {
  const sending = type === 'outbound-rtp';
  const empty = () => (sending ? { bytesSent: 0, packetsSent: 0, packetsLost: 0 } : { bytesReceived: 0, packetsReceived: 0, packetsLost: 0 });
  const stats = { audio: empty(), video: { ...empty(), frameRate: 0 }, timestamp: Date.now() };
  if (sending) {
    Object.assign(stats.video, { framesEncoded: 0, framesSent: 0 });
  } else {
    stats.video.framesDecoded = 0;
    Object.assign(stats.audio, { totalSamplesReceived: 0, audioLevel: 0 });
  }
  for (const entry of report.values()) {
    const kind = entry.kind || entry.mediaType;
    if (kind !== 'audio' && kind !== 'video') continue;
    const into = stats[kind];
    if (entry.type === type) {
      for (const field of Object.keys(into)) {
        if (field === 'packetsLost' || field === 'audioLevel') continue;
        if (typeof entry[field] === 'number') into[field] += entry[field];
      }
      if (kind === 'video' && typeof entry.framesPerSecond === 'number') into.frameRate = Math.max(into.frameRate, entry.framesPerSecond);
      if (!sending && typeof entry.packetsLost === 'number') into.packetsLost += entry.packetsLost;
      if (!sending && kind === 'audio' && typeof entry.audioLevel === 'number') into.audioLevel = Math.max(into.audioLevel, entry.audioLevel);
    } else if (sending && entry.type === 'remote-inbound-rtp' && typeof entry.packetsLost === 'number') {
      into.packetsLost += entry.packetsLost;  // what the router reports losing
    }
  }
  return stats;
}

/**
 * The encodings a camera track is sent with: from 1280 pixels wide, three simulcast
 * layers (rids q, h, f at a quarter, half and full size), as OpenTok does for camera
 * publishers in routed sessions and the native SDK's publisher does at that size. Rids are
 * listed smallest first, the order the router numbers layers in; each subscriber then gets
 * the layer its link and preferred resolution allow. Below 1280, one encoding (undefined);
 * the native SDK also sends a half-size layer from 640 (docs/webrtc.md says why not here).
 */
function simulcastEncodings(track) {
  const width = (track.getSettings && track.getSettings().width) || 0;
  if (width < 1280) return undefined;
  return [{ rid: 'q', scaleResolutionDownBy: 4 }, { rid: 'h', scaleResolutionDownBy: 2 }, { rid: 'f', scaleResolutionDownBy: 1 }];
}

/** `resolution` ("WxH") as [width, height], or an OTError (1011). */
function parseResolution(resolution) {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(String(resolution));
  const width = match ? Number(match[1]) : 0, height = match ? Number(match[2]) : 0;
  if (width < 1 || height < 1 || width > MAX_DIMENSION || height > MAX_DIMENSION) {
    return new OTError(1011, `resolution must be "WIDTHxHEIGHT" with each 1-${MAX_DIMENSION}, not ${JSON.stringify(resolution)}`);
  }
  return [width, height];
}

/** getUserMedia constraints for OpenTok.js publisher properties, or an OTError (1011) for bad ones. */
function mediaConstraints(props) {
  const wantsAudio = props.audioSource !== null && props.audioSource !== false;
  const wantsVideo = props.videoSource !== null && props.videoSource !== false;
  if (!wantsAudio && !wantsVideo) return new OTError(1011, 'a publisher needs audio or video: audioSource and videoSource are both off');
  let video = false;
  if (wantsVideo) {
    const size = parseResolution(props.resolution === undefined ? DEFAULT_RESOLUTION : props.resolution);
    if (size instanceof OTError) return size;
    const rate = props.frameRate === undefined ? 30 : Number(props.frameRate);
    if (!(rate >= 1 && rate <= MAX_FRAME_RATE)) return new OTError(1011, `frameRate must be 1-${MAX_FRAME_RATE}, not ${JSON.stringify(props.frameRate)}`);
    video = { width: { ideal: size[0] }, height: { ideal: size[1] }, frameRate: { ideal: rate } };
    if (typeof props.videoSource === 'string') video.deviceId = { exact: props.videoSource };
  }
  let audio = false;
  if (wantsAudio) {
    audio = {};
    const processing = props.disableAudioProcessing === true ? false : undefined;
    for (const name of ['echoCancellation', 'noiseSuppression', 'autoGainControl']) {
      const value = typeof props[name] === 'boolean' ? props[name] : processing;
      if (value !== undefined) audio[name] = value;
    }
    if (typeof props.audioSource === 'string') audio.deviceId = { exact: props.audioSource };
    if (Object.keys(audio).length === 0) audio = true;
  }
  return { audio, video };
}

/** An OTError for a getUserMedia failure, named as OpenTok.js names them (all code 1500). */
function mediaAccessError(error) {
  const name = error && error.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') return new OTError(1500, `camera or microphone access denied: ${error.message}`, 'OT_USER_MEDIA_ACCESS_DENIED');
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return new OTError(1500, `no camera or microphone that fits: ${error.message || name}`, 'OT_NO_DEVICES_FOUND');
  return new OTError(1500, `cannot open the camera or microphone: ${(error && error.message) || name}`, 'OT_HARDWARE_UNAVAILABLE');
}

/**
 * Watches `pc` until ICE and DTLS are up: resolves on 'connected'; rejects with OTError
 * `code` on 'failed' or after MEDIA_CONNECT_TIMEOUT_MS; `lost(error)` hears of a later failure.
 */
function whenConnected(pc, code, what, lost) {
  return new Promise((resolve, reject) => {
    let connected = false;
    const timer = setTimeout(() => {
      if (!connected) reject(new OTError(code, `${what}: ICE and DTLS with the router did not finish within ${MEDIA_CONNECT_TIMEOUT_MS / 1000} s (state ${pc.connectionState})`));
    }, MEDIA_CONNECT_TIMEOUT_MS);
    pc.addEventListener('connectionstatechange', () => {
      if (pc.connectionState === 'connected' && !connected) {
        connected = true;
        clearTimeout(timer);
        resolve();
      } else if (pc.connectionState === 'failed') {
        clearTimeout(timer);
        const error = new OTError(code, `${what}: the media connection to the router failed (ICE or DTLS)`);
        if (connected) lost(error); else reject(error);
      }
    });
  });
}

// ---------------------------------------------------------------- end-to-end encryption (SFrame)

// The browser side of docs/e2ee.md: the same SFrame (RFC 9605, AES_128_GCM_SHA256_128)
// as OTKit's native clients, byte for byte, so a browser and a native client in one e2ee
// session see and hear each other. These three are protocol constants shared with
// Sources/OTMedia/SFrame (SFrameBaseKey): every client of a session must use them.
const E2EE_ITERATIONS = 600000;                         // PBKDF2-HMAC-SHA256 rounds
const E2EE_SALT_PREFIX = 'OTKit SFrame 1.0 base key ';  // ‖ the session id
const E2EE_SECRET_LENGTHS = [8, 256];                   // characters (OpenTok's limits)

/** OTError 6004 (OT_INVALID_ENCRYPTION_SECRET) when `secret` is not a string of 8-256 characters, else null. */
function invalidSecret(secret) {
  const length = typeof secret === 'string' ? secretLength(secret) : -1;
  if (length >= E2EE_SECRET_LENGTHS[0] && length <= E2EE_SECRET_LENGTHS[1]) return null;
  const what = length < 0 ? `a ${typeof secret}` : `${length} characters`;
  return new OTError(6004, `the encryption secret must be a string of ${E2EE_SECRET_LENGTHS[0]} to ${E2EE_SECRET_LENGTHS[1]} characters, not ${what}`, 'OT_INVALID_ENCRYPTION_SECRET');
}

/** Characters of `secret` as native OTKit counts them (grapheme clusters; code points without Intl.Segmenter). */
function secretLength(secret) {
  if (typeof Intl === 'object' && typeof Intl.Segmenter === 'function') {
    let count = 0;
    for (const _ of new Intl.Segmenter().segment(secret)) count += 1;  // eslint-disable-line no-unused-vars
    return count;
  }
  return [...secret].length;
}

/** The session's SFrame base key (32 bytes, an ArrayBuffer): PBKDF2-HMAC-SHA256 of the secret, salted with the session id. Cost: 600,000 rounds in WebCrypto (off the page's thread). */
async function deriveBaseKey(secret, sessionId) {
  const text = new TextEncoder();
  const material = await crypto.subtle.importKey('raw', text.encode(secret), 'PBKDF2', false, ['deriveBits']);
  return crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: text.encode(E2EE_SALT_PREFIX + sessionId), iterations: E2EE_ITERATIONS }, material, 256);
}

/** Whether this browser can transform encoded frames (RTCRtpScriptTransform, or Chrome's insertable streams) and has WebCrypto. */
function hasFrameTransforms() {
  const script = typeof RTCRtpScriptTransform === 'function';
  const insertable = typeof RTCRtpSender === 'function' && typeof RTCRtpSender.prototype.createEncodedStreams === 'function';
  return (script || insertable) && typeof crypto === 'object' && !!crypto.subtle && typeof Worker === 'function';
}

/**
 * The frame cryptor, run in a Worker (its source becomes a Blob URL, so otkit.js stays one
 * file). Each transform (one per sender or receiver track) seals or opens every encoded
 * frame: `clear ‖ SFrame header ‖ ciphertext ‖ tag`, AAD = header ‖ clear, where `clear`
 * is a VP8 frame's payload header (10 bytes of a keyframe, 3 of a delta frame: the frame
 * tag's P bit says which) and nothing of an Opus packet (SFrameFrameLayout). A sender
 * seals each SSRC (each simulcast encoding) under its own random 64-bit KID and counter;
 * a receiver derives a KID's key on first sight (at most 8 kept), keeps a 128-frame replay
 * window per KID, and drops what fails, telling the page `mismatch` once per episode and
 * `match` when frames verify again. Messages in: {type: 'key', secretSet, baseKey} (the
 * current key, or none), {type: 'streams', readable, writable, options} (the insertable-
 * streams fallback). Cost per frame: one AES-GCM call and two copies of the frame.
 */
function sframeWorker() {
  const SUITE = 0x0004, WINDOW = 128n, KEPT_KIDS = 8, TAG = 16, MAX_CTR = 0xffffffffffffffffn;
  const text = new TextEncoder();
  let secretSet = false;
  let base = null;  // {hkdf: CryptoKey, kids: Map(kid -> material)} of the key in use
  const transforms = new Set();

  self.onmessage = (event) => {
    const message = event.data;
    if (message.type === 'key') install(message);
    else if (message.type === 'streams') run(message.readable, message.writable, message.options, null);
    else if (message.type === 'counts') {
      const counts = [...transforms].map((t) => ({ id: t.options.id, side: t.options.side, kind: t.options.kind, frames: t.frames, failed: t.failed }));
      self.postMessage({ type: 'counts', request: message.request, counts });
    }
  };
  self.onrtctransform = (event) => {
    const transformer = event.transformer;
    run(transformer.readable, transformer.writable, transformer.options, transformer);
  };

  async function install(message) {
    const hkdf = message.baseKey ? await crypto.subtle.importKey('raw', message.baseKey, 'HKDF', false, ['deriveBits']) : null;
    secretSet = message.secretSet;
    base = hkdf ? { hkdf, kids: new Map() } : null;
    for (const transform of transforms) transform.rekeyed();
  }

  /** RFC 9605 §4.4.2: the AES key and salt of `kid` under `hkdf` (HKDF-SHA256, empty salt). */
  async function derive(hkdf, kid) {
    const label = (prefix) => {
      const head = text.encode(prefix), out = new Uint8Array(head.length + 10), view = new DataView(out.buffer);
      out.set(head);
      view.setBigUint64(head.length, kid);
      view.setUint16(head.length + 8, SUITE);
      return out;
    };
    const expand = (prefix, bits) => crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: label(prefix) }, hkdf, bits);
    const key = await crypto.subtle.importKey('raw', await expand('SFrame 1.0 Secret key ', 128), 'AES-GCM', false, ['encrypt', 'decrypt']);
    return { key, salt: new Uint8Array(await expand('SFrame 1.0 Secret salt ', 96)), highest: -1n, seen: 0n };
  }

  /** nonce = salt XOR CTR (big-endian, left-padded to 12 bytes). */
  function nonce(salt, ctr) {
    const out = salt.slice(), view = new DataView(out.buffer);
    view.setBigUint64(4, view.getBigUint64(4) ^ ctr);
    return out;
  }

  /** Bytes a header value takes after the config byte: 0 for 0-7, else its minimal big-endian length. */
  function extraBytes(value) {
    if (value < 8n) return 0;
    let count = 0;
    for (let v = value; v > 0n; v >>= 8n) count += 1;
    return count;
  }

  function writeHeader(out, at, kid, ctr) {
    const kidBytes = extraBytes(kid), ctrBytes = extraBytes(ctr);
    const k = kidBytes === 0 ? Number(kid) : 0x08 | (kidBytes - 1), c = ctrBytes === 0 ? Number(ctr) : 0x08 | (ctrBytes - 1);
    out[at] = (k << 4) | c;
    for (let i = 0; i < kidBytes; i += 1) out[at + 1 + i] = Number((kid >> BigInt(8 * (kidBytes - 1 - i))) & 0xffn);
    for (let i = 0; i < ctrBytes; i += 1) out[at + 1 + kidBytes + i] = Number((ctr >> BigInt(8 * (ctrBytes - 1 - i))) & 0xffn);
    return 1 + kidBytes + ctrBytes;
  }

  /** The header at `at`: {kid, ctr, length}, or null when truncated or not minimal (RFC 9605 allows one form). */
  function readHeader(data, at) {
    if (data.length < at + 1) return null;
    const config = data[at];
    const kidBytes = config & 0x80 ? ((config >> 4) & 0x07) + 1 : 0, ctrBytes = config & 0x08 ? (config & 0x07) + 1 : 0;
    const length = 1 + kidBytes + ctrBytes;
    if (data.length < at + length) return null;
    const read = (from, count) => { let v = 0n; for (let i = 0; i < count; i += 1) v = (v << 8n) | BigInt(data[from + i]); return v; };
    const kid = kidBytes === 0 ? BigInt((config >> 4) & 0x07) : read(at + 1, kidBytes);
    const ctr = ctrBytes === 0 ? BigInt(config & 0x07) : read(at + 1 + kidBytes, ctrBytes);
    if (extraBytes(kid) !== kidBytes || extraBytes(ctr) !== ctrBytes) return null;
    return { kid, ctr, length };
  }

  /** The clear prefix of an encoded frame: a VP8 payload header (its P bit: 0 on keyframes), nothing of audio. */
  function clearBytes(data, video) {
    if (!video || data.length === 0) return 0;
    return Math.min(data.length, (data[0] & 0x01) === 0 ? 10 : 3);
  }

  function run(readable, writable, options, transformer) {
    const video = options.kind === 'video';
    const transform = options.side === 'send' ? sealer(video, transformer) : opener(video, transformer, options.id);
    Object.assign(transform, { options, frames: 0, failed: 0 });  // frames sealed or opened; frames that failed to open
    transforms.add(transform);
    readable.pipeThrough(new TransformStream({ transform: transform.frame })).pipeTo(writable)
      .catch(() => {}).finally(() => transforms.delete(transform));
  }

  function sealer(video, transformer) {
    const tracks = new Map();  // SSRC -> {base, kid, ctr, material}: one KID and counter per encoding
    const cryptor = {
      rekeyed() {
        // A new key starts over with a keyframe, so subscribers with the new key recover at once.
        if (video && transformer && typeof transformer.generateKeyFrame === 'function') transformer.generateKeyFrame().catch(() => {});
      },
      async frame(frame, controller) {
        const current = base;
        if (!current) return;  // no key yet: nothing leaves in the clear
        const ssrc = frame.getMetadata().synchronizationSource || 0;
        let track = tracks.get(ssrc);
        if (!track || track.base !== current) {
          const kid = crypto.getRandomValues(new BigUint64Array(1))[0];
          track = { base: current, kid, ctr: 0n, material: await derive(current.hkdf, kid) };
          tracks.set(ssrc, track);
        }
        if (track.ctr > MAX_CTR) return;  // spent: never reuse a nonce
        const ctr = track.ctr;
        track.ctr += 1n;  // spent before the cipher runs
        const data = new Uint8Array(frame.data), clear = clearBytes(data, video);
        const header = new Uint8Array(17), headerLength = writeHeader(header, 0, track.kid, ctr);
        const aad = new Uint8Array(headerLength + clear);
        aad.set(header.subarray(0, headerLength));
        aad.set(data.subarray(0, clear), headerLength);
        const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce(track.material.salt, ctr), additionalData: aad, tagLength: 128 },
          track.material.key, data.subarray(clear)));
        const out = new Uint8Array(clear + headerLength + sealed.length);
        out.set(data.subarray(0, clear));
        out.set(header.subarray(0, headerLength), clear);
        out.set(sealed, clear + headerLength);
        frame.data = out.buffer;
        cryptor.frames += 1;
        controller.enqueue(frame);
      },
    };
    return cryptor;
  }

  function opener(video, transformer, id) {
    let failing = false;
    const fail = () => { cryptor.failed += 1; if (!failing) { failing = true; self.postMessage({ type: 'mismatch', id, kind: video ? 'video' : 'audio' }); } };
    const verified = () => { if (failing) { failing = false; self.postMessage({ type: 'match', id, kind: video ? 'video' : 'audio' }); } };
    const cryptor = {
      rekeyed() {
        if (video && transformer && typeof transformer.sendKeyFrameRequest === 'function') transformer.sendKeyFrameRequest().catch(() => {});
      },
      async frame(frame, controller) {
        const current = base;
        if (!current) { if (!secretSet) fail(); return; }  // no secret: a mismatch; one being derived: wait
        const data = new Uint8Array(frame.data), clear = clearBytes(data, video);
        const header = readHeader(data, clear);
        if (!header || data.length < clear + header.length + TAG) { fail(); return; }
        let material = current.kids.get(header.kid);
        if (material) {
          current.kids.delete(header.kid);  // most recently used last
        } else {
          material = await derive(current.hkdf, header.kid);
          if (current.kids.size >= KEPT_KIDS) current.kids.delete(current.kids.keys().next().value);
        }
        current.kids.set(header.kid, material);
        const age = material.highest - header.ctr;
        if (header.ctr <= material.highest && (age >= WINDOW || (material.seen >> age) & 1n)) return;  // replayed or too old: quietly
        const aad = new Uint8Array(header.length + clear);
        aad.set(data.subarray(clear, clear + header.length));
        aad.set(data.subarray(0, clear), header.length);
        let plain;
        try {
          plain = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce(material.salt, header.ctr), additionalData: aad, tagLength: 128 },
            material.key, data.subarray(clear + header.length)));
        } catch (error) {
          fail();  // another secret (or none): dropped, never decoded
          return;
        }
        // Only authenticated frames move the window.
        if (header.ctr > material.highest) {
          const shift = header.ctr - material.highest;
          material.seen = shift >= WINDOW ? 1n : ((material.seen << shift) | 1n) & ((1n << WINDOW) - 1n);
          material.highest = header.ctr;
        } else {
          material.seen |= 1n << (material.highest - header.ctr);
        }
        verified();
        const out = new Uint8Array(clear + plain.length);
        out.set(data.subarray(0, clear));
        out.set(plain, clear);
        frame.data = out.buffer;
        cryptor.frames += 1;
        controller.enqueue(frame);
      },
    };
    return cryptor;
  }
}

/**
 * Puts the session's frame cryptor on `target` (an RTCRtpSender or RTCRtpReceiver):
 * RTCRtpScriptTransform where the browser has it, else Chrome's insertable streams (the
 * RTCPeerConnection was made with encodedInsertableStreams). `options`: {side: 'send' or
 * 'receive', kind, id (the Subscriber's)}. Throws OTError 6001 / 6002 when neither exists.
 */
function attachCryptor(session, target, options) {
  const worker = session._cryptor();
  if (typeof RTCRtpScriptTransform === 'function') {
    target.transform = new RTCRtpScriptTransform(worker, options);
  } else if (typeof target.createEncodedStreams === 'function') {
    const { readable, writable } = target.createEncodedStreams();
    worker.postMessage({ type: 'streams', readable, writable, options }, [readable, writable]);
  } else {
    throw new OTError(options.side === 'send' ? 6001 : 6002, 'this browser cannot transform encoded frames (no RTCRtpScriptTransform or insertable streams)');
  }
}

/** RTCPeerConnection options for a leg that seals (`seals`): insertable streams need asking for up front. */
function peerConfiguration(seals) {
  const config = { bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' };
  if (seals && typeof RTCRtpScriptTransform !== 'function') config.encodedInsertableStreams = true;
  return config;
}

// ---------------------------------------------------------------- media: Publisher

/**
 * A camera and microphone to publish (OpenTok.js's Publisher), made by OT.initPublisher:
 * getUserMedia at once, a muted <video> preview in the target element, then
 * session.publish sends it over an RTCPeerConnection to the router. Events:
 * accessAllowed, accessDenied, videoElementCreated, streamCreated, streamDestroyed,
 * muteForced, destroyed.
 */
export class Publisher extends Emitter {
  constructor(target, properties, completion) {
    super();
    const props = properties && typeof properties === 'object' ? properties : {};
    const done = typeof completion === 'function' ? completion : () => {};
    this.id = localId('OT_publisher');
    this.stream = null;
    this.session = null;
    this.element = null;
    this.accessAllowed = false;
    this._props = props;
    this._name = props.name === undefined || props.name === null ? '' : String(props.name);
    this._publishAudio = props.publishAudio !== false;
    this._publishVideo = props.publishVideo !== false;
    this._target = elementFor(target);
    this._media = null;
    this._pc = null;
    this._destroyed = false;
    const constraints = mediaConstraints(props);
    this._ready = (constraints instanceof OTError ? Promise.reject(constraints) : this._acquire(constraints));
    this._ready.then(() => done(undefined), (error) => done(error));
  }

  async _acquire(constraints) {
    if (typeof navigator === 'undefined' || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw new OTError(1500, 'this page cannot use the camera or microphone (getUserMedia needs a secure context: https or localhost)', 'OT_HARDWARE_UNAVAILABLE');
    }
    let media;
    try {
      media = await navigator.mediaDevices.getUserMedia(constraints);
    } catch (error) {
      const failure = mediaAccessError(error);
      if (failure.name === 'OT_USER_MEDIA_ACCESS_DENIED') this._dispatch(new OTEvent('accessDenied', this));
      throw failure;
    }
    if (this._destroyed) {
      for (const track of media.getTracks()) track.stop();
      throw new OTError(1500, 'the publisher was destroyed while the camera was opening');
    }
    this._media = media;
    for (const track of media.getAudioTracks()) track.enabled = this._publishAudio;
    for (const track of media.getVideoTracks()) track.enabled = this._publishVideo;
    this.accessAllowed = true;
    this._dispatch(new OTEvent('accessAllowed', this));
    this.element = videoElement(this._target, media, this._props, true, 'OT_publisher');
    if (this.element) this._dispatch(new OTEvent('videoElementCreated', this, { element: this.element }));
    return media;
  }

  /** Turns the microphone's audio on or off (the track stays open) and tells the session's others. */
  publishAudio(value) {
    this._publishAudio = !!value;
    this._tracks('audio').forEach((track) => { track.enabled = this._publishAudio; });
    this._announce('hasAudio', this._publishAudio && this._tracks('audio').length > 0);
    return this;
  }

  /** Turns the camera's video on or off (black frames meanwhile) and tells the session's others. */
  publishVideo(value) {
    this._publishVideo = !!value;
    this._tracks('video').forEach((track) => { track.enabled = this._publishVideo; });
    this._announce('hasVideo', this._publishVideo && this._tracks('video').length > 0);
    return this;
  }

  /**
   * OpenTok.js's getStats: `callback(error, [{stats: {audio, video, timestamp}}])` (one
   * entry: the router is the only peer), or a Promise of the array without a callback.
   * audio/video: bytesSent, packetsSent, packetsLost (as the router reports); video also
   * frameRate, framesEncoded, framesSent. Cost: one RTCPeerConnection.getStats.
   */
  getStats(callback) {
    const pc = this._pc;
    const result = pc ? pc.getStats().then((report) => [{ stats: summarizeStats(report, 'outbound-rtp') }])
      : Promise.reject(new OTError(1015, 'the publisher is not publishing'));
    return settle(result, callback);
  }

  /** OpenTok.js's getRtcStatsReport: a Promise of `[{rtcStatsReport}]`, the RTCPeerConnection's own report. */
  getRtcStatsReport() {
    const pc = this._pc;
    if (!pc) return Promise.reject(new OTError(1015, 'the publisher is not publishing'));
    return pc.getStats().then((rtcStatsReport) => [{ rtcStatsReport }]);
  }

  /** The MediaStream published (null before access was allowed). */
  getMediaStream() { return this._media; }

  /** Unpublishes if published, closes the camera and microphone and removes the preview. */
  destroy() {
    if (this._destroyed) return this;
    if (this.session) this._unpublished('unpublished', true);
    this._destroyed = true;
    if (this._media) for (const track of this._media.getTracks()) track.stop();
    if (this.element) this.element.remove();
    this.element = null;
    this._dispatch(new OTEvent('destroyed', this));
    return this;
  }

  _tracks(kind) {
    if (!this._media) return [];
    return kind === 'audio' ? this._media.getAudioTracks() : this._media.getVideoTracks();
  }

  /** A stream property changed by this side: the stream object and the router (streamChanged) learn it. */
  _announce(property, value) {
    const stream = this.stream, session = this.session;
    if (!stream || !session) return;
    stream[property] = value;
    if (session._state === 'connected') session._request('streamChanged', { streamId: stream.streamId, [property]: value }, null);
  }

  /** Publishes into `session`: the offer in `publish`, the router's answer back, ICE + DTLS. */
  async _publish(session) {
    if (this._destroyed) throw new OTError(1500, 'the publisher was destroyed');
    if (this.session) throw new OTError(1015, 'the publisher is already published');
    this.session = session;
    let pc = null;
    try {
      const media = await this._ready;
      if (this.session !== session) throw new OTError(1500, 'unpublished before the camera was ready');
      if (typeof RTCPeerConnection !== 'function') throw new OTError(1500, 'this browser has no RTCPeerConnection');
      // Sealing follows docs/e2ee.md: in an e2ee session, or once a secret was set (sticky).
      const seals = session._seals();
      if (seals && session._secrets === 0) {
        throw new OTError(6000, 'this session is end-to-end encrypted: call setEncryptionSecret before publishing', 'OT_ENCRYPTION_SECRET_MISSING');
      }
      if (seals && !hasFrameTransforms()) throw new OTError(6001, 'this browser cannot encrypt media end to end (no encoded transforms or WebCrypto)');
      pc = new RTCPeerConnection(peerConfiguration(seals));
      this._pc = pc;
      const audio = media.getAudioTracks()[0], video = media.getVideoTracks()[0];
      const senders = [];
      if (audio) senders.push([pc.addTransceiver(audio, { direction: 'sendonly', streams: [media] }).sender, 'audio']);
      if (video) senders.push([pc.addTransceiver(video, { direction: 'sendonly', streams: [media], sendEncodings: simulcastEncodings(video) }).sender, 'video']);
      if (seals) for (const [sender, kind] of senders) attachCryptor(session, sender, { side: 'send', kind });
      await pc.setLocalDescription();
      const size = video ? video.getSettings() : {};
      const reply = await session._ask('publish', {
        name: this._name,
        hasAudio: !!audio && this._publishAudio,
        hasVideo: !!video && this._publishVideo,
        audioTrack: !!audio,
        videoTrack: !!video,
        videoWidth: size.width || 0,
        videoHeight: size.height || 0,
        videoType: 'camera',
        sdpOffer: pc.localDescription.sdp,
      }, 1500);
      if (reply.type !== 'published' || !reply.body || !reply.body.stream) throw new OTError(2000, `unexpected reply to publish: ${reply.type}`);
      const stream = new Stream(reply.body.stream, session.connection);
      if (this.session !== session || this._pc !== pc) {
        session._request('unpublish', { streamId: stream.streamId }, null);  // unpublished meanwhile
        throw new OTError(1500, 'unpublished before the router answered');
      }
      this.stream = stream;
      session._publishers.set(stream.streamId, this);
      if (typeof reply.body.sdpAnswer !== 'string') {
        throw new OTError(1500, 'the router sent no SDP answer: it has no WebRTC edge for browsers');
      }
      // Not connected in time, or failed later: the stream ends (_lost checks it is still this one).
      whenConnected(pc, 1610, 'publish', (error) => this._lost(error, pc)).catch((error) => this._lost(error, pc));
      await pc.setRemoteDescription({ type: 'answer', sdp: reply.body.sdpAnswer });
      if (reply.body.muted) this._muteForced();
      this._dispatch(new OTEvent('streamCreated', this, { stream }, true));
    } catch (error) {
      if (this.session === session) this._unpublished('unpublished', true, true);
      throw error instanceof OTError ? error : new OTError(1500, `publish failed: ${error && error.message}`);
    }
  }

  /** ICE or DTLS failed after publishing: the stream ends (as OpenTok.js: exception, streamDestroyed). */
  _lost(error, pc) {
    if (!this.session || this._pc !== pc) return;
    OT._dispatch(new OTEvent('exception', OT, { code: error.code, message: error.message, title: 'Unable to Publish', target: this }));
    this._unpublished('networkDisconnected', true);
  }

  /** A moderator muted this stream: the microphone's track is turned off (publishAudio(true) turns it on again). */
  _muteForced() {
    this._publishAudio = false;
    this._tracks('audio').forEach((track) => { track.enabled = false; });
    if (this.stream) this.stream.hasAudio = false;
    this._dispatch(new OTEvent('muteForced', this));
  }

  /** Ends the publishing (tells the router when `tell`); streamDestroyed, then destroy unless prevented. */
  _unpublished(reason, tell, quiet = false) {
    const session = this.session, stream = this.stream, pc = this._pc;
    this.session = null;
    this.stream = null;
    this._pc = null;
    if (pc) pc.close();
    if (!stream) return;
    session._publishers.delete(stream.streamId);
    if (tell && session._state === 'connected') session._request('unpublish', { streamId: stream.streamId }, null);
    if (quiet) return;
    const event = new OTEvent('streamDestroyed', this, { stream, reason }, true);
    this._dispatch(event);
    if (!event.isDefaultPrevented() && !this._destroyed) this.destroy();
  }
}

// ---------------------------------------------------------------- media: Subscriber

/**
 * One stream received (OpenTok.js's Subscriber), made by session.subscribe: the router's
 * offer, this browser's answer, ICE + DTLS, then a <video> in the target element plays
 * the stream's video and audio. Events: videoElementCreated, connected, destroyed.
 */
export class Subscriber extends Emitter {
  constructor(session, stream, target, properties) {
    super();
    const props = properties && typeof properties === 'object' ? properties : {};
    this.id = localId('OT_subscriber');
    this.stream = stream;
    this.session = session;
    this.element = null;
    this._props = props;
    this._target = elementFor(target);
    this._audio = props.subscribeToAudio !== false;
    this._video = props.subscribeToVideo !== false;
    this._preferred = { width: undefined, height: undefined, frameRate: undefined };
    this._subscriberId = null;
    this._pc = null;
    this._media = typeof MediaStream === 'function' ? new MediaStream() : null;
    this._ended = false;
    this._seals = false;         // frames are opened with the session's key (decided at subscribe)
    this._failing = new Set();   // kinds whose frames do not verify now
    this._cryptorsOn = new Set();  // receivers already given the cryptor
    if (props.preferredResolution) this._preferResolution(props.preferredResolution);
    if (props.preferredFrameRate !== undefined) this._preferFrameRate(props.preferredFrameRate);
  }

  /** The router's id for this subscription (null until subscribed). */
  get subscriberId() { return this._subscriberId; }

  /** Receives the stream's audio or not (the router stops forwarding it). */
  subscribeToAudio(value) {
    this._audio = value !== false;
    this._change({ subscribeToAudio: this._audio });
    return this;
  }

  /** Receives the stream's video or not (the router stops forwarding it). */
  subscribeToVideo(value) {
    this._video = value !== false;
    this._change({ subscribeToVideo: this._video });
    return this;
  }

  /** Asks the router for a layer of about `{width, height}` (null: no preference). */
  setPreferredResolution(resolution) {
    this._preferResolution(resolution);
    this._sendPreferences();
    return this;
  }

  /** Asks the router for about `frameRate` frames per second (null: no preference). */
  setPreferredFrameRate(frameRate) {
    this._preferFrameRate(frameRate);
    this._sendPreferences();
    return this;
  }

  /**
   * OpenTok.js's getStats: `callback(error, {audio, video, timestamp})` or, without a
   * callback, a Promise of it. audio/video: bytesReceived, packetsReceived, packetsLost;
   * video also frameRate and framesDecoded; audio also totalSamplesReceived and audioLevel.
   */
  getStats(callback) {
    const pc = this._pc;
    const result = pc ? pc.getStats().then((report) => summarizeStats(report, 'inbound-rtp'))
      : Promise.reject(new OTError(1015, 'the subscriber is not subscribed'));
    return settle(result, callback);
  }

  /** OpenTok.js's getRtcStatsReport: a Promise of the RTCPeerConnection's RTCStatsReport. */
  getRtcStatsReport() {
    return this._pc ? this._pc.getStats() : Promise.reject(new OTError(1015, 'the subscriber is not subscribed'));
  }

  /** The MediaStream received (its tracks appear as the connection comes up). */
  getMediaStream() { return this._media; }

  _preferResolution(resolution) {
    const ok = (n) => Number.isInteger(n) && n > 0 && n <= MAX_DIMENSION;
    const valid = resolution && ok(resolution.width) && ok(resolution.height);
    this._preferred.width = valid ? resolution.width : undefined;
    this._preferred.height = valid ? resolution.height : undefined;
  }

  _preferFrameRate(frameRate) {
    const rate = Number(frameRate);
    this._preferred.frameRate = frameRate !== null && rate > 0 ? Math.min(rate, MAX_FRAME_RATE) : undefined;
  }

  /** The router keeps one preference record per subscriber, so both values go every time. */
  _sendPreferences() {
    const body = { subscriberId: this._subscriberId };
    if (this._preferred.width !== undefined) { body.preferredWidth = this._preferred.width; body.preferredHeight = this._preferred.height; }
    if (this._preferred.frameRate !== undefined) body.preferredFrameRate = this._preferred.frameRate;
    if (this._subscriberId && this.session._state === 'connected') this.session._request('subscriberPreferences', body, null);
  }

  _change(fields) {
    for (const track of this._media ? this._media.getTracks() : []) {
      if (track.kind === 'audio') track.enabled = this._audio;
      if (track.kind === 'video') track.enabled = this._video;
    }
    if (this._subscriberId && this.session._state === 'connected') {
      this.session._request('subscriptionChanged', { subscriberId: this._subscriberId, ...fields }, null);
    }
  }

  /** `subscribe` with sdp: true, the router's offer answered in `subscriberAnswer`, then ICE + DTLS. */
  async _subscribe() {
    const session = this.session;
    const reply = await session._ask('subscribe', {
      streamId: this.stream.streamId, subscribeToAudio: this._audio, subscribeToVideo: this._video, sdp: true,
    }, 1600);
    if (reply.type !== 'subscribed' || !reply.body) throw new OTError(2000, `unexpected reply to subscribe: ${reply.type}`);
    const subscriberId = reply.body.subscriberId;
    if (this._ended) {
      if (session._state === 'connected') session._request('unsubscribe', { subscriberId }, null);
      throw new OTError(1600, 'unsubscribed before the router answered');
    }
    this._subscriberId = subscriberId;
    session._subscribers.set(subscriberId, this);
    if (typeof reply.body.sdpOffer !== 'string') throw new OTError(1600, 'the router sent no SDP offer: it has no WebRTC edge for browsers');
    if (typeof RTCPeerConnection !== 'function') throw new OTError(1600, 'this browser has no RTCPeerConnection');
    this._seals = session._seals();
    if (this._seals && !hasFrameTransforms()) throw new OTError(6002, 'this browser cannot decrypt media end to end (no encoded transforms or WebCrypto)');
    if (this._seals) session._cryptoSubscribers.set(this.id, this);
    const pc = new RTCPeerConnection(peerConfiguration(this._seals));
    this._pc = pc;
    pc.ontrack = (event) => this._track(event);
    const connected = whenConnected(pc, 1600, 'subscribe', (error) => this._lost(error));
    connected.catch(() => {});  // awaited below; a rejection after an earlier failure is moot
    await pc.setRemoteDescription({ type: 'offer', sdp: reply.body.sdpOffer });
    await pc.setLocalDescription();
    if (this._ended) throw new OTError(1600, 'unsubscribed while answering');
    // The router answers an accepted answer with nothing (media starts once ICE and DTLS
    // finish), a refused one with an error; the request stays pending until one of those.
    const refused = new Promise((resolve, reject) => {
      const requestId = session._request('subscriberAnswer', { subscriberId, sdp: pc.localDescription.sdp }, (message) => {
        if (message.type === 'error') reject(new OTError(message.body.code || 1600, message.body.message));
      });
      if (requestId === false) reject(new OTError(1010, 'the session is not connected'));
      connected.then(() => session._pending.delete(requestId), () => session._pending.delete(requestId));
    });
    await Promise.race([connected, refused]);
    if (this._preferred.width !== undefined || this._preferred.frameRate !== undefined) this._sendPreferences();
    this._dispatch(new OTEvent('connected', this));
  }

  _track(event) {
    const track = event.track;
    if (this._seals && !this._cryptorsOn.has(event.receiver)) {
      // Before the first frame: nothing reaches the decoder unopened.
      this._cryptorsOn.add(event.receiver);
      attachCryptor(this.session, event.receiver, { side: 'receive', kind: track.kind, id: this.id });
    }
    if (!this._media) return;
    track.enabled = track.kind === 'audio' ? this._audio : this._video;
    if (!this._media.getTracks().includes(track)) this._media.addTrack(track);
    if (!this.element) {
      this.element = videoElement(this._target, this._media, this._props, false, 'OT_subscriber');
      if (this.element) this._dispatch(new OTEvent('videoElementCreated', this, { element: this.element }));
    } else {
      this.element.srcObject = this._media;  // picks up the track added
    }
  }

  /**
   * The cryptor's word on one track: `mismatch` (its frames stopped verifying) or `match`
   * (they verify again). The app hears OpenTok.js's encryptionSecretMismatch once per
   * episode, for both tracks together, and encryptionSecretMatch when every track verifies.
   */
  _encryption(message) {
    const before = this._failing.size;
    if (message.type === 'mismatch') this._failing.add(message.kind); else this._failing.delete(message.kind);
    if (before === 0 && this._failing.size > 0) this._dispatch(new OTEvent('encryptionSecretMismatch', this));
    else if (before > 0 && this._failing.size === 0) this._dispatch(new OTEvent('encryptionSecretMatch', this));
  }

  /** ICE or DTLS failed after subscribing: the subscriber ends (exception, destroyed). */
  _lost(error) {
    if (this._ended) return;
    OT._dispatch(new OTEvent('exception', OT, { code: error.code, message: error.message, title: 'Unable to Subscribe', target: this }));
    this._end(true, 'networkDisconnected');
  }

  /** Ends the subscription (tells the router when `tell`), closes the connection, removes the element. */
  _end(tell, reason) {
    if (this._ended) return;
    this._ended = true;
    const session = this.session;
    session._cryptoSubscribers.delete(this.id);
    if (this._subscriberId) {
      session._subscribers.delete(this._subscriberId);
      if (tell && session._state === 'connected') session._request('unsubscribe', { subscriberId: this._subscriberId }, null);
    }
    if (this._pc) this._pc.close();
    this._pc = null;
    if (this.element) this.element.remove();
    this.element = null;
    this._dispatch(new OTEvent('destroyed', this, { reason }));
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
    // End-to-end encryption: these outlive a disconnect (docs/e2ee.md: sealing is sticky).
    this._e2ee = false;        // a router once called this session e2ee
    this._secrets = 0;         // setEncryptionSecret calls accepted
    this._baseKey = null;      // the latest secret's base key (ArrayBuffer) once derived
    this._worker = null;       // the frame cryptor (made at the first sealing leg)
    this._cryptoSubscribers = new Map();  // Subscriber id -> Subscriber, for the cryptor's reports
    this._secretError = null;  // an invalid options.encryptionSecret: connect fails with it
    this._countRequests = new Map();  // _cryptoCounts request -> resolve
    this._countRequest = 0;
    if (options.encryptionSecret !== undefined) {
      this._secretError = invalidSecret(options.encryptionSecret);
      if (!this._secretError) this.setEncryptionSecret(options.encryptionSecret).catch(() => {});
    }
    this._reset();
  }

  /**
   * Sets the secret media is end-to-end encrypted with (OpenTok.js's
   * setEncryptionSecret): a Promise, resolved once the key is in use, rejected with
   * OT_INVALID_ENCRYPTION_SECRET (6004) for a secret outside 8-256 characters (nothing
   * changes then). Every client of the session must set the same secret; calling it again
   * changes the secret (the latest call wins). In a session the router calls e2ee, or once
   * a secret was set, this session's publishers seal every frame and its subscribers open
   * only frames that verify. Cost: PBKDF2-HMAC-SHA256, 600,000 rounds, in WebCrypto.
   */
  setEncryptionSecret(secret) {
    const invalid = invalidSecret(secret);
    if (invalid) return Promise.reject(invalid);
    const request = ++this._secrets;
    return deriveBaseKey(secret, this.sessionId).then((baseKey) => {
      if (request !== this._secrets) return;  // a later secret wins
      this._baseKey = baseKey;
      if (this._worker) this._worker.postMessage({ type: 'key', secretSet: true, baseKey });
    }, (error) => {
      throw new OTError(6001, `deriving the encryption key failed: ${error && error.message}`);
    });
  }

  /**
   * The cryptor's counters, for diagnostics and tests: a Promise of one entry per live
   * transform, `{id (the Subscriber's; none for a sender), side, kind, frames (sealed or
   * opened), failed (did not open)}`; empty when nothing seals. Cost: one Worker round trip.
   */
  _cryptoCounts() {
    if (!this._worker) return Promise.resolve([]);
    const request = ++this._countRequest;
    return new Promise((resolve) => {
      this._countRequests.set(request, resolve);
      this._worker.postMessage({ type: 'counts', request });
    });
  }

  /** Whether this session's media legs seal and open frames (sticky: e2ee once, or a secret set). */
  _seals() { return this._e2ee || this._secrets > 0; }

  /** The frame cryptor Worker, made on first use from sframeWorker's source and given the current key. */
  _cryptor() {
    if (this._worker) return this._worker;
    const url = URL.createObjectURL(new Blob([`(${sframeWorker.toString()})();`], { type: 'text/javascript' }));
    this._worker = new Worker(url, { name: 'otkit-sframe' });
    this._worker.onmessage = (event) => {
      const message = event.data || {};
      if (message.type === 'counts') {
        const resolve = this._countRequests.get(message.request);
        this._countRequests.delete(message.request);
        if (resolve) resolve(message.counts);
        return;
      }
      const subscriber = this._cryptoSubscribers.get(message.id);
      if (subscriber) subscriber._encryption(message);
    };
    this._worker.postMessage({ type: 'key', secretSet: this._secrets > 0, baseKey: this._baseKey });
    return this._worker;
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
    if (this._secretError) {
      const error = this._secretError;
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

  /**
   * Publishes `publisher` (a Publisher from OT.initPublisher; or, as OpenTok.js allows,
   * `publish(targetElement, properties, callback)` makes one). `callback(error)` once:
   * no error when the router took the stream (the publisher's streamCreated fires then).
   * Errors: 1010 not connected, 1500 the token cannot publish or the router refused,
   * 1610 ICE/DTLS with the router failed. Returns the Publisher.
   */
  publish(publisher, properties, callback) {
    let done = typeof properties === 'function' ? properties : callback;
    done = typeof done === 'function' ? done : () => {};
    const target = publisher instanceof Publisher ? publisher
      : OT.initPublisher(publisher, typeof properties === 'object' ? properties : {});
    const fail = (error) => { setTimeout(() => done(error)); return target; };
    if (this._state !== 'connected') return fail(new OTError(1010, 'the session is not connected'));
    if (!this.capabilities.publish) return fail(new OTError(1500, 'unable to publish: the token\'s role cannot publish'));
    target._publish(this).then(() => done(undefined), (error) => done(error));
    return target;
  }

  /** Stops publishing `publisher`: the publisher's streamDestroyed (reason unpublished), the others' too. */
  unpublish(publisher) {
    if (publisher instanceof Publisher && publisher.session === this) publisher._unpublished('unpublished', true);
  }

  /**
   * Subscribes to `stream` (a Stream from streamCreated): `subscribe(stream, targetElement,
   * properties, callback)`, the last three optional. properties: subscribeToAudio,
   * subscribeToVideo, preferredResolution {width, height}, preferredFrameRate,
   * insertDefaultUI, insertMode ('append' or 'replace'), width, height. `callback(error)`
   * once: no error when media flows (ICE and DTLS done). Errors: 1010 not connected, 1600
   * the router refused or media failed, 1604 no such stream. Returns the Subscriber.
   */
  subscribe(stream, targetElement, properties, callback) {
    const args = [targetElement, properties, callback];
    const done = args.find((a) => typeof a === 'function') || (() => {});
    const target = typeof targetElement === 'function' ? undefined : targetElement;
    const props = typeof properties === 'object' && properties !== null ? properties : {};
    const streamId = stream && (typeof stream === 'string' ? stream : stream.streamId);
    const known = this._streams.get(streamId) || (stream && typeof stream === 'object' ? stream : null);
    const subscriber = new Subscriber(this, known || new Stream({ streamId: streamId || '' }, null), target, props);
    const fail = (error) => { subscriber._ended = true; setTimeout(() => done(error)); return subscriber; };
    if (this._state !== 'connected') return fail(new OTError(1010, 'the session is not connected'));
    if (!streamId) return fail(new OTError(1011, 'subscribe needs a Stream'));
    if (!this.capabilities.subscribe) return fail(new OTError(1600, 'unable to subscribe: the token\'s role cannot subscribe'));
    subscriber._subscribe().then(() => done(undefined), (error) => {
      subscriber._end(true, 'subscribeFailed');
      done(error instanceof OTError ? error : new OTError(1600, `subscribe failed: ${error && error.message}`));
    });
    return subscriber;
  }

  /** Stops `subscriber`: the router stops forwarding, its element goes away, it fires destroyed. */
  unsubscribe(subscriber) {
    if (subscriber instanceof Subscriber && subscriber.session === this) subscriber._end(true, 'unsubscribed');
  }

  /** The Publisher of `stream` (a Stream or its id) if this page publishes it, else null. */
  getPublisherForStream(stream) {
    const id = typeof stream === 'string' ? stream : stream && stream.streamId;
    return this._publishers.get(id) || null;
  }

  /** This page's Subscribers of `stream` (a Stream or its id). */
  getSubscribersForStream(stream) {
    const id = typeof stream === 'string' ? stream : stream && stream.streamId;
    return [...this._subscribers.values()].filter((s) => s.stream.streamId === id);
  }

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
    this._publishers = new Map();  // streamId -> Publisher
    this._subscribers = new Map();  // subscriberId -> Subscriber
  }

  _url() {
    const base = new URL(this._currentBase || this._routerURL.href);
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
          this._noteClusterNodes(message.body.clusterNodes);
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
    if (reply.e2ee) this._e2ee = true;  // sticky: a later reply saying plain changes nothing
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
    // Media ends with the session (the router has dropped the legs, or will).
    for (const publisher of [...this._publishers.values()]) publisher._unpublished(reason, false);
    for (const subscriber of [...this._subscribers.values()]) subscriber._end(false, reason);
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

  /** Sends a request; a Promise of the router's reply, rejected with an OTError on an error reply (`code` when it has none). */
  _ask(type, body, code) {
    return new Promise((resolve, reject) => {
      if (this._state !== 'connected') { reject(new OTError(1010, 'the session is not connected')); return; }
      const sent = this._request(type, body, (message) => {
        if (message.type === 'error') reject(new OTError((message.body && message.body.code) || code, message.body && message.body.message));
        else resolve(message);
      });
      if (sent === false) reject(new OTError(1010, 'the session is not connected'));
    });
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
        const own = this._publishers.get(body.streamId);
        if (own) own._unpublished(body.reason || 'unpublished', false);  // a moderator's forceUnpublish
        const stream = this._streams.get(body.streamId);
        if (!stream) return;
        this._streams.delete(body.streamId);
        const event = new OTEvent('streamDestroyed', this, { stream, streams: [stream], reason: body.reason }, true);
        this._dispatch(event);
        // As OpenTok.js: the stream's subscribers go with it unless the app prevents the default.
        if (!event.isDefaultPrevented()) for (const subscriber of this.getSubscribersForStream(stream)) subscriber._end(false, body.reason);
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
      case 'move':
        this._move(body);
        return;
      case 'mediaFailed': {
        // The router ended one of this connection's media legs by itself (its DTLS never
        // finished): that subscriber or this stream's publisher ends as when ICE fails here.
        const message = `the router ended the media connection: ${body.message || 'no reason given'}`;
        if (typeof body.subscriberId === 'string') {
          const subscriber = this._subscribers.get(body.subscriberId);
          if (subscriber) subscriber._lost(new OTError(1600, message));
          return;
        }
        const publisher = this._publishers.get(body.streamId);
        if (publisher) publisher._lost(new OTError(1610, message), publisher._pc);
        return;
      }
      case 'muteForced': {
        // Without a stream: the session-wide state. With one: that (own) stream was muted by
        // a moderator; its publisher turns its microphone off and fires muteForced.
        if (body.streamId === undefined || body.streamId === null) {
          this._forceMuteAll = !!body.active;
          this._dispatch(new OTEvent('muteForced', this, { active: !!body.active }));
          return;
        }
        const publisher = this._publishers.get(body.streamId);
        if (publisher && body.active !== false) publisher._muteForced();
        return;
      }
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
        // the router adapts a browser's legs itself (RTCP feedback), so these change nothing here.
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
      this._nextRouter();  // in a cluster, the next attempt goes to another router
      this._scheduleResume();
    }
  }

  /** Keeps the routers of the cluster a reply names (http(s) URLs, at most 64). */
  _noteClusterNodes(nodes) {
    if (!Array.isArray(nodes)) return;
    this._clusterNodes = nodes.filter((u) => typeof u === 'string' && /^https?:\/\//.test(u) && u.length <= 512)
      .map((u) => u.replace(/\/+$/, '')).slice(0, 64);
  }

  /** Switches to the next router of the cluster (after the page's own), if there are several. */
  _nextRouter() {
    const own = this._routerURL.href.replace(/\/+$/, '');
    const bases = [own, ...(this._clusterNodes || []).filter((u) => u !== own)];
    const index = bases.indexOf(this._currentBase || own);
    this._currentBase = bases[(index + 1) % bases.length];
  }

  /** A draining router asks this client to move: resume through another router of the cluster. */
  _move(body) {
    if (this._state !== 'connected') return;
    this._noteClusterNodes(body.nodes);
    this._nextRouter();
    this._beginReconnecting('the router is draining');
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

  /**
   * A Publisher: opens the camera and microphone now (getUserMedia) and shows a muted
   * preview in `targetElement` (an element or its id; none: no preview). properties (as
   * OpenTok.js): name, publishAudio, publishVideo, resolution ("640x480"), frameRate,
   * audioSource / videoSource (false or null: none; a device id), disableAudioProcessing,
   * echoCancellation, noiseSuppression, autoGainControl, insertDefaultUI, insertMode
   * ('append' or 'replace'), width, height. `callback(error)` once the devices are open or
   * failed (1500 OT_USER_MEDIA_ACCESS_DENIED / OT_NO_DEVICES_FOUND / OT_HARDWARE_UNAVAILABLE,
   * 1011 bad properties).
   */
  initPublisher(targetElement, properties, callback) {
    if (typeof properties === 'function') return new Publisher(targetElement, {}, properties);
    return new Publisher(targetElement, properties || {}, callback);
  }

  /** OpenTok.js's hasEndToEndEncryptionSupport: whether this browser can seal and open frames (encoded transforms, WebCrypto, Worker). */
  hasEndToEndEncryptionSupport() { return hasFrameTransforms(); }

  /** 1 when this browser has what otkit.js needs (WebSocket and RTCPeerConnection), else 0. */
  checkSystemRequirements() {
    return typeof WebSocket === 'function' && typeof RTCPeerConnection === 'function' ? 1 : 0;
  }
}

/** The OT namespace: OT.initSession, OT.initPublisher, OT.on('exception', ...), OT.OTError. */
export const OT = new OTNamespace();
if (typeof globalThis !== 'undefined' && globalThis.OT === undefined) globalThis.OT = OT;
export default OT;
