/* Talking mode's recording (docs/sessions.md, "What the page does"): the
   microphone (and camera), one MediaRecorder for the interview, and its
   chunks uploaded in order as they come. The upload queue is bounded: when
   the connection cannot keep up, the recorder pauses (and the interviewee is
   told) until the queue has drained, so a long outage never fills the
   browser's memory. A reload starts a new recorder that goes on at the
   index the server expects; the server splices the two into one file. */

import { $, boot, say, sleep, state, t } from './page.js';
import { call, retryable, UPLOAD_TIMEOUT_MS } from './transport.js';

const TIMESLICE_MS = 4000; // a recording chunk every few seconds, so little is lost if the tab dies
const DRAIN_TIMEOUT_MS = 30000; // finish never waits longer than this for recording uploads
/** The upload is this far behind (its oldest waiting chunk this old), or holds
    this many bytes: the recorder pauses until the queue is empty. */
export const MAX_BACKLOG_MS = 30000;
export const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
const CAUGHT_UP_NOTICE_MS = 8000;

/** Microphone (and camera) for talking mode. False only when a required camera is refused. */
export async function prepareMedia(cameraRequired) {
  if (state.stream) return true;
  const media = navigator.mediaDevices;
  if (!media || !media.getUserMedia || !window.MediaRecorder) {
    if (cameraRequired) {
      say(t('camera_unsupported'));
      return false;
    }
    state.notice = t('recording_unsupported');
    return true;
  }
  if (boot.camera_access === 'optional' || boot.camera_access === 'required') {
    try {
      state.stream = await media.getUserMedia({ audio: true, video: { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } } });
      return true;
    } catch (e) {
      if (cameraRequired) {
        say(t('camera_denied'));
        return false;
      }
    }
  }
  try {
    state.stream = await media.getUserMedia({ audio: true });
  } catch (e) {
    // Without a microphone the interview goes on in writing.
    state.notice = t('microphone_denied');
  }
  return true;
}

export function pickType(kind) {
  const candidates = kind === 'video'
    ? ['video/webm;codecs=vp8,opus', 'video/webm', 'video/mp4']
    : ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];
  return candidates.find((type) => MediaRecorder.isTypeSupported && MediaRecorder.isTypeSupported(type)) || '';
}

/** What the page says about the recording's upload (polite: it is not an error). */
function recordingStatus(key) {
  const status = $('recording-status');
  status.textContent = key ? t(key) : '';
  status.hidden = !key;
  status.dataset.state = key || '';
}

/** The whole interview, recorded while it runs and uploaded chunk by chunk. */
export function startRecording() {
  if (!state.stream || !window.MediaRecorder || state.recorder) return;
  const kind = state.stream.getVideoTracks().length ? 'video' : 'audio';
  const mimeType = pickType(kind);
  const options = { audioBitsPerSecond: 64000 };
  if (mimeType) options.mimeType = mimeType;
  if (kind === 'video') options.videoBitsPerSecond = 500000; // 20 minutes stay far below the size limit
  let recorder;
  try {
    recorder = new MediaRecorder(state.stream, options);
  } catch (e) {
    say(t('recording_unsupported'));
    return;
  }
  let caughtUpTimer = null;
  const uploader = createUploader(kind, state.session, {
    // The connection cannot keep up: record nothing more until it has.
    behind() {
      clearTimeout(caughtUpTimer);
      if (recorder.state === 'recording' && typeof recorder.pause === 'function') {
        recorder.pause();
      } else if (recorder.state === 'recording') {
        recorder.stop(); // no pause here: the recording ends, still a whole file
      }
      recordingStatus('upload_behind');
    },
    caughtUp() {
      if (recorder.state === 'paused') recorder.resume();
      recordingStatus('upload_caught_up');
      caughtUpTimer = setTimeout(() => recordingStatus(null), CAUGHT_UP_NOTICE_MS);
    },
  });
  recorder.addEventListener('dataavailable', (event) => {
    if (event.data && event.data.size) uploader.push(event.data, event.data.type || recorder.mimeType || mimeType || kind + '/webm');
  });
  try {
    recorder.start(TIMESLICE_MS);
  } catch (e) {
    say(t('recording_unsupported'));
    return;
  }
  state.recorder = recorder;
  state.uploader = uploader;
  $('recording-indicator').hidden = false;
}

