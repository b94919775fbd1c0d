/* What every part of the interviewee's page shares (docs/sessions.md, "What
   the page does"): the boot data the server rendered into the page, the
   page's state, its texts, its stages and its status messages, and the
   transcript's items. The page's modules (static assets with content-hashed
   names, docs/sessions.md "The page's assets"): this one; transport.js (the
   session API), recorder.js (recording and uploading), speech.js (reading
   aloud, dictation), screeners.js, survey.js, conversation.js (starting,
   answering, finishing) and interview.js (the welcome step, and what starts
   it all). Vanilla JS modules, no dependency: the page runs under a strict
   CSP (nonce scripts, no eval, no inline handlers, connect-src 'self').
   Server text always goes in via textContent. */

export const $ = (id) => document.getElementById(id);
const STAGES = ['welcome', 'screener', 'conversation', 'finish', 'thanks', 'screened-out', 'error'];
export const reducedMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

function readBoot() {
  try {
    return JSON.parse($('boot').textContent);
  } catch (e) {
    return null;
  }
}

export const boot = readBoot();
const strings = (boot && boot.strings) || {};
export const state = {
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
  survey: null, // a survey's blocks on their way to the screen (survey.js); null for an interview
};

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

/** The localized text of `key` (the server already filled gaps with English), `{name}` filled from vars. */
export function t(key, vars) {
  const own = state.survey && SURVEY_TEXT[key]; // a survey says "survey" where an interview says "interview"
  let text = typeof strings[key] === 'string' ? strings[key] : key;
  if (own && typeof strings[own] === 'string') text = strings[own];
  Object.keys(vars || {}).forEach((name) => {
    text = text.split('{' + name + '}').join(String(vars[name]));
  });
  return text;
}

export function applyStrings() {
  document.querySelectorAll('[data-text]').forEach((el) => {
    el.textContent = t(el.dataset.text);
  });
  document.querySelectorAll('[data-label]').forEach((el) => {
    el.setAttribute('aria-label', t(el.dataset.label));
  });
}

/** Shows one stage; focus goes to `focus`, else to the stage's heading (so screen readers follow). */
export function show(stage, focus) {
  document.body.dataset.stage = stage;
  STAGES.forEach((name) => {
    const section = $(name);
    if (section) section.hidden = name !== stage;
  });
  const target = focus === undefined ? document.querySelector('#' + stage + ' h2') : focus;
  if (target) target.focus();
}

/** A message in the alert region, with a Retry button when `retry` is given. */
export function say(message, retry) {
  const status = $('status');
  status.hidden = false;
  $('status-text').textContent = message;
  $('retry').hidden = !retry;
  state.retry = retry || null;
  status.scrollIntoView({ block: 'nearest', behavior: reducedMotion ? 'auto' : 'smooth' });
}

export function clearStatus() {
  $('status').hidden = true;
  $('status-text').textContent = '';
  $('retry').hidden = true;
  state.retry = null;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** http(s) URLs only: a redirect never runs script. */
export function safeUrl(url) {
  if (typeof url !== 'string' || !url) return null;
  try {
    const parsed = new URL(url, window.location.href);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch (e) {
    return null;
  }
}

// ---------------------------------------------------------------- the transcript

export function appendTurn(speaker, text) {
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

/** Scrolls to the newest message, keeping its start visible when it is long. */
export function reveal(item) {
  const behavior = reducedMotion ? 'auto' : 'smooth';
  window.scrollTo({ top: document.documentElement.scrollHeight, behavior });
  if (item.getBoundingClientRect().top < 0) item.scrollIntoView({ block: 'start', behavior });
}
