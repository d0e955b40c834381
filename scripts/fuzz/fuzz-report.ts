// Reads one schemathesis run's reports (the JSON summary and the NDJSON event stream) into what
// the gate needs: how many cases ran, every failed check with its request and response, the
// requests the server did not answer (refused, reset, timed out), and the fuzzer's own errors.
import fs from 'node:fs';
import path from 'node:path';
import type { Finding } from './deliberate-failures.js';

export interface FailedCheck extends Finding {
  code: string;
  title: string;
  request: string;
}

export interface FuzzReport {
  generated: number;
  sent: number;
  failed: FailedCheck[];
  // The server's fault: a request without an answer.
  unanswered: string[];
  // The fuzzer's own faults (e.g. a Python runtime error in a worker): printed, not the server's.
  fuzzerErrors: string[];
}

const NETWORK_ERROR = /connect|timeout|timed out|reset|refused|disconnected|protocol|chunked|incomplete/i;

interface Interaction {
  request: { method: string; uri: string; body?: { $base64?: string } };
  response?: { status_code: number; content?: { $base64?: string } } | null;
}
interface CheckResult {
  name: string;
  status: string;
  failure_info?: { failure: { code: string; title: string; operation: string } };
}
interface Recorder {
  label: string;
  checks?: Record<string, CheckResult[]>;
  interactions?: Record<string, Interaction>;
}

const decode = (content?: { $base64?: string }) => (content?.$base64 ? Buffer.from(content.$base64, 'base64').toString('utf8') : '');

function only(dir: string, suffix: string): string {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(suffix));
  if (files.length !== 1) throw new Error(`expected one *${suffix} in ${dir}, found ${files.length}`);
  return path.join(dir, files[0]!);
}

export function readFuzzReport(dir: string): FuzzReport {
  const summary = JSON.parse(fs.readFileSync(only(dir, '.json'), 'utf8')) as { test_cases: { generated: number } };
  const report: FuzzReport = { generated: summary.test_cases.generated, sent: 0, failed: [], unanswered: [], fuzzerErrors: [] };
  for (const line of fs.readFileSync(only(dir, '.ndjson'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as Record<string, { recorder?: Recorder; value?: { type?: string; message?: string }; label?: string }>;
    const [name, body] = Object.entries(event)[0]!;
    if (name === 'NonFatalError') {
      const text = `${body.label ?? ''}: ${body.value?.type ?? ''} ${body.value?.message ?? ''}`.slice(0, 2000);
      (NETWORK_ERROR.test(`${body.value?.type} ${body.value?.message}`) ? report.unanswered : report.fuzzerErrors).push(text);
    }
    const recorder = body.recorder;
    if (name !== 'ScenarioFinished' || !recorder) continue;
    for (const [caseId, interaction] of Object.entries(recorder.interactions ?? {})) {
      report.sent += 1;
      if (!interaction.response) report.unanswered.push(`no response to ${interaction.request.method} ${interaction.request.uri}`);
      for (const check of recorder.checks?.[caseId] ?? []) {
        if (check.status !== 'failure' || !check.failure_info) continue;
        const { code, title, operation } = check.failure_info.failure;
        report.failed.push({
          check: check.name,
          code,
          title,
          operation: operation || recorder.label,
          method: interaction.request.method,
          status: interaction.response?.status_code ?? 0,
          body: decode(interaction.response?.content).slice(0, 2000),
          request: `${interaction.request.method} ${interaction.request.uri} ${decode(interaction.request.body).slice(0, 1000)}`,
        });
      }
    }
  }
  return report;
}
