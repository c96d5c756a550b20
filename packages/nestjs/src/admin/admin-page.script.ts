import { ADMIN_CSRF_HEADER } from './durable-timeout-admin.constants.js';

/**
 * The page's one script, served as `admin.js` (no build step, no inline code). It asks before a
 * replay, purge, pause, resume or removal of a recurring schedule, posts it to the JSON API with the header that proves the request comes from the
 * page, reloads the page to show the outcome, and keeps the auto-refresh choice for the session.
 */
export const ADMIN_PAGE_SCRIPT = `'use strict';
(function () {
  var api = document.body.getAttribute('data-api');
  var flash = document.getElementById('flash');
  var FLASH_KEY = 'durable-timeout-admin:flash';
  var REFRESH_KEY = 'durable-timeout-admin:refresh';

  function show(text, failed) {
    flash.textContent = text;
    flash.className = failed ? 'flash error' : 'flash';
    flash.hidden = false;
  }

  var kept = sessionStorage.getItem(FLASH_KEY);
  if (kept) {
    sessionStorage.removeItem(FLASH_KEY);
    show(kept, false);
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-action]');
    if (!button) return;
    var action = button.getAttribute('data-action');
    if (action === 'remove-schedule') {
      removeSchedule(button);
      return;
    }
    var topic = button.getAttribute('data-topic');
    var id = button.getAttribute('data-id');
    var flow = action === 'pause' || action === 'resume';
    var what = id === null ? 'every dead letter' : 'dead letter "' + id + '"';
    var question = action === 'pause'
      ? 'Pause ' + topic + '? No instance fires its timeouts until it is resumed; schedules and cancels go on.'
      : action === 'resume'
        ? 'Resume ' + topic + '? What fell due while it was paused fires now.'
        : action === 'replay'
          ? 'Replay ' + what + ' of ' + topic + '? It becomes due now and its handler runs again.'
          : 'Purge ' + what + ' of ' + topic + '? It is deleted for good.';
    if (!window.confirm(question)) return;
    button.disabled = true;
    post('/topics/' + encodeURIComponent(topic) + (flow ? '/' : '/dead/') + action, id === null || flow ? {} : { ids: [id] })
      .then(function (body) {
        if (flow) {
          sessionStorage.setItem(FLASH_KEY, (action === 'pause' ? 'Paused ' : 'Resumed ') + topic + '.');
          location.reload();
          return;
        }
        var done = action === 'replay' ? body.replayed : body.purged;
        sessionStorage.setItem(FLASH_KEY, (action === 'replay' ? 'Replayed ' : 'Purged ') + done + ' dead letter' + (done === 1 ? '' : 's') + ' of ' + topic + '.');
        location.reload();
      })
      .catch(function (error) {
        button.disabled = false;
        show('Failed: ' + error.message, true);
      });
  });

  function post(path, body) {
    return fetch(api + path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', '${ADMIN_CSRF_HEADER}': '1' },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(answer.message || response.statusText);
        return answer;
      });
    });
  }

  function removeSchedule(button) {
    var name = button.getAttribute('data-name');
    var question = 'Remove the recurring schedule ' + name + '? No occurrence of it fires any more (one running now runs to its end). ' +
      'An application that declares it creates it again when it starts.';
    if (!window.confirm(question)) return;
    button.disabled = true;
    post('/schedules/' + encodeURIComponent(name) + '/remove', {})
      .then(function (body) {
        sessionStorage.setItem(FLASH_KEY, body.removed ? 'Removed the recurring schedule ' + name + '.' : 'The recurring schedule ' + name + ' was gone already.');
        location.reload();
      })
      .catch(function (error) {
        button.disabled = false;
        show('Failed: ' + error.message, true);
      });
  }

  var auto = document.getElementById('auto-refresh');
  auto.checked = sessionStorage.getItem(REFRESH_KEY) === 'on';
  var timer = null;
  function schedule() {
    clearTimeout(timer);
    if (auto.checked) timer = setTimeout(function () { location.reload(); }, 10000);
  }
  auto.addEventListener('change', function () {
    sessionStorage.setItem(REFRESH_KEY, auto.checked ? 'on' : 'off');
    schedule();
  });
  schedule();
})();
`;
