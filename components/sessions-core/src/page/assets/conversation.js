/* The conversation (docs/sessions.md, "What the page does"): starting a
   session (or resuming the one a reload left), the transcript and the
   answers, the end of the interview and the finish step. */

import { $, appendTurn, boot, clearStatus, reveal, safeUrl, say, show, state, t } from './page.js';
import { prepareMedia, startRecording, stopRecording, stopTracks } from './recorder.js';
import { cancelDictation, setupDictation, speak } from './speech.js';
import { blockControl, blockKind, hasBlock, renderSurvey, setupSurvey, takesText } from './survey.js';
import { call, errorText, retryable } from './transport.js';

const REDIRECT_DELAY_MS = 1500;

/** What the conversation does for a survey (survey.js): send an answer, finish. */
const SURVEY_CONVERSATION = {
  submit: (body, shown, retry) => submitSurvey(body, shown, retry),
  finish: (session) => toFinish(session),
};

/** Everything stops: a dead end (the error stage) records and says nothing more. */
export function fatal(headingKey, messageKey) {
  stopEverything();
  clearStatus();
  $('error-heading').textContent = t(headingKey);
  $('error-message').textContent = t(messageKey);
  show('error');
}

function stopEverything() {
  cancelDictation();
  if (window.speechSynthesis) window.speechSynthesis.cancel();
  if (state.recorder) stopRecording();
  else stopTracks();
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

export function saved() {
  try {
    const value = JSON.parse(sessionStorage.getItem(storageKey()) || 'null');
    return value && value.interview_id && value.session_token ? { id: value.interview_id, token: value.session_token } : null;
  } catch (e) {
    return null;
  }
}

export async function resume(session) {
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
  setupSurvey(null, SURVEY_CONVERSATION);
  show('welcome');
}

// ---------------------------------------------------------------- start

export async function startSession(button) {
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
  setupSurvey(session, SURVEY_CONVERSATION);
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

export async function sendAnswer() {
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
    await answerFailed(err, sendAnswer, text);
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

/** After a failed answer (`sent`: the text it carried). */
async function answerFailed(err, retry = sendAnswer, sent = null) {
  if (retryable(err)) {
    say(errorText(err), retry);
  } else if (err.status === 409 && (err.code === 'answer_conflict' || err.code === 'block_mismatch')) {
    // Another tab answered first, or this page did, its answer lost on the way
    // back (a timeout on a bad connection): show where the conversation is now.
    const now = await refresh();
    const stored = now && (now.turns || []).filter((turn) => turn.speaker === 'interviewee').pop();
    if (sent !== null && stored && stored.text === sent) {
      $('answer').value = ''; // it was this page's answer: nothing to say
    } else {
      say(t('answer_conflict'));
    }
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

/** Re-reads the session after a conflict: more turns, the finish step, or the end. The session, when read. */
async function refresh(closed) {
  let data;
  try {
    data = await call('GET', '/' + encodeURIComponent(state.session.id));
  } catch (err) {
    if (retryable(err)) say(errorText(err), () => refresh(closed));
    else fatal('error_ended_heading', 'error_session_lost');
    return null;
  }
  renderTurns(data, false);
  if (data.state !== 'in_progress') {
    forget();
    fatal('error_ended_heading', 'error_session_ended');
  } else if (data.interviewer_closed || closed) {
    closeConversation(data);
  }
  return data;
}

export function onAnswerKey(event) {
  // Enter sends, Shift+Enter is a new line; never while an input method composes (Japanese...).
  if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229) return;
  event.preventDefault();
  sendAnswer();
}

// "End interview" asks once more inside the page: the button itself becomes the confirmation.
export function onEnd() {
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

export function resetEndConfirm() {
  if (!state.confirmingEnd) return;
  state.confirmingEnd = false;
  const end = $('end');
  end.textContent = t('end');
  end.classList.remove('confirming');
  $('end-note').hidden = true;
  $('end-cancel').hidden = true;
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

export async function onFinish() {
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
