/* A survey (docs/surveys.md): its blocks one at a time, each shown as what
   it is (a statement to read, an open question, a choice, a rating), with
   the survey's progress. Answers go through the conversation (submit), which
   sets the survey up. */

import { $, appendTurn, applyStrings, clearStatus, reducedMotion, say, state, t } from './page.js';
import { speak } from './speech.js';

const CHOICE_TYPES = ['single_choice', 'multiple_choice'];
const SKIPPED = '(skipped)'; // how the server writes a skip into the transcript (docs/surveys.md)

export const hasBlock = (turn) => Boolean(turn && turn.block && typeof turn.block === 'object');

/** A survey's session has its progress, and its turns carry blocks. */
export function isSurvey(session) {
  return Boolean(session && ((session.survey && typeof session.survey === 'object') || (session.turns || []).some(hasBlock)));
}

/**
 * Survey mode for `session` (off for an interview or null). The interviewer's
 * turns wait in `queue` until they are shown: turns without a block go
 * straight into the transcript, a statement is a card until Continue, an
 * answerable block is the current form until it is answered. `conversation`
 * is what the conversation does for the survey: `submit(body, shown, retry)`
 * an answer, `finish(session)` once the survey is closed and read.
 */
export function setupSurvey(session, conversation) {
  const on = isSurvey(session);
  const was = Boolean(state.survey);
  state.survey = on ? { queue: [], current: null, echo: null, lastBlock: null, closed: null, conversation } : null;
  $('conversation').classList.toggle('survey', on);
  $('survey-progress-row').hidden = true;
  hideBlock();
  if (on !== was) applyStrings();
}

/** How the block of `turn` is shown: statement, open_question (also every follow-up), a choice or rating. */
export function blockKind(block) {
  if (block.follow_up) return 'open_question';
  if (block.type === 'statement') return 'statement';
  if (CHOICE_TYPES.includes(block.type) && Array.isArray(block.options) && block.options.length) return block.type;
  if (block.type === 'rating') return 'rating';
  return 'open_question'; // an unknown kind still takes an answer in words
}

export const takesText = () => Boolean(state.survey && state.survey.current && blockKind(state.survey.current.block) === 'open_question');

export function renderSurvey(session, speakNew) {
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
export function advance(speakNew) {
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
      survey.conversation.finish(closed);
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
export function blockControl() {
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
    survey.conversation.submit({ rating: Number(chosen[0]) }, chosen[0] + '/' + max, submitBlock);
  } else if (kind === 'single_choice') {
    survey.conversation.submit({ choices: [chosen[0]] }, chosen[0], submitBlock);
  } else {
    survey.conversation.submit({ choices: chosen }, chosen.join('; '), submitBlock);
  }
}

function skipBlock() {
  if (state.survey) state.survey.conversation.submit({ skip: true }, t('survey_skipped'), skipBlock);
}
