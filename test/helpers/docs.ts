/** Running a doc's examples as written: its fenced blocks by section, and commands with the repository's launcher. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './cli.ts';

/** The fenced blocks of `lang` in the section of `doc` (the text of `file`) titled `heading`. */
export function docBlocks(doc: string, file: string, heading: string, lang: string): string[] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `${file} has a section "${heading}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

/** Runs `command` with the repository's `agentpipe` launcher first on PATH, no API key, stdin an empty pipe. */
export function runWithLauncher(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: '',
        PATH: `${ROOT}${path.delimiter}${process.env.PATH ?? ''}`,
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let [out, err] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
