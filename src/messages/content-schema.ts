/**
 * zod schemas of the model-facing content blocks and API messages (api.ts), for data read back
 * from outside (transcripts). Each schema is checked against its TypeScript type by `satisfies`.
 * zod is imported lazily by the readers (startup time): import this module with `import()`.
 */
import { z } from 'zod';
import type { ImageBlock, MessageParam, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock } from './api.ts';

export const TextBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  citations: z.null().optional(),
}) satisfies z.ZodType<TextBlock>;
export const ImageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.object({
    type: z.literal('base64'),
    media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
    data: z.string(),
  }),
}) satisfies z.ZodType<ImageBlock>;
export const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema]))]),
  is_error: z.boolean().optional(),
}) satisfies z.ZodType<ToolResultBlock>;
export const ThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
}) satisfies z.ZodType<ThinkingBlock>;
export const ToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<ToolUseBlock>;

/** Any block of a history message. */
export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ImageBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
  ToolUseBlockSchema,
]);
/** The content of a history message: a string or blocks. */
export const MessageContentSchema = z.union([z.string(), z.array(ContentBlockSchema)]);
export const MessageParamSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: MessageContentSchema,
}) satisfies z.ZodType<MessageParam>;
