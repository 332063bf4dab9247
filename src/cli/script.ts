/**
 * `agentpipe script <file>`: a script for the `scripted` model from a real run, so a UI gets realistic fixtures
 * without turns written by hand. From a tape, each recorded model answer becomes a turn (its thinking, text and tool
 * calls with their ids, its usage, stop reason and model, a failure as the turn's `error`, and the pace it streamed
 * at as `delay_ms`); a tape of a wrapped CLI, or a saved transcript (.jsonl), gives a turn per model answer (the
 * assistant messages of one message id, up to the tool results that answer them).
 */
import { errorCode, errorMessage } from '../process/errors.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MessageAssembler } from '../agent/assembler.ts';
import type { AgentMessage, AssistantContentBlock } from '../messages/types.ts';
import type { ModelResponseLine } from '../model/tape/format.ts';
import { readTape } from '../model/tape/reader.ts';
import type { Script, ScriptTurn } from '../model/scripted.ts';
import { UsageError } from './options.ts';

export async function runScript(
  file: string,
  flags: { out?: string; timing?: boolean },
  log: (line: string) => void,
): Promise<number> {
  const source = path.resolve(file);
  let first: string;
  try {
    first = readFileSync(source, 'utf8').split('\n', 1)[0] ?? '';
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${errorCode(error) ?? String(error)}`);
  }
  const script = /^\s*\{\s*"type"\s*:\s*"tape"/.test(first)
    ? fromTape(source, flags.timing !== false)
    : await fromTranscript(source, log);
  if (script.turns.length === 0) throw new UsageError(`${file}: no model answers to make turns of`);
  const text = `${JSON.stringify(script, null, 2)}\n`;
  if (flags.out) writeFileSync(path.resolve(flags.out), text);
  else process.stdout.write(text);
  return 0;
}

function fromTape(file: string, timing: boolean): Script {
  let tape;
  try {
    tape = readTape(file);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const responses = tape.lines
    .filter((l): l is ModelResponseLine => l.type === 'model_response')
    .sort((a, b) => a.n - b.n);
  if (responses.length) return { turns: responses.map((r) => turnOfResponse(r, timing)) };
  return { turns: turnsOfMessages(tape.lines.flatMap((l) => (l.type === 'message' ? [l.message] : []))) };
}

/** One recorded answer as a script turn. */
function turnOfResponse(response: ModelResponseLine, timing: boolean): ScriptTurn {
  if (response.error) {
    const { status, message, retry_after_ms } = response.error;
    return {
      error: {
        status: status ?? 500,
        message,
        ...(retry_after_ms !== undefined ? { retry_after_s: retry_after_ms / 1000 } : {}),
      },
    };
  }
  const assembler = new MessageAssembler();
  for (const [, event] of response.events) assembler.add(event);
  const turn = turnOfBlocks(assembler.finished);
  const message = assembler.message;
  if (message) {
    const u = message.usage;
    turn.usage = {
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      ...(u.cache_creation_input_tokens ? { cache_creation_input_tokens: u.cache_creation_input_tokens } : {}),
      ...(u.cache_read_input_tokens ? { cache_read_input_tokens: u.cache_read_input_tokens } : {}),
    };
    const stop = message.stop_reason;
    if (stop && stop !== (turn.tool_calls?.length ? 'tool_use' : 'end_turn')) turn.stop_reason = stop;
    if (message.model) turn.model = message.model;
  }
  const deltas = response.events.filter(([, e]) => e.type === 'content_block_delta');
  if (timing && deltas.length > 1) {
    const pace = Math.round((deltas.at(-1)![0] - deltas[0]![0]) / (deltas.length - 1));
    if (pace > 0) turn.delay_ms = pace;
  }
  return turn;
}

function turnOfBlocks(blocks: AssistantContentBlock[]): ScriptTurn {
  const turn: ScriptTurn = {};
  const thinking = blocks.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join('\n\n');
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n');
  const calls = blocks.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, input: b.input, id: b.id }] : []));
  if (thinking) turn.thinking = thinking;
  if (text) turn.text = text;
  if (calls.length) turn.tool_calls = calls;
  return turn;
}

/**
 * Assistant messages (one per block) grouped into turns, in order: the blocks of one model answer share its message
 * id. An answer ends where the id changes, and where a user message comes that is a prompt or answers every tool call
 * of the answer so far (a server that gives every answer the same id still gives a turn per answer).
 */
function turnsOfMessages(messages: AgentMessage[]): ScriptTurn[] {
  type Turn = { id: string; blocks: AssistantContentBlock[]; model: string; results: Set<string>; ended: boolean };
  const turns: Turn[] = [];
  let current: Turn | undefined;
  for (const message of messages) {
    if (message.type === 'user' && current) {
      const content = message.message.content;
      const results = typeof content === 'string' ? [] : content.filter((b) => b.type === 'tool_result');
      for (const result of results) current.results.add(result.tool_use_id);
      const calls = current.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (results.length === 0 || calls.every((id) => current!.results.has(id))) current.ended = true;
    }
    if (message.type !== 'assistant' || message.message.model === '<synthetic>') continue;
    const { id, content, model } = message.message;
    if (current && current.id === id && !current.ended) current.blocks.push(...content);
    else {
      current = { id, blocks: [...content], model, results: new Set(), ended: false };
      turns.push(current);
    }
  }
  return turns.map(({ blocks, model }) => ({ ...turnOfBlocks(blocks), ...(model ? { model } : {}) }));
}

async function fromTranscript(file: string, log: (line: string) => void): Promise<Script> {
  const { readTranscript } = await import('../session/transcript-format.ts');
  let lines;
  try {
    lines = await readTranscript(file, log);
  } catch (error) {
    throw new UsageError(`${file}: neither a tape nor a transcript (${errorMessage(error)})`);
  }
  return {
    turns: turnsOfMessages(
      lines.filter((l): l is AgentMessage & typeof l => l.type === 'assistant' || l.type === 'user'),
    ),
  };
}
