/**
 * Folder paths in streamed text: a model streams a tool call's input, or its text, in small deltas, so a path such as
 * `/home/me/proj/notes.txt` may be cut across several of them. Mapping the recording's folders to the replay's
 * (scene.ts) is therefore done on each streamed text as a whole (the deltas of one block joined), and the result cut
 * again at the same places: a cut outside a replaced path moves with the text, a cut inside one goes to its end (so
 * mapping A to B then B to C cuts where mapping A to C does). Every other string is mapped on its own. Used for the
 * recorded answers (Anthropic events), the recorded stream's `stream_event` messages, and a wrapped CLI's SSE chunks
 * (Anthropic, OpenAI Responses and chat completions, Gemini).
 */
import type { AgentMessage } from '../../messages/types.ts';
import type { HttpApi, TimedChunk, TimedEvent } from './format.ts';
import type { PathMap } from './scene.ts';
import { isRecord } from '../../process/guards.ts';

/** A streamed piece of text: the field of an object that holds it, and the whole text it belongs to. */
interface Piece {
  /** The text it belongs to (one content block, one tool call's arguments ...). */
  key: string;
  holder: Record<string, unknown>;
  field: string;
}

/** Maps each streamed text as a whole and cuts it again where it was cut. */
function mapPieces(pieces: Piece[], map: PathMap): void {
  const byKey = new Map<string, Piece[]>();
  for (const piece of pieces) {
    const list = byKey.get(piece.key);
    if (list) list.push(piece);
    else byKey.set(piece.key, [piece]);
  }
  for (const list of byKey.values()) {
    const texts = list.map((p) => p.holder[p.field] as string);
    const joined = texts.join('');
    const edits = map.edits(joined);
    if (edits.length === 0) continue;
    const mapped = map(joined);
    /** Where position `at` of the joined text is in the mapped one. */
    const moved = (at: number) => {
      let shift = 0;
      for (const edit of edits) {
        if (at <= edit.at) break;
        if (at < edit.at + edit.length) return edit.at + shift + edit.by.length;
        shift += edit.by.length - edit.length;
      }
      return at + shift;
    };
    let [start, cut] = [0, 0];
    for (const [i, piece] of list.entries()) {
      cut += texts[i]!.length;
      const end = i === list.length - 1 ? mapped.length : moved(cut);
      piece.holder[piece.field] = mapped.slice(start, end);
      start = end;
    }
  }
}

/** `value` (a copy) with every string mapped, except the streamed pieces, which are mapped as wholes first. */
function mapWithPieces<T>(value: T, pieces: (copy: T) => Piece[], map: PathMap): T {
  const copy = structuredClone(value);
  const found = pieces(copy);
  mapPieces(found, map);
  const done = new WeakMap<object, Set<string>>();
  for (const piece of found) {
    const fields = done.get(piece.holder) ?? new Set<string>();
    fields.add(piece.field);
    done.set(piece.holder, fields);
  }
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return map(v);
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    const skip = done.get(v);
    for (const [key, item] of Object.entries(v)) if (!skip?.has(key)) v[key] = walk(item);
    return v;
  };
  return walk(copy) as T;
}

/** The streamed text of an Anthropic event (`delta.text`, `.thinking`, `.partial_json`), keyed by its block. */
function anthropicPieces(event: unknown, prefix: string): Piece[] {
  if (!isRecord(event) || event.type !== 'content_block_delta' || !isRecord(event.delta)) return [];
  const delta = event.delta;
  const field = ['text', 'thinking', 'partial_json'].find((f) => typeof delta[f] === 'string');
  return field ? [{ key: `${prefix}/${String(event.index)}/${field}`, holder: delta, field }] : [];
}

/** One answer's events with the folders mapped (a copy). */
export function mapTimedEvents(events: TimedEvent[], map: PathMap): TimedEvent[] {
  return mapWithPieces(events, (copy) => copy.flatMap(([, event]) => anthropicPieces(event, '')), map);
}

