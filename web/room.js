// room.js: the room page's script (/room/{sessionId}, see web/room.html). It uses only
// otkit.js's public, OpenTok.js-shaped API, so it doubles as an example to copy:
// initSession, connect, initPublisher + publish, subscribe on every streamCreated,
// publishAudio/publishVideo, signal / signal:chat, connectionCreated/Destroyed.
//
// The token comes from `?token=` (and the API key from `?apiKey=` or the token itself),
// or, without one, from the router's dev-token endpoint (POST /room/{sessionId}/token,
// answered only on a router with dev tokens on: listening on loopback, or --dev-tokens).
// `?name=` names this page's stream and dev-token connection.
// `window.room` holds the session, publisher, subscribers, chat lines and the last error
// for the browser console (and for the project's tests).

import OT from '/otkit.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const sessionId = decodeURIComponent(location.pathname.split('/')[2] || '');
const name = (params.get('name') || 'browser').slice(0, 64);

const room = { sessionId, session: null, publisher: null, subscribers: new Map(), messages: [], errors: [], error: null };
window.room = room;

/** Shows an OpenTok error (code, name, message) in the alert line and remembers it. */
function showError(error, context) {
  const failure = { code: error && error.code !== undefined ? error.code : 2000, name: (error && error.name) || 'Error',
    message: (error && error.message) || String(error), context };
  room.error = failure;
  room.errors.push(failure);
  const box = $('error');
  box.textContent = `${context}: error ${failure.code} (${failure.name}): ${failure.message}`;
  box.hidden = false;
}

function setStatus(text) { $('status').textContent = text; }

function updateCount() {
  const session = room.session;
  const count = session && session.isConnected() ? session.connections.length + 1 : 0;
  $('connection-count').textContent = `${count} connected`;
  room.connectionCount = count;
}

/** The API key a token names: a T1 token's partner_id, a JWT's iss; '' when unreadable. */
function apiKeyOf(token) {
  try {
    if (token.startsWith('T1==')) {
      const text = atob(token.slice(4));
      const head = text.slice(0, text.indexOf(':'));
      return new URLSearchParams(head).get('partner_id') || '';
    }
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return String(JSON.parse(atob(payload + '='.repeat((4 - payload.length % 4) % 4))).iss || '');
  } catch (error) {
    return '';
  }
}

/** {apiKey, token}: from the address, else a dev token from the router (an OTError when refused). */
async function credentials() {
  const token = params.get('token');
  if (token) return { apiKey: params.get('apiKey') || apiKeyOf(token), token };
  const response = await fetch(`/room/${encodeURIComponent(sessionId)}/token?name=${encodeURIComponent(name)}`,
    { method: 'POST', cache: 'no-store' });
  let body = {};
  try { body = await response.json(); } catch (error) { /* a body that is not JSON: the status speaks */ }
  if (response.ok && typeof body.token === 'string') return { apiKey: body.apiKey, token: body.token };
  const reason = body.message || `the router answered ${response.status}`;
  if (response.status === 404) throw new OT.OTError(1005, `no token for this session: ${reason}`);
  throw new OT.OTError(1004, `no token in the address (?token=) and no dev token: ${reason}`);
}

/** A tile for `stream` with its subscriber; removed when the stream or the subscriber ends. */
function subscribeTo(session, stream) {
  const figure = document.createElement('figure');
  figure.className = 'tile';
  figure.dataset.streamId = stream.streamId;
  const holder = document.createElement('div');
  const caption = document.createElement('figcaption');
  const label = document.createElement('span');
  label.className = 'name';
  label.textContent = stream.name || (stream.connection && stream.connection.data) || stream.streamId;
  const state = document.createElement('span');
  state.className = 'state';
  state.textContent = 'connecting';
  caption.append(label, state);
  figure.append(holder, caption);
  $('tiles').appendChild(figure);
  const subscriber = session.subscribe(stream, holder, { insertMode: 'append', width: '100%' }, (error) => {
    if (error) {
      state.textContent = `error ${error.code}`;
      showError(error, `subscribing to ${label.textContent}`);
    } else {
      state.textContent = stream.hasAudio ? '' : 'muted';
    }
  });
  room.subscribers.set(stream.streamId, subscriber);
  subscriber.on('destroyed', () => {
    if (room.subscribers.get(stream.streamId) === subscriber) room.subscribers.delete(stream.streamId);
    figure.remove();
  });
}

function addMessage(from, data, mine) {
  room.messages.push({ from, data, mine });
  const item = document.createElement('li');
  const who = document.createElement('span');
  who.className = 'from';
  who.textContent = mine ? 'me' : from;
  item.append(who, document.createTextNode(data));
  $('messages').appendChild(item);
  item.scrollIntoView({ block: 'nearest' });
}

function toggle(button, on, offText, onText) {
  button.setAttribute('aria-pressed', String(!on));
  button.textContent = on ? offText : onText;
}

async function start() {
  $('session-id').textContent = sessionId;
  if (!sessionId) throw new OT.OTError(1005, 'the address has no session id: open /room/{sessionId}');
  setStatus('getting a token');
  const { apiKey, token } = await credentials();
  const session = OT.initSession(apiKey, sessionId);
  room.session = session;
  session.on({
    sessionConnected: () => { setStatus('connected'); updateCount(); },
    sessionReconnecting: () => setStatus('reconnecting'),
    sessionReconnected: () => { setStatus('connected'); updateCount(); },
    sessionDisconnected: (event) => { setStatus(`disconnected (${event.reason})`); updateCount(); },
    connectionCreated: updateCount,
    connectionDestroyed: updateCount,
    streamCreated: (event) => subscribeTo(session, event.stream),
    streamPropertyChanged: (event) => {
      const tile = document.querySelector(`figure[data-stream-id="${CSS.escape(event.stream.streamId)}"] .state`);
      if (tile && event.changedProperty === 'hasAudio') tile.textContent = event.newValue ? '' : 'muted';
    },
  });
  session.on('signal:chat', (event) => {
    const mine = !!(event.from && session.connection && event.from.connectionId === session.connection.connectionId);
    const from = event.from ? (event.from.data || event.from.connectionId) : 'server';
    addMessage(from, String(event.data), mine);
  });

  setStatus('connecting');
  await new Promise((resolve, reject) => session.connect(token, (error) => (error ? reject(error) : resolve())));

  const publisher = OT.initPublisher('preview', { name, insertMode: 'append', width: '100%' }, (error) => {
    if (error) showError(error, 'opening the camera and microphone');
  });
  room.publisher = publisher;
  session.publish(publisher, (error) => {
    if (error) showError(error, 'publishing');
    else setStatus('connected, publishing');
  });

  const audio = $('mute-audio'), video = $('mute-video');
  let audioOn = true, videoOn = true;
  audio.addEventListener('click', () => { audioOn = !audioOn; publisher.publishAudio(audioOn); toggle(audio, audioOn, 'Mute audio', 'Unmute audio'); });
  video.addEventListener('click', () => { videoOn = !videoOn; publisher.publishVideo(videoOn); toggle(video, videoOn, 'Stop video', 'Start video'); });

  $('chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('chat-input');
    const text = input.value.trim();
    if (!text) return;
    session.signal({ type: 'chat', data: text }, (error) => {
      if (error) showError(error, 'sending the chat line');
      else input.value = '';
    });
  });
}

start().catch((error) => {
  setStatus('failed');
  showError(error, 'joining the session');
});
