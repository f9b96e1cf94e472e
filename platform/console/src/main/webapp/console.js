// The Weir console page: polls the console's API (api/...) and renders the jobs list or one job's page.
'use strict';

const POLL_MS = 2000;
let timer = null;
let durationChart = null;
let sizeChart = null;
let chosenCheckpoint = null;   // the checkpoint the user picked on the job page; null = the latest completed

const $ = (id) => document.getElementById(id);

function token() { return sessionStorage.getItem('weir-console-token'); }

function showMessage(text, error) {
  const m = $('message');
  m.textContent = text;
  m.className = 'message' + (error ? ' error' : '');
  m.hidden = !text;
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (token()) { headers['Authorization'] = 'Bearer ' + token(); }
  const r = await fetch('api/' + path, Object.assign({}, options, { headers }));
  const text = await r.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!r.ok) {
    const reason = body && body.errors ? body.errors[0]
      : r.status === 401 ? 'log in first (an operator may act)'
      : r.status === 403 ? 'your user may not do this (needs role operator)'
      : 'HTTP ' + r.status;
    throw new Error(reason);
  }
  return body;
}

function ms(v) {
  if (v === null || v === undefined) { return '–'; }
  if (v < 1000) { return v + ' ms'; }
  if (v < 60000) { return (v / 1000).toFixed(1) + ' s'; }
  const s = Math.floor(v / 1000);
  if (s < 3600) { return Math.floor(s / 60) + ' min ' + (s % 60) + ' s'; }
  return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}

function bytes(v) {
  if (v === null || v === undefined) { return '–'; }
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return (u === 0 ? v : v.toFixed(1)) + ' ' + units[u];
}

function cell(tr, text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) { td.className = cls; }
  tr.appendChild(td);
  return td;
}

// ---- jobs page ----------------------------------------------------------------------------------------------------

async function renderJobs() {
  const snap = await api('jobs');
  const nodes = snap.nodes || [];
  $('nodes-summary').textContent = nodes.map(n => n.name + (n.up ? ' up' : ' DOWN')).join(' · ');
  const down = nodes.filter(n => !n.up);
  showMessage(down.map(n => 'Node ' + n.name + ' is down: ' + n.error).join(' '), down.length > 0);
  const tbody = $('jobs').querySelector('tbody');
  tbody.replaceChildren();
  for (const j of snap.jobs) {
    const tr = document.createElement('tr');
    // a cluster job: the configured node it is reached through, and the member that runs it
    cell(tr, j.runsOn === null || j.runsOn === undefined ? j.node : j.node + ' (runs on ' + (j.runsOn || 'no member yet') + ')', 'text');
    const name = cell(tr, '', 'text');
    const a = document.createElement('a');
    a.href = '#/job/' + encodeURIComponent(j.node) + '/' + encodeURIComponent(j.id);
    a.textContent = j.name;
    name.appendChild(a);
    cell(tr, j.state, 'text status-' + j.state);
    cell(tr, ms(j.uptimeMs));
    cell(tr, j.parallelism || '–');
    cell(tr, j.lastCheckpointId ?? '–');
    cell(tr, j.lastCheckpointAgeMs === null || j.lastCheckpointAgeMs === undefined ? '–' : ms(j.lastCheckpointAgeMs) + ' ago');
    cell(tr, ms(j.lastCheckpointDurationMs));
    cell(tr, bytes(j.lastCheckpointSize));
    cell(tr, Math.round(j.recordsPerSecond).toLocaleString('en'));
    cell(tr, j.restarts);
    cell(tr, j.failedCheckpoints);
    tbody.appendChild(tr);
  }
  if (snap.jobs.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, snap.takenAt === 0 ? 'polling the nodes…' : 'no jobs', 'text').colSpan = 12;
    tbody.appendChild(tr);
  }
  await renderNodesExtras(nodes);
}

let extrasLoadedAt = 0;
async function renderNodesExtras(nodes) {
  // plugins and cluster change rarely: every 10 s
  if (Date.now() - extrasLoadedAt < 10000) { return; }
  extrasLoadedAt = Date.now();
  const select = $('upload-node');
  if (select.options.length !== nodes.length) {
    select.replaceChildren(...nodes.map(n => new Option(n.name, n.name)));
  }
  const plugins = $('plugins');
  const clusters = $('cluster');
  const pluginTables = [];
  const clusterViews = [];
  const seen = new Set();
  for (const n of nodes.filter(n => n.up)) {
    try {
      pluginTables.push(pluginTable(n.name, (await api('nodes/' + encodeURIComponent(n.name) + '/plugins')).plugins || []));
    } catch (e) {
      pluginTables.push(note('Plugins of ' + n.name + ': ' + e.message, true));
    }
    try {
      const c = await api('nodes/' + encodeURIComponent(n.name) + '/cluster');
      // several configured nodes may be members of one cluster: show it once
      const key = c.available ? c.cluster.name + ' ' + c.cluster.leader : null;
      if (c.available && !seen.has(key)) {
        seen.add(key);
        clusterViews.push(clusterView(n.name, c.cluster));
      }
    } catch (e) {
      clusterViews.push(note('Cluster of ' + n.name + ': ' + e.message, true));
    }
  }
  plugins.replaceChildren(...pluginTables);
  clusters.replaceChildren(...clusterViews);
  $('cluster-section').hidden = clusterViews.length === 0;
}

