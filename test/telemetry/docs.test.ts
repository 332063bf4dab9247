/**
 * docs/telemetry.md's examples, run as written: the Jaeger command line (its endpoint pointed at a loopback OTLP
 * receiver standing in for Jaeger: docker is not needed) and the library example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/telemetry.md'), 'utf8');

/** The fenced blocks of `lang` in the section titled `heading`. */
function blocks(heading: string, lang: string): string[] {
  const section = DOC.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `docs/telemetry.md has a section "${heading}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ANTHROPIC_API_KEY: '', PATH: `${ROOT}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let [out, err] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('docs/telemetry.md: the Jaeger command exports the prompt’s trace over OTLP/HTTP', async () => {
  const receiver = await startOtlpReceiver();
  const [docker, command] = blocks('Send traces to a local Jaeger', 'sh');
  assert.match(docker!, /docker run .*-p 4318:4318 jaegertracing\/jaeger/);
  const line = command!.trim().replace('http://localhost:4318', receiver.url);
  assert.notEqual(line, command!.trim(), 'the command names the Jaeger endpoint');
  const result = await run('sh', ['-c', line], tempDir({ 'notes.txt': 'hello\n' }));
  assert.equal(result.code, 0, result.err);
  const traces = receiver.protobuf.filter((b) => b.path === '/v1/traces');
  assert.ok(traces.length > 0, 'traces arrived');
  assert.ok(traces.some((t) => t.body.includes('invoke_agent agentpipe')));
});

test('docs/telemetry.md: the library example prints the spans to its own console exporter', async () => {
  const [example] = blocks('From the library, with your own OpenTelemetry SDK', 'ts');
  // Inside the checkout, so `import 'agentpipe'` resolves to this package (its own name).
  const dir = path.join(ROOT, 'tmp', `telemetry-docs-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const file = path.join(dir, 'example.ts');
    writeFileSync(file, example!);
    const result = await run(process.execPath, [file], tempDir());
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /result: success/);
    assert.match(result.out, /name: 'invoke_agent agentpipe'/);
    assert.match(result.out, /'gen_ai.usage.input_tokens': \d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
