/**
 * Validates frames of the app-server protocol against the JSON Schema codex-cli 0.169.0 generates
 * (test/fixtures/codex/): a notification against `ServerNotification`, a request to the client
 * against `ServerRequest`, a response against the `…Response` of the method it answers (the
 * `…Params` type that method takes in `ClientRequest`, renamed), an error against `JSONRPCError`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { ROOT } from '../helpers/cli.ts';

const SCHEMA = JSON.parse(
  readFileSync(path.join(ROOT, 'test/fixtures/codex/app-server-protocol.schema.json'), 'utf8'),
) as { definitions: Record<string, unknown> & { ClientRequest: { oneOf: ClientRequestSchema[] } } };

interface ClientRequestSchema {
  properties: { method: { enum: string[] }; params?: { $ref?: string } };
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
ajv.addSchema(SCHEMA, 'codex');
const compiled = new Map<string, ValidateFunction>();

function validator(ref: string): ValidateFunction {
  let v = compiled.get(ref);
  if (!v) compiled.set(ref, (v = ajv.compile({ $ref: `codex${ref}` })));
  return v;
}

/** `thread/start` → `#/definitions/v2/ThreadStartResponse`, from the params type ClientRequest names. */
const RESPONSES = new Map<string, string>(
  SCHEMA.definitions.ClientRequest.oneOf.flatMap((r) => {
    const params = r.properties.params?.$ref;
    return params ? [[r.properties.method.enum[0]!, params.replace(/Params$/, 'Response')] as [string, string]] : [];
  }),
);

/** The schema problems of one frame the server sent (`method` of the request a response answers); [] when valid. */
export function frameErrors(frame: Record<string, unknown>, answers?: string): string[] {
  let ref: string;
  if (typeof frame.method === 'string')
    ref = frame.id !== undefined ? '#/definitions/ServerRequest' : '#/definitions/ServerNotification';
  else if ('error' in frame) ref = '#/definitions/JSONRPCError';
  else {
    const response = answers ? RESPONSES.get(answers) : undefined;
    if (!response) return [`no response schema for the method ${answers ?? '(unknown request)'}`];
    const v = validator(response);
    return v(frame.result) ? [] : describe(v, `${answers} response`);
  }
  const v = validator(ref);
  const what = typeof frame.method === 'string' ? frame.method : 'error';
  return v(frame) ? [] : describe(v, what);
}

function describe(v: ValidateFunction, what: string): string[] {
  // A frame fails a oneOf once per branch: the errors of the branch for its own method say why.
  const errors = (v.errors ?? []).filter((e) => e.keyword !== 'enum' && e.keyword !== 'oneOf');
  return [
    `${what}: ${(errors.length ? errors : (v.errors ?? []))
      .slice(0, 5)
      .map((e) => `${e.instancePath} ${e.message}`)
      .join('; ')}`,
  ];
}