function note(text, error) {
  const p = document.createElement('p');
  p.className = error ? 'note error' : 'note';
  p.textContent = text;
  return p;
}

// one row per plugin of the node's GET /plugins: a bad one (error, or not ACTIVE) is marked
function pluginTable(nodeName, list) {
  const table = document.createElement('table');
  table.className = 'grid plugins';
  table.dataset.node = nodeName;
  table.innerHTML = '<thead><tr><th class="text">node</th><th class="text">bundle</th><th class="text">version</th><th class="text">state</th>'
    + '<th class="text">file</th><th class="text">types</th><th class="text">used by</th><th class="text">error</th></tr></thead>';
  const tb = document.createElement('tbody');
  for (const p of list) {
    const tr = document.createElement('tr');
    const bad = !!p.error || p.state !== 'ACTIVE';
    tr.className = bad ? 'bad' : '';
    tr.dataset.file = p.file || '';
    cell(tr, nodeName, 'text');
    cell(tr, p.bundle || '–', 'text');
    cell(tr, p.version || '–', 'text');
    cell(tr, p.state, 'text state-' + p.state);
    cell(tr, p.file || '–', 'text');
    cell(tr, (p.types || []).map(t => t.name + ' (' + t.kind + ')').join(', ') || '–', 'text');
    cell(tr, (p.jobs || []).map(j => j.name).join(', ') || '–', 'text');
    cell(tr, p.error || '', 'text reason');
    tb.appendChild(tr);
  }
  if (list.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, nodeName + ' has no plugins', 'text').colSpan = 8;
    tb.appendChild(tr);
  }
  table.appendChild(tb);
  return table;
}

// a table of text cells: headers and rows of strings
function textTable(className, headers, rows) {
  const table = document.createElement('table');
  table.className = className;
  const head = document.createElement('tr');
  for (const h of headers) { const th = document.createElement('th'); th.className = 'text'; th.textContent = h; head.appendChild(th); }
  table.createTHead().appendChild(head);
  const body = table.createTBody();
  for (const r of rows) {
    const tr = document.createElement('tr');
    r.forEach(v => cell(tr, v, 'text'));
    body.appendChild(tr);
  }
  return table;
}

// the console's view of GET /cluster + /cluster/jobs (io.weir.console.cluster.ClusterView)
function clusterView(nodeName, c) {
  const div = document.createElement('div');
  div.className = 'cluster';
  div.appendChild(note(c.summary + ' (as node ' + nodeName + ' sees it)', !c.hasQuorum));
  div.appendChild(textTable('grid members', ['member', 'REST URL', 'role', 'jobs it runs'], c.members.map(m => [
    m.address + (m.self ? ' (' + nodeName + ')' : ''), m.url, m.leader ? 'leader' : 'member', m.jobs.join(', ') || '–'])));
  if (c.jobs.length > 0) {
    div.appendChild(textTable('grid cluster-jobs', ['cluster job', 'status', 'owner', 'message'],
      c.jobs.map(j => [j.name, j.status, j.owner || 'unassigned', j.message])));
  }
  return div;
}

// ---- job page -----------------------------------------------------------------------------------------------------

async function renderJob(node, job) {
  const q = chosenCheckpoint === null ? '' : '?checkpoint=' + chosenCheckpoint;
  const page = await api('jobs/' + encodeURIComponent(node) + '/' + encodeURIComponent(job) + q);
  showMessage('', false);
  const j = page.job;
  $('job-title').textContent = j.name;
  // a cluster job: the configured member answering, and the member that runs it
  $('job-meta').textContent = j.state + ' on node ' + page.node + (j.node === undefined ? '' : ' (runs on ' + (j.node || 'no member yet') + ')') + ' · up ' + ms(j.duration) + ' · restarts ' + j.restarts
    + ' · checkpoint interval ' + (page.config.interval > 0 ? ms(page.config.interval) : 'off')
    + (page.config.unaligned_checkpoints ? ' (unaligned)' : ' (aligned)');
  const d = $('diagnosis');
  d.textContent = page.diagnosis.text;
  d.className = 'diagnosis ' + page.diagnosis.cause;
  d.dataset.cause = page.diagnosis.cause;
  renderGraph(j.vertices || []);
  renderHistory(page.checkpoints.history || []);
  renderCheckpointSelect(page.checkpoints.history || [], page.chosen);
  renderSubtasks(page.subtasks || []);
  renderFailed(page.checkpoints);
}

