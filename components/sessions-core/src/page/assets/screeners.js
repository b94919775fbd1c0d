/* The screener step (docs/sessions.md, "Screeners"): one question at a time;
   the answers go with the session's start, and the server decides. */

import { $, boot, clearStatus, say, state, t } from './page.js';

export function showScreenerBlock() {
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

/** The screener form's submit: the next question, or `start` (the session) after the last. */
export function onScreenerSubmit(event, start) {
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
    start($('screener-next'));
  }
}
