/**
 * A v2 `UserInput` list as a prompt: texts joined, images (`data:` URLs, local files) as image
 * blocks. What agentpipe cannot take (audio, skills, mentions, image URLs on the web) is refused
 * by name: -32602.
 */
import { errorMessage } from '../../process/errors.ts';
import type { z } from 'zod';
import { RpcError } from '../../messages/json-rpc.ts';
import type { ImageMediaType, UserContentBlock } from '../../messages/types.ts';
import { promptContent } from '../exec/options.ts';
import type { UserInput } from './params.ts';

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=\s]+)$/;

export function promptOf(input: z.infer<typeof UserInput>[], cwd: string): string | UserContentBlock[] {
  const texts: string[] = [];
  const images: UserContentBlock[] = [];
  const files: string[] = [];
  for (const part of input) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'localImage') files.push(part.path);
    else if (part.type === 'image') {
      const data = part.url ? DATA_URL.exec(part.url) : null;
      if (!data)
        throw RpcError.invalidParams('image input: send a data: URL (png, jpeg, gif or webp) or a localImage path');
      images.push({
        type: 'image',
        source: { type: 'base64', media_type: data[1] as ImageMediaType, data: data[2]!.replace(/\s/g, '') },
      });
    } else throw RpcError.invalidParams(`${part.type} input is not supported by agentpipe app-server`);
  }
  const text = texts.join('\n\n');
  let fromFiles: string | UserContentBlock[];
  try {
    fromFiles = promptContent(text, files, cwd);
  } catch (error) {
    throw RpcError.invalidParams(errorMessage(error));
  }
  const blocks = typeof fromFiles === 'string' ? (text ? [{ type: 'text' as const, text }] : []) : fromFiles;
  if (!images.length) return files.length ? blocks : text;
  return [...blocks, ...images];
}
