/**
 * Hostile stream-json input for the servers' fuzz tests (issue 27): values nested 10,000 deep in
 * each place a client can put JSON, values 100,000 wide, lines over the size limit, and broken
 * ones, as user messages and control requests. Each case says what the session owes its client:
 * a user message one `result` (an error when it was refused), a control request one
 * `control_response` with its id.
 */

/** A value nested `depth` levels deep: objects and arrays alternating. */
export function deepValue(depth: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 ? '[' : '{"a":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** An object with `width` keys. */
export function wideObject(width: number): string {
  return `{${Array.from({ length: width }, (_, i) => `"k${i}":${i}`).join(',')}}`;
}

/** One hostile line and what its client must get back. */
export interface HostileCase {
  name: string;
  line: string;
  /** `result`: one result (refused: an error); `control_response`: an answer with this request id; none: nothing. */
  owes:
    | { kind: 'result'; refused: boolean }
    | { kind: 'control_response'; id: string; refused: boolean }
    | { kind: 'none' };
}

const user = (content: string, extra = '') =>
  `{"type":"user","message":{"role":"user","content":${content}},"parent_tool_use_id":null,"session_id":""${extra}}`;
const request = (id: string, body: string) => `{"type":"control_request","request_id":"${id}","request":${body}}`;

/** The cases, for a server whose line limit is `maxLine` characters (AGENTPIPE_MAX_INPUT_LINE). */
export function hostileCases(maxLine: number): HostileCase[] {
  const deep = deepValue(10_000);
  const refusedResult = { kind: 'result', refused: true } as const;
  const answered = (id: string, refused: boolean) => ({ kind: 'control_response', id, refused }) as const;
  return [
    {
      name: 'deep value in a content block',
      line: user(`[{"type":"text","text":"hi","x":${deep}}]`),
      owes: refusedResult,
    },
    { name: 'deep content', line: user(deep), owes: refusedResult },
    { name: 'deep field beside the message', line: user('"hi"', `,"extra":${deep}`), owes: refusedResult },
    { name: 'deep top-level array', line: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, owes: { kind: 'none' } },
    {
      name: 'deep control request',
      line: request('deep-1', `{"subtype":"get_session_cost","x":${deep}}`),
      owes: answered('deep-1', true),
    },
    {
      name: 'deep initialize',
      line: request('deep-2', `{"subtype":"initialize","hooks":${deep}}`),
      owes: answered('deep-2', true),
    },
    {
      name: 'wide control request',
      line: request('wide-1', `{"subtype":"get_session_cost","x":${wideObject(100_000)}}`),
      owes: answered('wide-1', false),
    },
    {
      name: 'wide content block',
      line: user(`[{"type":"text","text":"wide","x":${wideObject(100_000)}}]`),
      owes: { kind: 'result', refused: false },
    },
    { name: 'huge user message', line: user(JSON.stringify('y'.repeat(maxLine + 10))), owes: refusedResult },
    {
      name: 'huge control request',
      line: request('huge-1', `{"subtype":"get_session_cost","x":"${'z'.repeat(maxLine)}"}`),
      owes: answered('huge-1', true),
    },
    {
      name: 'broken user message',
      line: `{"type":"user","message":{"role":"user","content":"cut`,
      owes: refusedResult,
    },
    {
      name: 'broken control request',
      line: `{"type":"control_request","request_id":"broken-1","request":{"subtype":`,
      owes: answered('broken-1', true),
    },
  ];
}

/**
 * Checks what a session sent back for the cases (all sent, then one good prompt): a list of problems, empty when
 * right.
 */
export function unmetDebts(cases: HostileCase[], lines: Array<Record<string, any>>): string[] {
  const problems: string[] = [];
  const results = lines.filter((l) => l.type === 'result');
  const owedResults = cases.filter((c) => c.owes.kind === 'result');
  if (results.length !== owedResults.length + 1)
    problems.push(`${results.length} results for ${owedResults.length} hostile user messages and one good one`);
  owedResults.forEach((c, i) => {
    const result = results[i];
    if (c.owes.kind === 'result' && result && result.is_error !== c.owes.refused)
      problems.push(`${c.name}: result is_error ${result.is_error}, expected ${c.owes.refused}`);
    if (c.owes.kind === 'result' && c.owes.refused && result && !/input refused/.test(result.errors?.[0] ?? ''))
      problems.push(`${c.name}: the error does not say the input was refused: ${JSON.stringify(result.errors)}`);
  });
  if (results.at(-1)?.subtype !== 'success' || results.at(-1)?.is_error)
    problems.push('the good prompt did not succeed');
  for (const c of cases) {
    if (c.owes.kind !== 'control_response') continue;
    const { id, refused } = c.owes;
    const answers = lines.filter((l) => l.type === 'control_response' && l.response.request_id === id);
    if (answers.length !== 1) problems.push(`${c.name}: ${answers.length} answers`);
    else if ((answers[0]!.response.subtype === 'error') !== refused)
      problems.push(`${c.name}: answered ${answers[0]!.response.subtype}: ${answers[0]!.response.error ?? ''}`);
  }
  return problems;
}