function renderGraph(vertices) {
  const depth = {};
  const byId = Object.fromEntries(vertices.map(v => [v.id, v]));
  const depthOf = (v) => {
    if (depth[v.id] !== undefined) { return depth[v.id]; }
    depth[v.id] = 0;
    depth[v.id] = (v.inputs || []).reduce((m, i) => byId[i] ? Math.max(m, depthOf(byId[i]) + 1) : m, 0);
    return depth[v.id];
  };
  vertices.forEach(depthOf);
  const columns = [];
  for (const v of vertices) { (columns[depth[v.id]] = columns[depth[v.id]] || []).push(v); }
  const g = $('graph');
  g.replaceChildren();
  columns.forEach((col, i) => {
    if (i > 0) { const arrow = document.createElement('span'); arrow.className = 'arrow'; arrow.textContent = '→'; g.appendChild(arrow); }
    const c = document.createElement('div');
    for (const v of col) {
      const op = document.createElement('div');
      op.className = 'op';
      const b = document.createElement('b');
      b.textContent = v.name;
      op.appendChild(b);
      op.append(v.type + ' · ' + v.kind);
      op.appendChild(document.createElement('br'));
      op.append('parallelism ' + v.parallelism);
      c.appendChild(op);
    }
    g.appendChild(c);
  });
}

function renderHistory(history) {
  const completed = history.filter(c => c.status === 'COMPLETED').slice().reverse();   // oldest first
  const labels = completed.map(c => '#' + c.id);
  const series = (field) => completed.map(c => c[field]);
  const durationData = {
    labels,
    datasets: [
      { label: 'start delay (ms)', data: series('start_delay'), backgroundColor: '#e0891b' },
      { label: 'alignment (ms)', data: series('alignment_duration'), backgroundColor: '#9c27b0' },
      { label: 'sync (ms)', data: series('sync_duration'), backgroundColor: '#2f6fdf' },
      { label: 'async (ms)', data: series('async_duration'), backgroundColor: '#17803d' },
    ],
  };
  const sizeData = {
    labels,
    datasets: [
      { label: 'state size (bytes)', data: series('state_size'), borderColor: '#2f6fdf', backgroundColor: '#2f6fdf' },
      { label: 'persisted in-flight (bytes)', data: series('persisted_data'), borderColor: '#e0891b', backgroundColor: '#e0891b' },
    ],
  };
  if (durationChart === null) {
    durationChart = new Chart($('duration-chart'), {
      type: 'bar', data: durationData,
      options: { animation: false, maintainAspectRatio: false, scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'ms' } } },
        plugins: { title: { display: true, text: 'Duration by part (slowest subtask of each part)' } } },
    });
    sizeChart = new Chart($('size-chart'), {
      type: 'line', data: sizeData,
      options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true, title: { display: true, text: 'bytes' } } },
        plugins: { title: { display: true, text: 'Checkpoint size and persisted in-flight data' } } },
    });
  } else {
    durationChart.data = durationData; durationChart.update();
    sizeChart.data = sizeData; sizeChart.update();
  }
}

function renderCheckpointSelect(history, chosen) {
  const select = $('checkpoint-select');
  const ids = history.filter(c => c.status === 'COMPLETED').map(c => c.id);
  if (chosen !== undefined && !ids.includes(chosen)) { ids.unshift(chosen); }
  const current = Array.from(select.options).map(o => Number(o.value));
  if (JSON.stringify(current) !== JSON.stringify(ids)) {
    select.replaceChildren(...ids.map(id => new Option('#' + id, id)));
  }
  if (chosen !== undefined) { select.value = chosen; }
}

function renderSubtasks(rows) {
  const tbody = $('subtasks').querySelector('tbody');
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    cell(tr, r.vertex, 'text'); cell(tr, r.subtask); cell(tr, r.start_delay); cell(tr, r.alignment); cell(tr, r.sync);
    cell(tr, r.async); cell(tr, r.end_to_end); cell(tr, r.size); cell(tr, r.persisted); cell(tr, r.unaligned ? 'yes' : 'no');
    tbody.appendChild(tr);
  }
}

