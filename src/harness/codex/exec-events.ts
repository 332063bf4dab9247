/**
 * `codex exec --json`'s events (codex-rs/exec/src/exec_events.rs: `ThreadEvent` and its `ThreadItem`s), declared once
 * as unions with zod schemas and parsed where a line enters (exec.ts). Fields are read leniently (lenient.ts): one of
 * an unexpected type reads as absent, so a newer codex does not lose a prompt over it; an event or item of another
 * type is not in the union and is reported by the translator.
 */
import { z } from 'zod';
import { lenient, lenientNumber, lenientRecord, lenientText } from '../lenient.ts';

const text = lenientText;
const count = lenientNumber;
/** The objects of an array (other entries dropped); empty when it is no array. */
const objects = z
  .array(z.unknown())
  .transform((items) =>
    items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null),
  )
  .catch(() => []);

/** The token counts of `turn.completed`: OpenAI's, whose input includes the cached tokens. */
const CodexUsageSchema = z.looseObject({
  input_tokens: count,
  cached_input_tokens: count,
  output_tokens: count,
  cache_write_input_tokens: count,
});

/** One item of a turn (a message, a command, a file change, ...). */
export const CodexItemSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.enum(['agent_message', 'reasoning', 'plan']), id: text, text }),
  z.looseObject({
    type: z.literal('command_execution'),
    id: text,
    command: text,
    aggregated_output: text,
    exit_code: count,
    status: text,
  }),
  z.looseObject({
    type: z.literal('file_change'),
    id: text,
    status: text,
    changes: z
      .array(z.unknown())
      .transform((all) =>
        all.flatMap((c) => {
          const change = z.looseObject({ path: text, kind: text }).safeParse(c);
          return change.success && change.data.path
            ? [{ path: change.data.path, kind: change.data.kind ?? 'update' }]
            : [];
        }),
      )
      .catch(() => []),
  }),
  z.looseObject({
    type: z.literal('todo_list'),
    id: text,
    items: z
      .array(z.unknown())
      .transform((all) =>
        all.flatMap((t) => {
          const todo = z.looseObject({ text, completed: lenient(z.boolean()) }).safeParse(t);
          return todo.success ? [{ text: todo.data.text ?? '', completed: todo.data.completed === true }] : [];
        }),
      )
      .catch(() => []),
  }),
  z.looseObject({
    type: z.literal('mcp_tool_call'),
    id: text,
    server: text,
    tool: text,
    arguments: lenientRecord,
    status: text,
    error: lenient(z.looseObject({ message: text })),
    result: lenient(z.looseObject({ content: objects.optional() })),
  }),
  z.looseObject({ type: z.literal('web_search'), id: text, query: text }),
  z.looseObject({ type: z.literal('error'), id: text, message: text }),
]);
export type CodexItem = z.infer<typeof CodexItemSchema>;
export type CodexItemOf<T extends CodexItem['type']> = Extract<CodexItem, { type: T }>;

/** One line of `codex exec --json`; an item event's item is parsed on its own (CodexItemSchema). */
export const CodexExecEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('thread.started'), thread_id: text }),
  z.looseObject({ type: z.literal('turn.started') }),
  z.looseObject({ type: z.literal('turn.completed'), usage: lenient(CodexUsageSchema) }),
  z.looseObject({ type: z.literal('turn.failed'), error: lenient(z.looseObject({ message: text })) }),
  z.looseObject({ type: z.literal('error'), message: text }),
  z.looseObject({ type: z.enum(['item.started', 'item.updated', 'item.completed']), item: lenientRecord }),
]);
export type CodexExecEvent = z.infer<typeof CodexExecEventSchema>;
