/* Talking mode's voice (docs/sessions.md, "What the page does"): the
   interviewer's messages read aloud, and dictation: the browser's speech
   recognition, or a spoken answer recorded and turned into text by the
   server's transcription. */

import { $, boot, clearStatus, say, state, t } from './page.js';
import { pickType } from './recorder.js';
import { call, errorText } from './transport.js';

export function speak(text) {
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
export function setupDictation() {
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

export function onSpeak() {
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
export function cancelDictation() {
  if (state.dictation && state.listening) state.dictation.cancel();
}
