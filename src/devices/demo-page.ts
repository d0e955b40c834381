// The local demo page (GET /demo/device, only with DEMO_PAGES=true): the browser SDK gets a
// device token, and a signup verdict is made with it. The keys come from the URL fragment
// (#pk=…&sk=…), which never reaches a server; nothing is interpolated into the page.
export const demoDevicePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Doorman · device token demo</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 56rem; padding: 0 1rem; color: #1b1f24; }
  h1 { font-size: 1.5rem; margin-bottom: .25rem; }
  h2 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; }
  .note { color: #57606a; margin-top: 0; }
  label { display: block; margin: .3rem 0; }
  input { font: 13px ui-monospace, monospace; width: 28rem; max-width: 100%; }
  dl { display: grid; grid-template-columns: 9rem 1fr; gap: .2rem .8rem; margin: .4rem 0; }
  dt { color: #57606a; }
  dd { margin: 0; font: 13px ui-monospace, monospace; overflow-wrap: anywhere; }
  button { font: inherit; padding: .35rem .9rem; margin-right: .4rem; cursor: pointer; }
  table { border-collapse: collapse; margin-top: .6rem; min-width: 30rem; }
  th, td { text-align: left; padding: .25rem .7rem; border-bottom: 1px solid #d0d7de; font-size: 14px; }
  .allow { color: #1a7f37; font-weight: 600; } .review { color: #9a6700; font-weight: 600; } .block { color: #cf222e; font-weight: 600; }
  #status { color: #57606a; }
</style>
</head>
<body>
<h1>Device token demo</h1>
<p class="note">Step 1 runs in the browser with the publishable key, as on your pages. Step 2 is what your
backend does with the secret key; it runs here only because this is a local demo. Open this page as
<code>/demo/device#pk=pk_test_…&amp;sk=sk_test_…</code> (<code>npm start</code> prints the link).</p>
<label>Publishable key <input id="pk" autocomplete="off" spellcheck="false"></label>
<label>Secret test key <input id="sk" type="password" autocomplete="off"></label>

<h2>1. Browser: device token</h2>
<button id="token">Get a device token</button> <span id="status">starting…</span>
<dl>
  <dt>device id</dt><dd id="device">–</dd>
  <dt>signing key</dt><dd id="kid">–</dd>
  <dt>expires at</dt><dd id="expires">–</dd>
  <dt>token</dt><dd id="raw">–</dd>
</dl>

<h2>2. Your backend: a signup verdict with it</h2>
<button id="signup" disabled>Screen a signup</button>
<span class="note">More than three signups from one device in a day fire <code>velocity_device_signups</code>.</span>
<table><thead><tr><th>#</th><th>verdict</th><th>reasons</th><th>event</th></tr></thead><tbody id="verdicts"></tbody></table>

<script type="module">
import { doorman } from '/sdk/doorman.js';

const $ = (id) => document.getElementById(id);
const fragment = new URLSearchParams(location.hash.slice(1));
$('pk').value = fragment.get('pk') ?? '';
$('sk').value = fragment.get('sk') ?? '';
const claims = (part) => JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
let client;
let current;
let signups = 0;

async function getToken() {
  $('status').textContent = 'collecting components…';
  if (!client || client.key !== $('pk').value) client = Object.assign(doorman({ publishableKey: $('pk').value }), { key: $('pk').value });
  current = await client.token();
  if (!current) {
    $('status').textContent = 'no token (see the console): is the publishable key right?';
    $('signup').disabled = true;
    return;
  }
  const [header, payload] = current.device_token.split('.');
  $('device').textContent = claims(payload).sub;
  $('kid').textContent = claims(header).kid;
  $('expires').textContent = current.expires_at;
  $('raw').textContent = current.device_token.slice(0, 48) + '…';
  $('status').textContent = 'token ready';
  $('signup').disabled = false;
}

async function screenSignup() {
  signups += 1;
  // A fresh shared-range (100.64.0.0/10) address per signup, so only the device links them.
  const ip = '100.64.' + Math.floor(Math.random() * 250) + '.' + (1 + Math.floor(Math.random() * 250));
  const res = await fetch('/v1/verdict', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + $('sk').value, 'Content-Type': 'application/json' },
    body: JSON.stringify({ event_type: 'signup', ip, device_token: current.device_token }),
  });
  const body = await res.json();
  const row = document.createElement('tr');
  const cells = res.ok
    ? [String(signups), body.verdict, body.reasons.map((r) => r.code).join(', ') || '–', body.id]
    : [String(signups), String(res.status), body.message, ''];
  for (const text of cells) row.appendChild(Object.assign(document.createElement('td'), { textContent: text }));
  if (res.ok) row.children[1].className = body.verdict;
  $('verdicts').appendChild(row);
}

$('token').addEventListener('click', () => void getToken());
$('signup').addEventListener('click', () => void screenSignup());
if ($('pk').value) void getToken(); else $('status').textContent = 'enter a publishable key';
</script>
</body>
</html>
`;
