/**
 * One fake Messages API for the whole differential suite: every run (a scenario on one product)
 * gets its own API key, and the server answers each key's model requests from that run's replies,
 * so runs on Claude Code and agentpipe go on at the same time against one server.
 */
import { startFakeServer, type FakeServer, type RecordedRequest, type Reply } from '../../model/fake-servers.ts';

/** What a scenario's fake answers a model request with: the next reply in order, or a reply chosen for the request. */
export type Replies = Reply[] | ((body: RequestBody, index: number) => Reply);

/** The parsed body of a model request. */
export type RequestBody = Record<string, any>;

interface RunState {
  replies: Replies;
  requests: RecordedRequest[];
}

const isModelRequest = (r: RecordedRequest) =>
  r.method === 'POST' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens');

/** The key a request was made with: `x-api-key`, or a bearer token. */
function keyOf(r: RecordedRequest): string {
  const key = r.headers['x-api-key'];
  if (typeof key === 'string') return key;
  return (r.headers.authorization ?? '').replace(/^Bearer /, '');
}

const NO_REPLY: Reply = {
  kind: 'json',
  status: 500,
  body: { type: 'error', error: { type: 'api_error', message: 'the fake has no run for this key' } },
};

/**
 * Each answer of a run gets its own message id (`msg_01Test` becomes `msg_01Test_<n>`), as the real API's ids are
 * unique: Claude Code joins the assistant entries that share an id into one message when it builds the next request.
 */
function distinctId(reply: Reply, index: number): Reply {
  if (reply.kind !== 'sse' || index === 0) return reply;
  const frames = reply.frames.map((frame) =>
    frame.startsWith('event: message_start') ? frame.replace('"id":"msg_01Test"', `"id":"msg_01Test_${index}"`) : frame,
  );
  return { ...reply, frames };
}

/** The shared fake: `open` a run to get its key, `requests` of a key once the run ended. */
export class FakeApi {
  readonly #runs = new Map<string, RunState>();
  #next = 0;
  readonly server: FakeServer;
  private constructor(server: FakeServer) {
    this.server = server;
  }

  static async start(): Promise<FakeApi> {
    let api: FakeApi | undefined;
    const server = await startFakeServer((request) => api!.answer(request));
    api = new FakeApi(server);
    return api;
  }

  get url(): string {
    return this.server.url;
  }

  /** A new run answered from `replies`; returns its API key. */
  open(replies: Replies): string {
    const key = `sk-ant-compat-${++this.#next}`;
    this.#runs.set(key, { replies, requests: [] });
    return key;
  }

  /** The model requests a run made, in order; forgets the run. */
  close(key: string): RecordedRequest[] {
    const run = this.#runs.get(key);
    this.#runs.delete(key);
    return run?.requests ?? [];
  }

  answer(request: RecordedRequest): Reply {
    if (!isModelRequest(request)) return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    const run = this.#runs.get(keyOf(request));
    if (!run) return NO_REPLY;
    const index = run.requests.push(request) - 1;
    const reply =
      typeof run.replies === 'function'
        ? run.replies(request.body as RequestBody, index)
        : (run.replies[Math.min(index, run.replies.length - 1)] ?? NO_REPLY);
    return distinctId(reply, index);
  }

  stop(): Promise<void> {
    return this.server.close();
  }
}
