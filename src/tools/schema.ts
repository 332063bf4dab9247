/**
 * Tool parameter schemas: a zod schema (or any Standard Schema with JSON Schema support)
 * or a plain JSON Schema. Neither zod nor ajv is imported here up front: a zod schema
 * converts and validates itself, and ajv loads on the first call of a JSON-Schema tool.
 */

/** The parts of a zod (Standard Schema) object agentpipe uses. */
interface StandardLike {
  '~standard': {
    validate(value: unknown):
      | {
          value?: unknown;
          issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
        }
      | Promise<unknown>;
    jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
  toJSONSchema?: (params?: Record<string, unknown>) => Record<string, unknown>;
}

/** A checked input, or the reason it does not fit. */
export type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export interface ParameterSchema {
  json: Record<string, unknown>;
  validate(input: Record<string, unknown>): Promise<Validation>;
}

export function isStandardSchema(value: unknown): value is StandardLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    '~standard' in value &&
    typeof (value as StandardLike)['~standard']?.validate === 'function'
  );
}

export function parameterSchema(parameters: unknown): ParameterSchema {
  if (parameters === undefined) return fromJsonSchema({ type: 'object', properties: {} });
  if (isStandardSchema(parameters)) return fromStandard(parameters);
  if (typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters))
    return fromJsonSchema(parameters as Record<string, unknown>);
  throw new TypeError('parameters must be a zod schema or a JSON Schema object');
}

function fromStandard(schema: StandardLike): ParameterSchema {
  const raw = schema.toJSONSchema
    ? schema.toJSONSchema({ io: 'input' })
    : schema['~standard'].jsonSchema?.input({ target: 'draft-2020-12' });
  if (!raw)
    throw new TypeError('this schema cannot be converted to JSON Schema; pass a zod 4 schema or a JSON Schema object');
  const { $schema: _, ...json } = raw;
  return {
    json,
    async validate(input) {
      const result = (await schema['~standard'].validate(input)) as {
        value?: unknown;
        issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
      };
      if (!result.issues) return { ok: true, value: (result.value ?? input) as Record<string, unknown> };
      return { ok: false, error: result.issues.map((i) => `${pathText(i.path)}${i.message}`).join('; ') };
    },
  };
}

function pathText(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  if (!path?.length) return '';
  return `${path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: `;
}

/** One compiled JSON Schema: ajv's validate function, with the errors of the last call. */
export type AjvValidate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }> | null;
};

/**
 * Compiles a JSON Schema with ajv (loaded on first use; the one place ajv is imported). Throws for an invalid schema.
 */
export async function compileJsonSchema(schema: object): Promise<AjvValidate> {
  const { Ajv } = await import('ajv');
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

function fromJsonSchema(json: Record<string, unknown>): ParameterSchema {
  const { $schema: _, ...schema } = json;
  let compiled: Promise<AjvValidate> | undefined;
  return {
    json: schema,
    async validate(input) {
      compiled ??= compileJsonSchema(schema);
      const check = await compiled;
      if (check(input)) return { ok: true, value: input };
      return {
        ok: false,
        error: (check.errors ?? [])
          .map(
            (e) =>
              `${e.instancePath ? `${e.instancePath.slice(1).replaceAll('/', '.')}: ` : ''}${e.message ?? 'invalid'}`,
          )
          .join('; '),
      };
    },
  };
}