function renderFailed(checkpoints) {
  const tbody = $('failed').querySelector('tbody');
  tbody.replaceChildren();
  const failed = (checkpoints.history || []).filter(c => c.status === 'FAILED');
  const latest = checkpoints.latest && checkpoints.latest.failed;
  if (latest && !failed.some(c => c.id === latest.id)) { failed.unshift(latest); }
  for (const c of failed) {
    const tr = document.createElement('tr');
    cell(tr, c.id, 'text');
    cell(tr, c.failure_timestamp ? new Date(c.failure_timestamp).toLocaleTimeString() : '–');
    cell(tr, c.failure_message || '', 'reason');
    tbody.appendChild(tr);
  }
  if (failed.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, 'none (' + checkpoints.counts.failed + ' failed since the node started the job)', 'text').colSpan = 3;
    tbody.appendChild(tr);
  }
}

async function act(action) {
  const [, , node, job] = location.hash.split('/');
  const result = $('action-result');
  if (action === 'cancel' && !confirm('Cancel job ' + decodeURIComponent(job) + '?')) { return; }
  result.textContent = action + '…';
  try {
    const r = await api('jobs/' + node + '/' + job + '/' + action, { method: 'POST' });
    result.textContent = action + ': ' + (r.location || (r.checkpointId !== undefined ? 'checkpoint ' + r.checkpointId : 'done'));
  } catch (e) {
    result.textContent = action + ' failed: ' + e.message;
  }
}

// ---- login, upload, routing ---------------------------------------------------------------------------------------

function renderLogin() {
  const user = sessionStorage.getItem('weir-console-user');
  $('login').hidden = !!user;
  $('who').hidden = !user;
  $('who-name').textContent = user || '';
}

async function login(ev) {
  ev.preventDefault();
  try {
    const r = await api('login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: $('login-user').value, password: $('login-password').value }) });
    sessionStorage.setItem('weir-console-token', r.token);
    sessionStorage.setItem('weir-console-user', $('login-user').value + ' (' + r.roles.join(', ') + ')');
    $('login-password').value = '';
    showMessage('', false);
  } catch (e) {
    showMessage('Login failed: ' + e.message, true);
  }
  renderLogin();
}

async function upload(ev) {
  ev.preventDefault();
  const file = $('upload-file').files[0];
  const result = $('upload-result');
  if (!file) { result.textContent = 'Choose a jar to upload first.'; result.className = 'error'; return; }
  const node = $('upload-node').value;
  result.textContent = 'Uploading ' + file.name + ' to ' + node + '…';
  result.className = '';
  try {
    const p = await api('nodes/' + encodeURIComponent(node) + '/plugins?file=' + encodeURIComponent(file.name)
      + ($('upload-replace').checked ? '&replace=true' : ''),
      { method: 'POST', headers: { 'Content-Type': 'application/java-archive' }, body: await file.arrayBuffer() });
    // 201: installed (ACTIVE, or with its error); 202: not settled within the node's wait
    const what = (p.bundle || file.name) + (p.version ? ' ' + p.version : '');
    const types = (p.types || []).map(t => t.name + ' (' + t.kind + ')').join(', ');
    result.textContent = p.error ? 'Installed ' + what + ' on ' + node + ', but it does not work: ' + p.error
      : 'Installed ' + what + ' on ' + node + ': ' + p.state + (types ? ', types ' + types : '');
    result.className = p.error ? 'error' : '';
    extrasLoadedAt = 0;
  } catch (e) {
    result.textContent = 'Upload of ' + file.name + ' failed: ' + e.message;
    result.className = 'error';
  }
}

function route() {
  clearTimeout(timer);
  const parts = location.hash.split('/');
  const onJob = parts[1] === 'job' && parts.length >= 4;
  $('jobs-view').hidden = onJob;
  $('job-view').hidden = !onJob;
  const tick = async () => {
    try {
      if (onJob) {
        await renderJob(decodeURIComponent(parts[2]), decodeURIComponent(parts[3]));
      } else {
        await renderJobs();
      }
      $('job-view').classList.remove('stale');
    } catch (e) {
      // keep polling; what the job page still shows is from before the error: grey it out
      showMessage(e.message, true);
      $('job-view').classList.toggle('stale', onJob);
    }
    timer = setTimeout(tick, POLL_MS);
  };
  tick();
}

window.addEventListener('hashchange', () => {
  chosenCheckpoint = null;
  $('job-title').textContent = '';   // not the previous job's name while the new one loads (or is not found)
  route();
});
$('login').addEventListener('submit', login);
$('logout').addEventListener('click', () => { sessionStorage.clear(); renderLogin(); });
$('upload').addEventListener('submit', upload);
$('checkpoint-select').addEventListener('change', (e) => { chosenCheckpoint = Number(e.target.value); route(); });
document.querySelectorAll('[data-action]').forEach(b => b.addEventListener('click', () => act(b.dataset.action)));
renderLogin();
route();
