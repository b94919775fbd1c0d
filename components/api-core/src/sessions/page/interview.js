/* The interviewee's page (docs/sessions.md, "What the page does"): welcome,
   screeners, the conversation (an interview, or a survey one block at a time:
   docs/surveys.md), finish. Vanilla JS in one IIFE, no dependency:
   the page runs offline under a strict CSP (nonce scripts, no eval, no inline
   handlers, connect-src 'self'). Server text always goes in via textContent. */
(() => {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const STAGES = ['welcome', 'screener', 'conversation', 'finish', 'thanks', 'screened-out', 'error'];
  const TIMESLICE_MS = 4000; // a recording chunk every few seconds, so little is lost if the tab dies
  const REDIRECT_DELAY_MS = 1500;
  const DRAIN_TIMEOUT_MS = 30000; // finish never waits longer than this for recording uploads
  const reducedMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

  const boot = readBoot();
  const strings = (boot && boot.strings) || {};
  const state = {
    mode: 'typing',
    session: null, // {id, token}
    lastSeq: -1, // highest turn seq shown in the transcript
    pending: null, // the interviewee's answer shown while the server works on it
    busy: false,
    screenerIndex: 0,
    screenerAnswers: [],
    stream: null, // microphone (and camera) of talking mode
    recorder: null,
    uploader: null,
    recordingDone: null, // resolves once the last recording chunks are uploaded (or given up)
    dictation: null, // speech-to-text for the #speak button
    listening: false,
    notice: '', // said once the conversation is on screen
    retry: null, // what the Retry button does
    confirmingEnd: false,
    finishing: false,
    survey: null, // a survey's blocks on their way to the screen (setupSurvey); null for an interview
  };

  // ---------------------------------------------------------------- basics

  function readBoot() {
    try {
      return JSON.parse($('boot').textContent);
    } catch (e) {
      return null;
    }
  }

  /** The localized text of `key` (the server already filled gaps with English), `{name}` filled from vars. */
  function t(key, vars) {
    const own = state.survey && SURVEY_TEXT[key]; // a survey says "survey" where an interview says "interview"
    let text = typeof strings[key] === 'string' ? strings[key] : key;
    if (own && typeof strings[own] === 'string') text = strings[own];
    Object.keys(vars || {}).forEach((name) => {
      text = text.split('{' + name + '}').join(String(vars[name]));
    });
    return text;
  }

  function applyStrings() {
    document.querySelectorAll('[data-text]').forEach((el) => {
      el.textContent = t(el.dataset.text);
    });
    document.querySelectorAll('[data-label]').forEach((el) => {
      el.setAttribute('aria-label', t(el.dataset.label));
    });
  }

  /** Shows one stage; focus goes to `focus`, else to the stage's heading (so screen readers follow). */
  function show(stage, focus) {
    document.body.dataset.stage = stage;
    STAGES.forEach((name) => {
      const section = $(name);
      if (section) section.hidden = name !== stage;
    });
    const target = focus === undefined ? document.querySelector('#' + stage + ' h2') : focus;
    if (target) target.focus();
  }

  /** A message in the alert region, with a Retry button when `retry` is given. */
  function say(message, retry) {
    const status = $('status');
    status.hidden = false;
    $('status-text').textContent = message;
    $('retry').hidden = !retry;
    state.retry = retry || null;
    status.scrollIntoView({ block: 'nearest', behavior: reducedMotion ? 'auto' : 'smooth' });
  }

  function clearStatus() {
    $('status').hidden = true;
    $('status-text').textContent = '';
    $('retry').hidden = true;
    state.retry = null;
  }

  function fatal(headingKey, messageKey) {
    stopEverything();
    clearStatus();
    $('error-heading').textContent = t(headingKey);
    $('error-message').textContent = t(messageKey);
    show('error');
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** http(s) URLs only: a redirect never runs script. */
  function safeUrl(url) {
    if (typeof url !== 'string' || !url) return null;
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- the API

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message || code || String(status));
      this.status = status; // 0: no answer (network)
      this.code = code || '';
      this.serverMessage = message || ''; // what the server said, when it said something
    }
  }

  /** One call to the session API. JSON in and out; a Blob is sent as raw bytes of `contentType`. */
  async function call(method, path, body, contentType, session = state.session) {
    const headers = {};
    if (session) headers.Authorization = 'Bearer ' + session.token;
    let payload;
    if (body instanceof Blob) {
      payload = body;
      headers['Content-Type'] = contentType;
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    let response;
    try {
      response = await fetch(boot.api + path, { method, headers, body: payload, cache: 'no-store', credentials: 'same-origin' });
    } catch (e) {
      throw new ApiError(0, 'network');
    }
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      const detail = data && data.detail && !Array.isArray(data.detail) ? data.detail : {};
      let message = detail.message || (data && data.message);
      // A 422 lists its field errors: [{loc, msg, type}, ...].
      if (!message && data && Array.isArray(data.detail)) {
        message = data.detail.map((item) => (item && typeof item.msg === 'string' ? item.msg : '')).filter(Boolean).join(' ');
      }
      throw new ApiError(response.status, detail.error, message);
    }
    if (!data) throw new ApiError(502, 'bad_response');
    return data;
  }

  /** Worth trying again: no answer, too many requests, a server failure. */
  const retryable = (err) => err.status === 0 || err.status === 429 || err.status >= 500;

  function errorText(err) {
    if (err.status === 0) return t('error_network');
    if (err.status === 429) return t('error_rate_limited');
    return t('error_server');
  }

  // ---------------------------------------------------------------- resume

  // Per project and environment, so a sandbox test never resumes a production interview.
  const storageKey = () => 'interview-session:' + boot.project_id + ':' + boot.environment;

  function remember(session) {
    state.session = { id: session.interview_id, token: session.session_token };
    try {
      sessionStorage.setItem(storageKey(), JSON.stringify({ interview_id: state.session.id, session_token: state.session.token }));
    } catch (e) {
      // Storage disabled: the interview still works, it just cannot be resumed after a reload.
    }
  }

  function forget() {
    try {
      sessionStorage.removeItem(storageKey());
    } catch (e) {
      // Nothing stored.
    }
  }

  function saved() {
    try {
      const value = JSON.parse(sessionStorage.getItem(storageKey()) || 'null');
      return value && value.interview_id && value.session_token ? { id: value.interview_id, token: value.session_token } : null;
    } catch (e) {
      return null;
    }
  }

  async function resume(session) {
    state.session = session;
    clearStatus();
    show('conversation', null);
    setBusy(true);
    let data;
    try {
      data = await call('GET', '/' + encodeURIComponent(session.id));
    } catch (err) {
      setBusy(false);
      if (retryable(err)) {
        say(errorText(err), () => resume(session));
      } else {
        startOver();
      }
      return;
    }
    setBusy(false);
    if (data.state !== 'in_progress') {
      startOver();
      return;
    }
    state.mode = data.mode === 'talking' ? 'talking' : 'typing';
    // The camera was settled on the first visit: here it is only asked for, never required.
    if (state.mode === 'talking') await prepareMedia(false);
    enterConversation(data, false);
  }

  function startOver() {
    forget();
    state.session = null;
    $('transcript').replaceChildren();
    state.lastSeq = -1;
    setupSurvey(null);
    show('welcome');
  }

  // ---------------------------------------------------------------- welcome

  function chosenMode() {
    const checked = document.querySelector('input[name="mode"]:checked');
    return checked ? checked.value : boot.modes[0];
  }

  function initWelcome() {
    $('sandbox-banner').hidden = boot.environment !== 'sandbox';
    if (boot.modes.length > 1) {
      $('modes').hidden = false;
      const first = document.querySelector('input[name="mode"][value="' + boot.modes[0] + '"]');
      if (first) first.checked = true;
    }
    document.querySelectorAll('input[name="mode"]').forEach((radio) => radio.addEventListener('change', describeRecording));
    describeRecording();
  }

  /** What is recorded depends on the mode and the project's camera setting. */
  function describeRecording() {
    const talking = chosenMode() === 'talking';
    const camera = boot.camera_access;
    let text = t('recorded_typing');
    if (talking) text = t(camera === 'required' ? 'recorded_video' : 'recorded_audio');
    if (boot.modes.length === 1) text = t(talking ? 'mode_talking_hint' : 'mode_typing_hint') + ' ' + text;
    $('recorded-text').textContent = text;
    const notice = $('camera-notice');
    notice.hidden = !talking || (camera !== 'optional' && camera !== 'required');
    notice.textContent = notice.hidden ? '' : t(camera === 'required' ? 'camera_required' : 'camera_optional');
  }

  async function onStart() {
    clearStatus();
    state.mode = chosenMode();
    const button = $('start');
    button.disabled = true;
    let ready = true;
    if (state.mode === 'talking') ready = await prepareMedia(boot.camera_access === 'required');
    button.disabled = false;
    if (!ready) {
      button.focus();
      return;
    }
    if (boot.screeners.length) {
      state.screenerIndex = 0;
      state.screenerAnswers = [];
      showScreenerBlock();
      show('screener', $('screener-options').querySelector('input'));
    } else {
      startSession(button);
    }
  }

  // ---------------------------------------------------------------- media

  /** Microphone (and camera) for talking mode. False only when a required camera is refused. */
  async function prepareMedia(cameraRequired) {
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

  function pickType(kind) {
    const candidates = kind === 'video'
      ? ['video/webm;codecs=vp8,opus', 'video/webm', 'video/mp4']
      : ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];
    return candidates.find((type) => MediaRecorder.isTypeSupported && MediaRecorder.isTypeSupported(type)) || '';
  }

  /** The whole interview, recorded while it runs and uploaded chunk by chunk. */
  function startRecording() {
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
    const uploader = createUploader(kind, state.session);
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
  function stopRecording() {
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

  function stopTracks() {
    if (state.stream) state.stream.getTracks().forEach((track) => track.stop());
    state.stream = null;
  }

  function stopEverything() {
    cancelDictation();
    if (window.speechSynthesis) window.speechSynthesis.cancel();
    if (state.recorder) stopRecording();
    else stopTracks();
  }

  /** The number the server expects next, from its chunk_out_of_order message ("... the next one is 3"). */
  function expectedIndex(message) {
    const numbers = String(message || '').match(/\d+/g);
    return numbers ? Number(numbers[numbers.length - 1]) : null;
  }

  /**
   * Uploads a recording strictly in order, one chunk at a time, each at most
   * max_chunk_bytes, retrying a chunk until the server has it.
   */
  function createUploader(kind, session) {
    const limit = Math.max(1024, Number(boot.max_chunk_bytes) || 1048576);
    const queue = []; // [{blob, type}]
    let index = 0;
    let confirmed = 0; // chunks this page got a 200 for
    let running = false;
    let stopped = false; // nothing more can be stored (session over, limit reached...)
    let contentType = null; // the first chunk fixes the recording's type
    let waiters = [];

    function push(blob, type) {
      if (stopped) return;
      contentType = contentType || type;
      for (let offset = 0; offset < blob.size; offset += limit) {
        queue.push({ blob: blob.slice(offset, offset + limit, contentType), tried: false });
      }
      pump();
    }

    async function pump() {
      if (running) return;
      running = true;
      let delay = 1000;
      while (queue.length && !stopped) {
        const chunk = queue[0];
        const path = '/' + encodeURIComponent(session.id) + '/recordings/' + kind + '/' + index;
        try {
          await call('PUT', path, chunk.blob, contentType, session);
          queue.shift();
          index += 1;
          confirmed += 1;
          delay = 1000;
        } catch (err) {
          if (err.status === 409 && err.code === 'chunk_out_of_order') {
            const expected = expectedIndex(err.message);
            if (expected !== null && chunk.tried && expected === index + 1) {
              // An earlier try of this chunk was stored; only its answer got lost.
              queue.shift();
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
            await sleep(delay);
            delay = Math.min(delay * 2, 15000);
          } else {
            stopped = true; // 401, 409 session_closed, 413 limit, 415 type: the server takes no more
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

  // ---------------------------------------------------------------- speech

  function speak(text) {
    if (state.mode !== 'talking' || !text || !window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
    try {
      window.speechSynthesis.cancel();
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = boot.language;
      const voice = window.speechSynthesis.getVoices().find((v) => v.lang && v.lang.toLowerCase().split(/[-_]/)[0] === boot.language);
      if (voice) utterance.voice = voice;
      window.speechSynthesis.speak(utterance);
    } catch (e) {
      // Reading aloud is a convenience: the text is on screen.
    }
  }

  /** Words of languages written without spaces are joined without one. */
  function joinAnswer(before, addition) {
    const text = addition.trim();
    if (!text) return before;
    if (!before.trim()) return text;
    const glue = /^(ja|zh|th)/.test(boot.language) || /\s$/.test(before) ? '' : ' ';
    return before + glue + text;
  }

  /** Speech-to-text for #speak: the browser's recognition, else the server's transcription. */
  function setupDictation() {
    const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
    if (Recognition) state.dictation = recognitionDictation(Recognition);
    else state.dictation = transcriptionDictation();
    $('speak').hidden = !state.dictation;
    if (!state.dictation) state.notice = state.notice || t('speech_unavailable');
  }

  function canTranscribe() {
    return Boolean(boot.transcription && window.MediaRecorder && state.stream && state.stream.getAudioTracks().length);
  }

  function setListening(on, message) {
    state.listening = on;
    const button = $('speak');
    button.textContent = t(on ? 'speak_stop' : 'speak_start');
    button.classList.toggle('listening', on);
    $('dictation-status').textContent = message || '';
  }

  function recognitionDictation(Recognition) {
    let recognition = null;
    let dropped = false;
    return {
      start() {
        const before = $('answer').value;
        dropped = false;
        recognition = new Recognition();
        recognition.lang = boot.language;
        recognition.continuous = true;
        recognition.interimResults = true;
        recognition.addEventListener('result', (event) => {
          if (dropped) return;
          let heard = '';
          for (let i = 0; i < event.results.length; i += 1) heard += event.results[i][0].transcript;
          $('answer').value = joinAnswer(before, heard);
        });
        recognition.addEventListener('error', (event) => {
          if (event.error === 'no-speech' || event.error === 'aborted') return;
          // Recognition is refused or offline: the server's transcription may still work.
          state.dictation = transcriptionDictation();
          $('speak').hidden = !state.dictation;
          if (!state.dictation) $('answer').focus(); // the focused button is gone
          say(t(state.dictation ? 'speech_recognition_failed' : 'speech_unavailable'));
        });
        recognition.addEventListener('end', () => {
          recognition = null;
          setListening(false);
        });
        recognition.start();
        setListening(true, t('listening'));
      },
      stop() {
        if (recognition) recognition.stop();
      },
      cancel() {
        dropped = true;
        if (recognition) recognition.abort();
      },
    };
  }

  /** Records one spoken answer and has the server turn it into text. Null when it cannot work. */
  function transcriptionDictation() {
    if (!canTranscribe()) return null;
    let recorder = null;
    let dropped = false;
    return {
      start() {
        const parts = [];
        dropped = false;
        let size = 0;
        const type = pickType('audio');
        recorder = new MediaRecorder(new MediaStream(state.stream.getAudioTracks()), type ? { mimeType: type } : undefined);
        recorder.addEventListener('dataavailable', (event) => {
          if (!event.data || !event.data.size) return;
          parts.push(event.data);
          size += event.data.size;
          // One transcription request takes at most max_chunk_bytes.
          if (size > boot.max_chunk_bytes * 0.9 && recorder && recorder.state !== 'inactive') recorder.stop();
        });
        recorder.addEventListener('stop', () => {
          const blobType = recorder.mimeType || (parts[0] && parts[0].type) || 'audio/webm';
          recorder = null;
          setListening(false);
          if (!dropped) transcribe(new Blob(parts, { type: blobType }));
        });
        recorder.start(1000);
        setListening(true, t('listening'));
      },
      stop() {
        if (recorder && recorder.state !== 'inactive') recorder.stop();
      },
      cancel() {
        dropped = true;
        this.stop();
      },
    };
  }

  async function transcribe(blob) {
    if (!blob.size || !state.session || state.busy) return;
    const button = $('speak');
    button.disabled = true;
    $('dictation-status').textContent = t('transcribing');
    try {
      const data = await call('POST', '/' + encodeURIComponent(state.session.id) + '/transcriptions', blob.slice(0, boot.max_chunk_bytes, blob.type), blob.type);
      if (document.body.dataset.stage !== 'conversation') return;
      if (data.text) $('answer').value = joinAnswer($('answer').value, data.text);
      else say(t('transcription_empty'));
    } catch (err) {
      say(err.status === 503 ? t('transcription_failed') : errorText(err));
    } finally {
      button.disabled = state.busy;
      $('dictation-status').textContent = '';
      if (document.body.dataset.stage === 'conversation') $('answer').focus();
    }
  }

  function onSpeak() {
    if (!state.dictation) return;
    if (state.listening) {
      state.dictation.stop();
      return;
    }
    clearStatus();
    if (window.speechSynthesis) window.speechSynthesis.cancel(); // do not transcribe the interviewer's voice
    try {
      state.dictation.start();
    } catch (e) {
      setListening(false);
      say(t('speech_unavailable'));
    }
  }

  /** Ends listening; what was said is dropped (the answer is being sent, or the interview ends). */
  function cancelDictation() {
    if (state.dictation && state.listening) state.dictation.cancel();
  }

  // ---------------------------------------------------------------- screeners

  function showScreenerBlock() {
    const index = state.screenerIndex;
    const block = boot.screeners[index];
    const multiple = block.type === 'multiple_choice';
    const last = index === boot.screeners.length - 1;
    $('screener-progress').textContent = t('screener_progress', { n: index + 1, total: boot.screeners.length });
    $('screener-question').textContent = block.question;
    $('screener-hint').textContent = t(multiple ? 'screener_multiple_hint' : 'screener_single_hint');
    const options = block.options.map((option, i) => {
      const row = document.createElement('div');
      row.className = 'choice';
      const input = document.createElement('input');
      input.type = multiple ? 'checkbox' : 'radio';
      input.name = 'screener-option';
      input.id = 'screener-option-' + i;
      input.value = option;
      const label = document.createElement('label');
      label.htmlFor = input.id;
      label.textContent = option;
      row.append(input, label);
      return row;
    });
    $('screener-options').replaceChildren(...options);
    $('screener-next').textContent = t(last ? 'screener_start' : 'screener_next');
  }

  function onScreenerSubmit(event) {
    event.preventDefault();
    if (state.busy) return;
    const chosen = Array.from(document.querySelectorAll('input[name="screener-option"]:checked')).map((input) => input.value);
    const first = $('screener-options').querySelector('input');
    if (!chosen.length) {
      say(t('screener_required'));
      if (first) first.focus();
      return;
    }
    clearStatus();
    state.screenerAnswers[state.screenerIndex] = chosen;
    if (state.screenerIndex < boot.screeners.length - 1) {
      state.screenerIndex += 1;
      showScreenerBlock();
      $('screener-options').querySelector('input').focus();
    } else {
      startSession($('screener-next'));
    }
  }

  // ---------------------------------------------------------------- start

  async function startSession(button) {
    clearStatus();
    const label = button.textContent;
    button.disabled = true;
    button.textContent = t('starting');
    state.busy = true;
    const body = Object.assign({}, boot.start, { mode: state.mode });
    if (boot.screeners.length) body.screener_answers = state.screenerAnswers;
    let data;
    try {
      data = await call('POST', '', body);
    } catch (err) {
      state.busy = false;
      button.disabled = false;
      button.textContent = label;
      if (err.status === 404) fatal('error_unavailable_heading', 'error_not_found');
      else if (err.status === 409) fatal('error_unavailable_heading', 'error_not_active');
      else if (err.status === 410) fatal('error_unavailable_heading', 'error_completed');
      else if (retryable(err)) say(errorText(err), () => startSession(button));
      else fatal('error_heading', 'error_generic');
      return;
    }
    state.busy = false;
    button.disabled = false;
    button.textContent = label;
    if (data.screened_out) {
      stopTracks();
      show('screened-out');
      const url = safeUrl(data.screen_out_url);
      if (url) window.location.assign(url);
      return;
    }
    remember(data);
    enterConversation(data, true);
  }

  // ---------------------------------------------------------------- conversation

  function enterConversation(session, fresh) {
    $('transcript').replaceChildren();
    state.lastSeq = -1;
    setupSurvey(session);
    // A survey focuses its first block once it is on screen (renderTurns).
    show('conversation', state.survey ? null : $('answer'));
    renderTurns(session, fresh);
    if (state.mode === 'talking') {
      startRecording();
      setupDictation();
    }
    if (state.notice) say(state.notice);
    state.notice = '';
    if (session.interviewer_closed) closeConversation(session);
  }

  function appendTurn(speaker, text) {
    const item = document.createElement('li');
    item.className = 'turn ' + (speaker === 'interviewer' ? 'interviewer' : 'interviewee');
    const who = document.createElement('span');
    who.className = 'speaker';
    who.textContent = t(speaker === 'interviewer' ? 'speaker_interviewer' : 'speaker_you');
    const body = document.createElement('p');
    body.className = 'text';
    body.dir = 'auto'; // a message in another script than the page keeps its own direction
    body.textContent = text;
    item.append(who, body);
    $('transcript').append(item);
    return item;
  }

  /** Adds the turns not shown yet; the newest interviewer message is read aloud when `speakNew`. */
  function renderTurns(session, speakNew) {
    if (state.survey) return renderSurvey(session, speakNew);
    let newest = null;
    let lastItem = null;
    (session.turns || []).forEach((turn) => {
      if (turn.seq <= state.lastSeq) return;
      if (turn.speaker === 'interviewee' && state.pending) {
        // The answer is already on screen: keep that node so it is not announced twice.
        lastItem = state.pending;
        lastItem.classList.remove('pending');
        lastItem.querySelector('.text').textContent = turn.text;
        state.pending = null;
      } else {
        lastItem = appendTurn(turn.speaker, turn.text);
      }
      state.lastSeq = turn.seq;
      if (turn.speaker === 'interviewer') newest = turn.text;
    });
    if (state.pending) {
      state.pending.remove();
      state.pending = null;
    }
    if (lastItem) reveal(lastItem);
    if (speakNew) speak(newest);
    return newest;
  }

  /** Scrolls to the newest message, keeping its start visible when it is long. */
  function reveal(item) {
    const behavior = reducedMotion ? 'auto' : 'smooth';
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior });
    if (item.getBoundingClientRect().top < 0) item.scrollIntoView({ block: 'start', behavior });
  }

  function setBusy(on) {
    state.busy = on;
    // A survey puts the answer into the transcript and hides its block while it is sent.
    $('conversation').classList.toggle('sending', on && Boolean(state.survey));
    $('send').disabled = on;
    $('end').disabled = on;
    $('speak').disabled = on;
    $('answer').readOnly = on;
    $('transcript').setAttribute('aria-busy', on ? 'true' : 'false');
    $('thinking').hidden = !on;
  }

  async function sendAnswer() {
    if (state.busy || !state.session) return;
    if (state.survey && !takesText()) return; // the block takes choices (its own form)
    resetEndConfirm();
    const answer = $('answer');
    const text = answer.value.trim();
    if (state.listening && !text) {
      // Send while a spoken answer is still being taken down: finish that; the interviewee sends it next.
      state.dictation.stop();
      return;
    }
    cancelDictation();
    if (!text) {
      say(t('answer_empty'));
      answer.focus();
      return;
    }
    clearStatus();
    if (state.survey) {
      // An open question or a follow-up: the same text, sent as the survey's answer.
      await submitSurvey({ text }, text, sendAnswer);
      return;
    }
    setBusy(true);
    state.pending = appendTurn('interviewee', text);
    state.pending.classList.add('pending');
    reveal(state.pending);
    let data;
    try {
      data = await call('POST', '/' + encodeURIComponent(state.session.id) + '/answers', { text });
    } catch (err) {
      // The typed answer stays in the box: nothing is lost.
      state.pending.remove();
      state.pending = null;
      setBusy(false);
      await answerFailed(err);
      return;
    }
    answer.value = '';
    setBusy(false);
    renderTurns(data, true);
    if (data.interviewer_closed) {
      toFinish(data);
      return;
    }
    answer.focus();
  }

  /** After the interviewer closed: the finish step, once a survey's last statements have been read. */
  function closeConversation(session) {
    const waiting = state.survey ? state.survey.queue.filter(hasBlock) : [];
    if (waiting.length && waiting.every((turn) => blockKind(turn.block) === 'statement')) {
      state.survey.closed = session; // advance() finishes after the last Continue
      return;
    }
    toFinish(session);
  }

  /** Re-reads a survey's session: 'moved' when it has turns this page has not shown (it went on elsewhere), 'ended', or false. */
  async function surveyMovedOn() {
    let data;
    try {
      data = await call('GET', '/' + encodeURIComponent(state.session.id));
    } catch (err) {
      return false;
    }
    if (!(data.turns || []).some((turn) => turn.seq > state.lastSeq)) return false;
    renderTurns(data, false);
    if (data.state !== 'in_progress') {
      forget();
      fatal('error_ended_heading', 'error_session_ended');
      return 'ended';
    }
    if (data.interviewer_closed) closeConversation(data);
    return 'moved';
  }

  /** The answer box, or the current survey block's first control. */
  function focusAnswer() {
    const control = state.survey ? blockControl() : $('answer');
    if (control) control.focus();
  }

  async function answerFailed(err, retry = sendAnswer) {
    if (retryable(err)) {
      say(errorText(err), retry);
    } else if (err.status === 409 && (err.code === 'answer_conflict' || err.code === 'block_mismatch')) {
      // Another tab answered first: show where the conversation is now.
      await refresh();
      say(t('answer_conflict'));
    } else if (err.status === 409) {
      await refresh(true);
    } else if (err.status === 401 || err.status === 404) {
      forget();
      fatal('error_ended_heading', 'error_session_lost');
      return;
    } else if (state.survey && err.status === 422) {
      // The answer does not fit the block: because the survey went on in another
      // window (the server took it for the next block), or as the server says.
      const moved = await surveyMovedOn();
      if (moved === 'ended') return;
      if (moved) say(t('answer_conflict'));
      else if (err.serverMessage) say(t('survey_answer_invalid', { message: err.serverMessage }));
      else say(t('error_answer'));
    } else {
      say(t('error_answer'));
    }
    if (document.body.dataset.stage === 'conversation') focusAnswer();
  }

  /** Re-reads the session after a conflict: more turns, the finish step, or the end. */
  async function refresh(closed) {
    let data;
    try {
      data = await call('GET', '/' + encodeURIComponent(state.session.id));
    } catch (err) {
      if (retryable(err)) say(errorText(err), () => refresh(closed));
      else fatal('error_ended_heading', 'error_session_lost');
      return;
    }
    renderTurns(data, false);
    if (data.state !== 'in_progress') {
      forget();
      fatal('error_ended_heading', 'error_session_ended');
    } else if (data.interviewer_closed || closed) {
      closeConversation(data);
    }
  }

  function onAnswerKey(event) {
    // Enter sends, Shift+Enter is a new line; never while an input method composes (Japanese...).
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    sendAnswer();
  }

  // "End interview" asks once more inside the page: the button itself becomes the confirmation.
  function onEnd() {
    if (state.busy) return;
    if (!state.confirmingEnd) {
      state.confirmingEnd = true;
      const end = $('end');
      end.textContent = t('end_confirm');
      end.classList.add('confirming');
      $('end-note').hidden = false;
      $('end-cancel').hidden = false;
      $('end-note').scrollIntoView({ block: 'nearest' });
      return;
    }
    resetEndConfirm();
    // Ending while a survey's closing statements are on screen finishes it as closed by the interviewer.
    toFinish(state.survey && state.survey.closed ? state.survey.closed : null);
  }

  function resetEndConfirm() {
    if (!state.confirmingEnd) return;
    state.confirmingEnd = false;
    const end = $('end');
    end.textContent = t('end');
    end.classList.remove('confirming');
    $('end-note').hidden = true;
    $('end-cancel').hidden = true;
  }

  // ---------------------------------------------------------------- surveys

  // The keys a survey words as its own (t): the same step, "survey" instead of "interview".
  const SURVEY_TEXT = {
    conversation_heading: 'survey_heading',
    thinking: 'survey_thinking',
    end: 'survey_end',
    end_confirm: 'survey_end_confirm',
    end_cancel: 'survey_end_cancel',
    end_note: 'survey_end_note',
    finish_intro: 'survey_finish_intro',
    finish_intro_ended: 'survey_finish_intro_ended',
    answer_conflict: 'survey_answer_conflict',
  };
  const CHOICE_TYPES = ['single_choice', 'multiple_choice'];
  const SKIPPED = '(skipped)'; // how the server writes a skip into the transcript (docs/surveys.md)

  const hasBlock = (turn) => Boolean(turn && turn.block && typeof turn.block === 'object');

  /** A survey's session has its progress, and its turns carry blocks. */
  function isSurvey(session) {
    return Boolean(session && ((session.survey && typeof session.survey === 'object') || (session.turns || []).some(hasBlock)));
  }

  /**
   * Survey mode for `session` (off for an interview or null). The interviewer's
   * turns wait in `queue` until they are shown: turns without a block go
   * straight into the transcript, a statement is a card until Continue, an
   * answerable block is the current form until it is answered.
   */
  function setupSurvey(session) {
    const on = isSurvey(session);
    const was = Boolean(state.survey);
    state.survey = on ? { queue: [], current: null, echo: null, lastBlock: null, closed: null } : null;
    $('conversation').classList.toggle('survey', on);
    $('survey-progress-row').hidden = true;
    hideBlock();
    if (on !== was) applyStrings();
  }

  /** How the block of `turn` is shown: statement, open_question (also every follow-up), a choice or rating. */
  function blockKind(block) {
    if (block.follow_up) return 'open_question';
    if (block.type === 'statement') return 'statement';
    if (CHOICE_TYPES.includes(block.type) && Array.isArray(block.options) && block.options.length) return block.type;
    if (block.type === 'rating') return 'rating';
    return 'open_question'; // an unknown kind still takes an answer in words
  }

  const takesText = () => Boolean(state.survey && state.survey.current && blockKind(state.survey.current.block) === 'open_question');

  function renderSurvey(session, speakNew) {
    const survey = state.survey;
    let newest = null;
    updateProgress(session.survey);
    (session.turns || []).forEach((turn) => {
      if (turn.seq <= state.lastSeq) return;
      state.lastSeq = turn.seq;
      if (turn.speaker === 'interviewer') {
        survey.queue.push(turn);
        newest = turn.text;
        return;
      }
      // An answer: everything the interviewer said before it was seen and answered.
      commitQueue();
      const text = answerText(turn.text);
      if (state.pending) {
        state.pending.classList.remove('pending');
        state.pending.querySelector('.text').textContent = text;
        state.pending = null;
      } else {
        appendTurn('interviewee', text);
      }
    });
    if (state.pending) {
      state.pending.remove();
      state.pending = null;
    }
    if (survey.echo) {
      survey.echo.item.remove();
      survey.echo = null;
    }
    advance(speakNew);
    return newest;
  }

  /** Moves every waiting interviewer turn into the transcript (the current block's is there already while it is sent). */
  function commitQueue() {
    const survey = state.survey;
    survey.queue.forEach((turn) => {
      if (hasBlock(turn)) survey.lastBlock = turn.block;
      if (survey.echo && survey.echo.seq === turn.seq) {
        survey.echo = null;
        return;
      }
      appendTurn('interviewer', turn.text);
    });
    survey.queue = [];
    survey.current = null;
  }

  /** An answer as the transcript shows it: the server's words, a skip in the page's language. */
  function answerText(text) {
    const block = state.survey.lastBlock;
    return text === SKIPPED && block && !block.required && !block.follow_up ? t('survey_skipped') : text;
  }

  /** Shows the next thing to read or answer: turns without a block go into the transcript, then a statement or a block. */
  function advance(speakNew) {
    const survey = state.survey;
    const said = [];
    while (survey.queue.length && !hasBlock(survey.queue[0])) {
      const turn = survey.queue.shift();
      appendTurn('interviewer', turn.text);
      said.push(turn.text);
    }
    const head = survey.queue[0];
    if (!head) {
      survey.current = null;
      hideBlock();
      if (speakNew) speak(said.join('\n'));
      if (survey.closed) {
        const closed = survey.closed;
        survey.closed = null;
        toFinish(closed);
      }
      return;
    }
    if (head !== survey.current || $('survey-block').hidden) showBlock(head); // the same block keeps what was chosen
    said.push(head.text);
    if (speakNew) speak(said.join('\n'));
    focusBlock();
  }

  function updateProgress(progress) {
    if (!progress || typeof progress !== 'object') return;
    const total = Math.max(0, Math.floor(Number(progress.answerable) || 0));
    const row = $('survey-progress-row');
    row.hidden = !total;
    if (!total) return;
    const answered = Math.min(Math.max(0, Math.floor(Number(progress.answered) || 0)), total);
    const label = t('survey_progress', { answered, total });
    const bar = $('survey-progress');
    bar.max = total;
    bar.value = answered;
    bar.setAttribute('aria-valuetext', label);
    $('survey-progress-label').textContent = label;
  }

  function element(tag, props, children) {
    const el = document.createElement(tag);
    Object.keys(props || {}).forEach((name) => {
      if (name === 'text') el.textContent = props[name];
      else if (name === 'class') el.className = props[name];
      else if (name.startsWith('aria-') || name.startsWith('data-')) el.setAttribute(name, props[name]);
      else el[name] = props[name];
    });
    (children || []).forEach((child) => child && el.append(child));
    return el;
  }

  /** The block's prompt (the interviewer's words), as `tag`: a legend, a heading or a paragraph. */
  const promptElement = (tag, text) => element(tag, { id: 'block-prompt', class: 'block-prompt', dir: 'auto', text });

  /** Same-origin URLs only (the CSP allows nothing else anyway). */
  function sameOrigin(url) {
    if (typeof url !== 'string' || !url) return null;
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.origin === window.location.origin ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  /** The block's image or video, shown above its prompt. */
  function mediaElement(media, prompt) {
    const url = media && sameOrigin(media.url);
    const type = media && typeof media.content_type === 'string' ? media.content_type.toLowerCase() : '';
    if (!url) return null;
    let shown;
    if (type.startsWith('image/')) {
      shown = element('img', { src: url, alt: prompt, decoding: 'async' });
    } else if (type.startsWith('video/')) {
      shown = element('video', { controls: true, preload: 'metadata', playsInline: true, src: url, 'aria-label': t('survey_video') });
    } else {
      return null;
    }
    const frame = element('div', { class: 'block-media', id: 'block-media' }, [shown]);
    shown.addEventListener('error', () => {
      frame.hidden = true; // a missing file leaves the question readable
    });
    return frame;
  }

  function skipButton() {
    const button = element('button', { type: 'button', id: 'block-skip', class: 'secondary', text: t('survey_skip') });
    button.addEventListener('click', skipBlock);
    return button;
  }

  function statementParts(turn) {
    const button = element('button', { type: 'button', id: 'block-continue', class: 'primary', text: t('survey_continue'), 'aria-describedby': 'block-prompt' });
    button.addEventListener('click', onContinue);
    return [promptElement('p', turn.text), element('div', { class: 'actions' }, [button])];
  }

  function openParts(turn, block) {
    const parts = [];
    if (block.follow_up) parts.push(element('p', { class: 'block-kicker', text: t('survey_follow_up') }));
    parts.push(promptElement('h3', turn.text));
    if (!block.required && !block.follow_up) parts.push(element('p', { id: 'block-hint', class: 'hint', text: t('survey_optional') }));
    return parts;
  }

  /** A choice or rating block: a fieldset of radios or checkboxes, Next, and Skip when it is optional. */
  function choiceForm(turn, block, kind) {
    const hints = [];
    const inputs = [];
    let options;
    if (kind === 'rating') {
      const scale = block.scale && Number.isFinite(Number(block.scale.min)) && Number.isFinite(Number(block.scale.max))
        ? { min: Number(block.scale.min), max: Number(block.scale.max) }
        : { min: 1, max: 5 };
      hints.push(t('survey_rating_hint', scale));
      const points = [];
      for (let n = scale.min; n <= scale.max; n += 1) {
        const input = element('input', { type: 'radio', name: 'block-option', id: 'block-option-' + (n - scale.min), value: String(n) });
        if (n === scale.min) input.setAttribute('aria-label', t('survey_rating_lowest', { n }));
        if (n === scale.max) input.setAttribute('aria-label', t('survey_rating_highest', { n }));
        inputs.push(input);
        points.push(element('label', { class: 'scale-point' }, [input, element('span', { class: 'scale-number', text: String(n) })]));
      }
      options = element('div', { class: 'scale points-' + points.length }, points);
      const ends = element('p', { class: 'scale-ends', 'aria-hidden': 'true' }, [
        element('span', { text: t('survey_rating_lowest', { n: scale.min }) }),
        element('span', { text: t('survey_rating_highest', { n: scale.max }) }),
      ]);
      options = element('div', {}, [options, ends]);
    } else {
      const multiple = kind === 'multiple_choice';
      hints.push(t(multiple ? 'screener_multiple_hint' : 'screener_single_hint'));
      options = element('div', { class: 'block-options' }, block.options.map((option, i) => {
        const input = element('input', { type: multiple ? 'checkbox' : 'radio', name: 'block-option', id: 'block-option-' + i, value: String(option) });
        inputs.push(input);
        return element('div', { class: 'choice' }, [input, element('label', { htmlFor: input.id, dir: 'auto', text: String(option) })]);
      }));
    }
    if (!block.required) hints.push(t('survey_optional'));
    const fieldset = element('fieldset', { class: 'choices', 'aria-describedby': 'block-hint' }, [
      promptElement('legend', turn.text),
      element('p', { id: 'block-hint', class: 'hint', text: hints.join(' ') }),
      options,
    ]);
    const actions = element('div', { class: 'actions' }, [
      element('button', { type: 'submit', id: 'block-submit', class: 'primary', text: t('survey_next') }),
      block.required ? null : skipButton(),
    ]);
    const form = element('form', { id: 'block-form', noValidate: true }, [fieldset, actions]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submitBlock();
    });
    const asked = [t('survey_choice_required'), t('survey_rating_required')];
    inputs.forEach((input) => input.addEventListener('change', () => {
      if (!$('status').hidden && asked.includes($('status-text').textContent)) clearStatus(); // "please choose" is answered
    }));
    return form;
  }

  /** Puts `turn`'s block on screen as the current one (not focused: focusBlock). */
  function showBlock(turn) {
    const survey = state.survey;
    const block = turn.block;
    const kind = blockKind(block);
    survey.current = turn;
    removeSkip();
    const container = $('survey-block');
    container.dataset.blockId = String(block.block_id || '');
    container.dataset.blockType = String(block.type || kind);
    container.dataset.followUp = block.follow_up ? 'true' : 'false';
    const parts = [mediaElement(block.media, turn.text)];
    if (kind === 'statement') parts.push(...statementParts(turn));
    else if (kind === 'open_question') parts.push(...openParts(turn, block));
    else parts.push(choiceForm(turn, block, kind));
    container.replaceChildren(...parts.filter(Boolean));
    container.hidden = false;
    setTextAnswer(kind === 'open_question', !block.required && !block.follow_up);
  }

  function hideBlock() {
    const container = $('survey-block');
    container.hidden = true;
    container.replaceChildren();
    delete container.dataset.blockId;
    delete container.dataset.blockType;
    delete container.dataset.followUp;
    removeSkip();
    setTextAnswer(!state.survey, false);
  }

  function removeSkip() {
    const skip = $('block-skip');
    if (skip) skip.remove();
  }

  /**
   * The answer box takes the current block's words (an open question or a
   * follow-up), named by its prompt; for other blocks only "End" stays.
   */
  function setTextAnswer(on, optional) {
    $('answer-form').classList.toggle('no-text', !on);
    const answer = $('answer');
    if (state.survey && on) {
      answer.setAttribute('aria-labelledby', 'block-prompt answer-label');
      answer.setAttribute('aria-describedby', optional ? 'block-hint answer-hint' : 'answer-hint');
      if (optional) $('send').after(skipButton());
    } else {
      answer.removeAttribute('aria-labelledby');
      answer.setAttribute('aria-describedby', 'answer-hint');
    }
  }

  /** Where the keyboard goes for the current block: Continue, the chosen (or first) option, or the answer box. */
  function blockControl() {
    const survey = state.survey;
    if (!survey || !survey.current) return $('end');
    return $('block-continue')
      || document.querySelector('#survey-block input[name="block-option"]:checked')
      || document.querySelector('#survey-block input[name="block-option"]')
      || $('answer');
  }

  /** Brings the current block into view from its top (media, prompt) and focuses its first control. */
  function focusBlock() {
    if (document.body.dataset.stage !== 'conversation') return;
    const top = $('survey-progress-row').hidden ? $('survey-block') : $('survey-progress-row');
    top.scrollIntoView({ block: 'start', behavior: reducedMotion ? 'auto' : 'smooth' });
    const control = blockControl();
    if (control) control.focus({ preventScroll: true });
  }

  /** Continue on a statement: it joins the transcript, the next block follows (no server call). */
  function onContinue() {
    const survey = state.survey;
    if (state.busy || !survey || !survey.current || blockKind(survey.current.block) !== 'statement') return;
    clearStatus();
    const turn = survey.queue.shift();
    survey.current = null;
    survey.lastBlock = turn.block;
    appendTurn('interviewer', turn.text);
    advance(true);
  }

  function submitBlock() {
    const survey = state.survey;
    if (state.busy || !survey || !survey.current) return;
    const block = survey.current.block;
    const kind = blockKind(block);
    const inputs = Array.from(document.querySelectorAll('#survey-block input[name="block-option"]'));
    const chosen = inputs.filter((input) => input.checked).map((input) => input.value);
    if (!chosen.length) {
      say(t(kind === 'rating' ? 'survey_rating_required' : 'survey_choice_required'));
      if (inputs[0]) inputs[0].focus();
      return;
    }
    if (kind === 'rating') {
      const max = block.scale && block.scale.max !== undefined ? block.scale.max : 5;
      submitSurvey({ rating: Number(chosen[0]) }, chosen[0] + '/' + max, submitBlock);
    } else if (kind === 'single_choice') {
      submitSurvey({ choices: [chosen[0]] }, chosen[0], submitBlock);
    } else {
      submitSurvey({ choices: chosen }, chosen.join('; '), submitBlock);
    }
  }

  function skipBlock() {
    submitSurvey({ skip: true }, t('survey_skipped'), skipBlock);
  }

  /**
   * Sends the answer to the current block. The prompt and the answer go into
   * the transcript at once; on failure they come out again and the block (with
   * what was chosen or typed) comes back.
   */
  async function submitSurvey(body, shown, retry) {
    const survey = state.survey;
    if (state.busy || !state.session || !survey || !survey.current) return;
    resetEndConfirm();
    cancelDictation();
    clearStatus();
    const turn = survey.current;
    // Naming the block lets the server refuse an answer meant for another one
    // (the survey went on in another tab) instead of storing it in the wrong place.
    if (turn.block && turn.block.block_id) body = Object.assign({ block_id: turn.block.block_id }, body);
    setBusy(true);
    survey.echo = { seq: turn.seq, item: appendTurn('interviewer', turn.text) };
    state.pending = appendTurn('interviewee', shown);
    state.pending.classList.add('pending');
    reveal(state.pending);
    let data;
    try {
      data = await call('POST', '/' + encodeURIComponent(state.session.id) + '/answers', body);
    } catch (err) {
      if (state.pending) state.pending.remove();
      state.pending = null;
      if (survey.echo) survey.echo.item.remove();
      survey.echo = null;
      setBusy(false);
      await answerFailed(err, retry);
      return;
    }
    if (body.text !== undefined || body.skip) $('answer').value = '';
    setBusy(false);
    renderTurns(data, true);
    if (data.interviewer_closed) closeConversation(data);
  }

  // ---------------------------------------------------------------- finish

  /** The finish step; `session` is given when the interviewer closed the conversation. */
  function toFinish(session) {
    cancelDictation();
    clearStatus();
    const closing = session && session.interviewer_closed ? lastInterviewerText(session) : '';
    $('closing').textContent = closing;
    $('closing').hidden = !closing;
    $('finish-intro').textContent = t(session && session.interviewer_closed ? 'finish_intro' : 'finish_intro_ended');
    // Nothing more to record: the last chunks upload while the interviewee reads.
    if (state.recorder) {
      state.recordingDone = stopRecording();
    } else {
      state.recordingDone = null;
      stopTracks();
    }
    show('finish');
  }

  function lastInterviewerText(session) {
    const turns = (session.turns || []).filter((turn) => turn.speaker === 'interviewer');
    return turns.length ? turns[turns.length - 1].text : '';
  }

  async function onFinish() {
    if (state.finishing || !state.session) return;
    state.finishing = true;
    clearStatus();
    const button = $('finish-button');
    button.disabled = true;
    if (state.recordingDone) {
      button.textContent = t('saving_recording');
      await state.recordingDone;
      state.recordingDone = null;
    }
    button.textContent = t('finishing');
    let data = null;
    try {
      data = await call('POST', '/' + encodeURIComponent(state.session.id) + '/finish', { opt_in_for_followup: $('opt-in').checked });
    } catch (err) {
      state.finishing = false;
      button.disabled = false;
      button.textContent = t('finish_button');
      if (retryable(err)) {
        say(errorText(err), onFinish);
        return;
      }
      if (err.status === 422) {
        say(t('error_server'), onFinish);
        return;
      }
      // 409: it already ended (the answers are saved all the same); 401/404: nothing left to finish.
    }
    state.finishing = false;
    thank(data && data.redirect_url);
  }

  function thank(redirectUrl) {
    forget();
    state.session = null;
    show('thanks');
    const url = safeUrl(redirectUrl);
    if (!url) return;
    $('redirect-link').href = url;
    $('redirect').hidden = false;
    setTimeout(() => window.location.assign(url), REDIRECT_DELAY_MS);
  }

  // ---------------------------------------------------------------- start up

  /** A logo that cannot be loaded is hidden rather than shown broken. */
  function guardLogo() {
    const logo = document.querySelector('img.logo');
    if (!logo) return;
    const hide = () => { logo.hidden = true; };
    if (logo.complete && logo.naturalWidth === 0) hide();
    else logo.addEventListener('error', hide);
  }

  function init() {
    guardLogo();
    applyStrings();
    if (!boot || !boot.api || !boot.start) {
      fatal('error_heading', 'error_generic');
      return;
    }
    boot.modes = (Array.isArray(boot.modes) ? boot.modes : []).filter((m) => m === 'typing' || m === 'talking');
    if (!boot.modes.length) boot.modes = ['typing'];
    boot.screeners = Array.isArray(boot.screeners) ? boot.screeners : [];
    initWelcome();

    $('start').addEventListener('click', onStart);
    $('screener-form').addEventListener('submit', onScreenerSubmit);
    $('answer-form').addEventListener('submit', (event) => {
      event.preventDefault();
      sendAnswer();
    });
    $('answer').addEventListener('keydown', onAnswerKey);
    $('speak').addEventListener('click', onSpeak);
    $('end').addEventListener('click', onEnd);
    $('end-cancel').addEventListener('click', () => {
      resetEndConfirm();
      $('end').focus();
    });
    $('conversation').addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && state.confirmingEnd) {
        resetEndConfirm();
        $('end').focus();
      }
    });
    $('finish-button').addEventListener('click', onFinish);
    $('retry').addEventListener('click', () => {
      const retry = state.retry;
      clearStatus();
      if (retry) retry();
    });

    const session = saved();
    if (session) resume(session);
    else show('welcome', null);
  }

  init();
})();