/** The recorded stream with the folders mapped (a copy); the `stream_event` deltas of each answer as wholes. */
export function mapMessages(messages: AgentMessage[], map: PathMap): AgentMessage[] {
  return mapWithPieces(
    messages,
    (copy) => {
      const answers = new Map<string, number>();
      return copy.flatMap((message) => {
        if (message.type !== 'stream_event') return [];
        const agent = message.parent_tool_use_id ?? '';
        if (message.event.type === 'message_start') answers.set(agent, (answers.get(agent) ?? 0) + 1);
        return anthropicPieces(message.event, `${agent}/${answers.get(agent) ?? 0}`);
      });
    },
    map,
  );
}

/** The streamed texts of one SSE frame's data, by wire format. */
function wirePieces(api: HttpApi, data: unknown): Piece[] {
  if (!isRecord(data)) return [];
  if (api === 'anthropic') return anthropicPieces(data, 'a');
  if (api === 'openai-responses') {
    const type = data.type;
    if (typeof data.delta !== 'string' || typeof type !== 'string' || !type.endsWith('.delta')) return [];
    const part = typeof data.content_index === 'number' ? data.content_index : data.summary_index;
    const key = `${String(data.item_id)}/${typeof part === 'number' ? part : ''}/${type}`;
    return [{ key, holder: data, field: 'delta' }];
  }
  const pieces: Piece[] = [];
  if (api === 'openai-chat') {
    for (const choice of Array.isArray(data.choices) ? data.choices : []) {
      if (!isRecord(choice) || !isRecord(choice.delta)) continue;
      const delta = choice.delta;
      if (typeof delta.content === 'string')
        pieces.push({ key: `${String(choice.index)}/content`, holder: delta, field: 'content' });
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : [])
        if (isRecord(call) && isRecord(call.function) && typeof call.function.arguments === 'string')
          pieces.push({
            key: `${String(choice.index)}/tool/${String(call.index)}`,
            holder: call.function,
            field: 'arguments',
          });
    }
  }
  if (api === 'gemini') {
    for (const [c, candidate] of (Array.isArray(data.candidates) ? data.candidates : []).entries()) {
      const parts = isRecord(candidate) && isRecord(candidate.content) ? candidate.content.parts : undefined;
      for (const part of Array.isArray(parts) ? parts : [])
        if (isRecord(part) && typeof part.text === 'string')
          pieces.push({ key: `${c}/${part.thought ? 'thought' : 'text'}`, holder: part, field: 'text' });
    }
  }
  return pieces;
}

/** An SSE frame: its lines other than `data:`, its data (parsed when JSON), the time of the chunk that ended it. */
interface Frame {
  at: number;
  head: string[];
  data: unknown;
  raw?: string;
}

function frameOf(text: string, at: number): Frame {
  const head: string[] = [];
  const data: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else head.push(line);
  }
  const raw = data.join('\n');
  try {
    const data: unknown = JSON.parse(raw);
    return { at, head, data };
  } catch {
    return { at, head, data: undefined, raw };
  }
}

/**
 * A wire response's chunks with the folders mapped: an SSE body parsed into frames, its streamed texts mapped as
 * wholes, written again one frame a chunk; any other body mapped as one text.
 */
export function mapChunks(
  chunks: TimedChunk[],
  api: HttpApi,
  contentType: string | undefined,
  map: PathMap,
): TimedChunk[] {
  const body = chunks.map(([, text]) => text).join('');
  const last = chunks.at(-1)?.[0] ?? 0;
  if (!body) return chunks;
  if (!/event-stream/i.test(contentType ?? '')) return [[last, map(body)]];
  const frames: Frame[] = [];
  let pending = '';
  for (const [at, text] of chunks) {
    pending += text;
    const parts = pending.split(/\r?\n\r?\n/);
    pending = parts.pop()!;
    for (const part of parts) if (part.length) frames.push(frameOf(part, at));
  }
  const mapped = mapWithPieces(frames, (copy) => copy.flatMap((f) => wirePieces(api, f.data)), map);
  const out: TimedChunk[] = mapped.map((f) => {
    const data = f.raw !== undefined ? (f.raw ? [`data: ${f.raw}`] : []) : [`data: ${JSON.stringify(f.data)}`];
    return [f.at, `${[...f.head, ...data].join('\n')}\n\n`];
  });
  if (pending) out.push([last, map(pending)]);
  return out;
}
