// Which fingerprint components make the device id, and the canonical form they are hashed in.
// The id must survive what changes between visits of one browser (window size, monitor,
// timezone, language, settings, a minor browser update) and differ between browsers and
// devices; README "Device tokens" explains the choice. Raw components are never stored.
import canonicalize from 'canonicalize';
import { AppError } from '../errors.js';

// FingerprintJS components left out of the id, each with what changes it on one browser.
export const LEFT_OUT_COMPONENTS: Readonly<Record<string, string>> = {
  screenResolution: 'window or monitor size (a resize, an external monitor, a rotated phone)',
  screenFrame: 'window or monitor size (a resize, an external monitor, a rotated phone)',
  colorDepth: 'the monitor the window is on',
  colorGamut: 'the monitor the window is on',
  hdr: 'the monitor the window is on',
  monochrome: 'the monitor the window is on',
  timezone: 'travel, or a changed setting',
  languages: 'a language setting',
  dateTimeLocale: 'a language setting',
  sessionStorage: 'privacy settings and private windows',
  localStorage: 'privacy settings and private windows',
  indexedDB: 'privacy settings and private windows',
  openDatabase: 'privacy settings and private windows',
  cookiesEnabled: 'privacy settings and private windows',
  domBlockers: 'ad-blocker filter lists, which update themselves',
  contrast: 'accessibility preferences, some switched on a schedule',
  forcedColors: 'accessibility preferences, some switched on a schedule',
  invertedColors: 'accessibility preferences, some switched on a schedule',
  reducedMotion: 'accessibility preferences, some switched on a schedule',
  reducedTransparency: 'accessibility preferences, some switched on a schedule',
  audioBaseLatency: 'the audio output in use (headphones plugged in or not)',
  pdfViewerEnabled: 'a browser setting',
  applePay: 'the page (frame, https) and the wallet state',
  privateClickMeasurement: 'a browser setting',
};

// Fields dropped from inside a kept component.
export const TRIMMED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // The operating system's version: changes with OS updates. Brands, platform, architecture,
  // bitness and model stay (they tell Chrome from Edge, and one phone model from another).
  userAgentData: ['platformVersion'],
};

// Caps (README "Device tokens"): FingerprintJS 5 sends 42 components, about 4 levels deep.
export const MAX_COMPONENTS = 100;
export const MAX_DEPTH = 16;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// FingerprintJS's component shape: `{value, duration}`, `{error, duration}`, or `{duration}`
// when the value is undefined (JSON drops it). `duration` is a timing that differs on every load.
function valueOf(component: unknown): unknown {
  if (!isObject(component) || typeof component.duration !== 'number') return component;
  const rest = Object.keys(component).filter((k) => k !== 'duration');
  if (rest.length === 0) return null;
  if (rest.length === 1 && rest[0] === 'value') return component.value;
  // FingerprintJS hashes a failed source as the word 'error', whatever the error was.
  if (rest.length === 1 && rest[0] === 'error') return 'error';
  return component;
}

// The depth cap (README "Device tokens"): a deeper body is a 400. The walk stops at the cap, so it
// costs no more on a very deep body than on one at the limit.
function depthWithin(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (limit === 0) return false;
  return Object.values(value).every((v) => depthWithin(v, limit - 1));
}

function trimmed(name: string, value: unknown): unknown {
  const drop = TRIMMED_FIELDS[name];
  if (!drop || !isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !drop.includes(k)));
}

// The canonical string a device id is derived from: the kept components, by value only, in
// RFC 8785 (JCS) form. A body with nothing that identifies a device is a 400, so it cannot make
// every such browser one device.
export function canonicalComponents(components: Record<string, unknown>): string {
  const tooDeep = Object.keys(components).filter((name) => !depthWithin(components[name], MAX_DEPTH));
  if (tooDeep.length > 0) {
    throw AppError.invalid(
      tooDeep.map((name) => ({
        path: `/components/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: `is nested deeper than ${MAX_DEPTH} levels`,
      })),
    );
  }
  const kept: Record<string, Json> = {};
  for (const name of Object.keys(components).sort()) {
    if (Object.hasOwn(LEFT_OUT_COMPONENTS, name)) continue;
    kept[name] = (trimmed(name, valueOf(components[name])) ?? null) as Json;
  }
  if (Object.keys(kept).length === 0) {
    throw AppError.invalid(
      [{ path: '/components', message: 'has no component that identifies a device' }],
      'None of the components identifies a device (all are ones that change between visits, see the README).',
    );
  }
  return canonicalize(kept) ?? '{}';
}