/** Stops the recorder and the devices; resolves once the last chunks are uploaded (or given up). */
export function stopRecording() {
  const recorder = state.recorder;
  const uploader = state.uploader;
  state.recorder = null;
  $('recording-indicator').hidden = true;
  const stopped = new Promise((resolve) => {
    if (!recorder || recorder.state === 'inactive') return resolve();
    // The last dataavailable comes before stop.
    recorder.addEventListener('stop', () => resolve(), { once: true });
    try {
      recorder.stop();
    } catch (e) {
      resolve();
    }
  });
  return stopped.then(() => {
    stopTracks();
    return uploader ? uploader.drained(DRAIN_TIMEOUT_MS) : undefined;
  });
}

export function stopTracks() {
  if (state.stream) state.stream.getTracks().forEach((track) => track.stop());
  state.stream = null;
}

/** The number the server expects next, from its chunk_out_of_order message ("... the next one is 3"). */
function expectedIndex(message) {
  const numbers = String(message || '').match(/\d+/g);
  return numbers ? Number(numbers[numbers.length - 1]) : null;
}

/**
 * Uploads a recording strictly in order, one chunk at a time, each at most
 * max_chunk_bytes, retrying a chunk until the server has it (after the
 * server's Retry-After when it says 429). `hooks.behind` is called when the
 * queue grows past MAX_BACKLOG_MS or MAX_BACKLOG_BYTES, `hooks.caughtUp`
 * when it is empty again.
 */
function createUploader(kind, session, hooks) {
  const limit = Math.max(1024, Number(boot.max_chunk_bytes) || 1048576);
  const queue = []; // [{blob, tried, queuedAt}]
  let queuedBytes = 0;
  let index = 0;
  let confirmed = 0; // chunks this page got a 200 for
  let running = false;
  let stopped = false; // nothing more can be stored (session over, limit reached...)
  let behind = false;
  let contentType = null; // the first chunk fixes the recording's type
  let waiters = [];

  function push(blob, type) {
    if (stopped) return;
    contentType = contentType || type;
    for (let offset = 0; offset < blob.size; offset += limit) {
      const piece = blob.slice(offset, offset + limit, contentType);
      queue.push({ blob: piece, tried: false, queuedAt: Date.now() });
      queuedBytes += piece.size;
    }
    if (!behind && (queuedBytes > MAX_BACKLOG_BYTES || Date.now() - queue[0].queuedAt > MAX_BACKLOG_MS)) {
      behind = true;
      hooks.behind();
    }
    pump();
  }

  function uploaded() {
    queuedBytes -= queue.shift().blob.size;
    if (behind && !queue.length) {
      behind = false;
      hooks.caughtUp();
    }
  }

  async function pump() {
    if (running) return;
    running = true;
    let delay = 1000;
    while (queue.length && !stopped) {
      const chunk = queue[0];
      const path = '/' + encodeURIComponent(session.id) + '/recordings/' + kind + '/' + index;
      try {
        await call('PUT', path, chunk.blob, contentType, session, UPLOAD_TIMEOUT_MS);
        uploaded();
        index += 1;
        confirmed += 1;
        delay = 1000;
      } catch (err) {
        if (err.status === 409 && err.code === 'chunk_out_of_order') {
          const expected = expectedIndex(err.message);
          if (expected !== null && chunk.tried && expected === index + 1) {
            // An earlier try of this chunk was stored; only its answer got lost.
            uploaded();
            index = expected;
            continue;
          }
          if (expected !== null && !confirmed && !chunk.tried && expected > index) {
            // A reloaded page: this recorder goes on where the earlier one stopped.
            index = expected;
            continue;
          }
          stopped = true;
        } else if (retryable(err)) {
          chunk.tried = true;
          await sleep(Math.max(delay, err.retryAfter * 1000));
          delay = Math.min(delay * 2, 15000);
          // Still offline with chunks piling up: the queue's bound holds while waiting too.
          if (!behind && Date.now() - queue[0].queuedAt > MAX_BACKLOG_MS) {
            behind = true;
            hooks.behind();
          }
        } else {
          stopped = true; // 401, 409 session_closed or not continuable, 413 limit, 415 type: the server takes no more
        }
      }
    }
    running = false;
    waiters.forEach((resolve) => resolve());
    waiters = [];
  }

  function drained(timeoutMs) {
    if (!running && (stopped || !queue.length)) return Promise.resolve();
    return Promise.race([new Promise((resolve) => waiters.push(resolve)), sleep(timeoutMs)]);
  }

  return { push, drained };
}
