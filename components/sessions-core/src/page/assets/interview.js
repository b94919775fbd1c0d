/* The interviewee's page starts here (docs/sessions.md, "What the page
   does"): the welcome step (the mode, what is recorded), every control's
   handler, and the session a reload left to resume. */

import { $, applyStrings, boot, clearStatus, show, state, t } from './page.js';
import { fatal, onAnswerKey, onEnd, onFinish, resetEndConfirm, resume, saved, sendAnswer, startSession } from './conversation.js';
import { prepareMedia } from './recorder.js';
import { onScreenerSubmit, showScreenerBlock } from './screeners.js';
import { onSpeak } from './speech.js';

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
  $('screener-form').addEventListener('submit', (event) => onScreenerSubmit(event, startSession));
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
