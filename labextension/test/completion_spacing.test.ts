// @vitest-environment happy-dom
/**
 * The inline completion provider's rate limit: a bucket of `REQUEST_BURST` requests, refilled one
 * per `REQUEST_SPACING_MS`; a key asks at once while the bucket has one, else when it has one
 * again, if no newer key replaced it. JupyterLab's modules are replaced by the little the
 * provider uses.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@jupyterlab/completer', () => ({
  InlineCompletionTriggerKind: { Invoke: 0, Automatic: 1 }
}));
vi.mock('@jupyterlab/notebook', () => ({ NotebookPanel: class {} }));
vi.mock('@lumino/widgets', () => ({ Widget: class {} }));
vi.mock('../src/connection', () => ({ AgentConnection: class {} }));
vi.mock('../src/icon', () => ({ agentIcon: {} }));

import {
  AgentInlineCompletionProvider,
  REQUEST_BURST,
  REQUEST_SPACING_MS
} from '../src/completion';

type Posted = {
  type: string;
  request_id: string;
  prefix?: string;
  replaces?: string | null;
};

function fakeConnection(posted: Posted[]) {
  return {
    isConnected: true,
    completion: { connect: () => true, disconnect: () => true },
    post: (message: Posted) => {
      posted.push(message);
      return true;
    }
  };
}

const AUTOMATIC = 1;
const INVOKE = 0;

function key(provider: AgentInlineCompletionProvider, text: string, triggerKind = AUTOMATIC) {
  return provider.fetch(
    { text, offset: text.length } as never,
    { widget: {}, triggerKind } as never
  );
}

function requests(posted: Posted[]): string[] {
  return posted.filter(m => m.type === 'complete_request').map(m => m.prefix ?? '');
}

describe('request spacing', () => {
  let posted: Posted[];
  let provider: AgentInlineCompletionProvider;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    posted = [];
    const connection = fakeConnection(posted);
    provider = new AgentInlineCompletionProvider(() => connection as never);
  });

  afterEach(() => {
    provider.dispose();
    vi.useRealTimers();
  });

  it('asks at once for a key after a pause', async () => {
    await key(provider, 'df');
    vi.advanceTimersByTime(REQUEST_SPACING_MS + 1);
    await key(provider, 'df.');
    expect(requests(posted)).toEqual(['df', 'df.']);
  });

  it('asks at once for each key of a short burst', async () => {
    expect(REQUEST_BURST).toBe(3);
    await key(provider, 'd');
    vi.advanceTimersByTime(30);
    await key(provider, 'df');
    vi.advanceTimersByTime(30);
    await key(provider, 'df.');
    expect(requests(posted)).toEqual(['d', 'df', 'df.']);
  });

  it('holds a key past the burst until the bucket refills, and drops the keys it replaced', async () => {
    for (const text of ['d', 'df', 'df.']) {
      await key(provider, text); // at 0 ms: the bucket is empty, and has one request again at 75 ms
    }
    vi.advanceTimersByTime(10);
    const fourth = key(provider, 'df.s');
    vi.advanceTimersByTime(10);
    const fifth = key(provider, 'df.su');
    expect(requests(posted)).toEqual(['d', 'df', 'df.']); // both wait for the refill
    vi.advanceTimersByTime(REQUEST_SPACING_MS - 20 - 1);
    await Promise.resolve();
    expect(requests(posted)).toEqual(['d', 'df', 'df.']); // 1 ms early: still waiting
    vi.advanceTimersByTime(1);
    expect(await fourth).toEqual({ items: [] }); // replaced by the newer key
    await fifth;
    expect(requests(posted)).toEqual(['d', 'df', 'df.', 'df.su']);
  });

  it('refills the bucket at one request per interval', async () => {
    for (const text of ['a', 'ab', 'abc']) {
      await key(provider, text);
    }
    vi.advanceTimersByTime(REQUEST_SPACING_MS + 1); // one request back, not three
    await key(provider, 'abcd');
    const held = key(provider, 'abcde');
    expect(requests(posted)).toEqual(['a', 'ab', 'abc', 'abcd']);
    vi.advanceTimersByTime(REQUEST_SPACING_MS);
    await held;
    expect(requests(posted)).toEqual(['a', 'ab', 'abc', 'abcd', 'abcde']);
  });

  it('cancels the request in flight in the next key\'s own request', async () => {
    await key(provider, 'df');
    const first = posted[0].request_id;
    vi.advanceTimersByTime(REQUEST_SPACING_MS + 1);
    await key(provider, 'df.');
    expect(posted.map(m => m.type)).toEqual(['complete_request', 'complete_request']);
    expect(posted[0].replaces).toBeNull();
    expect(posted[1].replaces).toBe(first);
  });

  it('cancels the request in flight at once when the next key is held', async () => {
    for (const text of ['a', 'ab', 'abc']) {
      await key(provider, text);
    }
    const third = posted[2].request_id;
    const held = key(provider, 'abcd');
    expect(posted.map(m => m.type)).toEqual([
      'complete_request',
      'complete_request',
      'complete_request',
      'complete_cancel'
    ]);
    expect(posted[3].request_id).toBe(third);
    vi.advanceTimersByTime(REQUEST_SPACING_MS);
    await held;
    expect(posted[4]).toMatchObject({ type: 'complete_request', prefix: 'abcd', replaces: null });
  });

  it('cancels a request of another kernel with a message of its own', async () => {
    const elsewhere: Posted[] = [];
    const connections = [fakeConnection(elsewhere), fakeConnection(posted)];
    const provider = new AgentInlineCompletionProvider(() => connections.shift() as never);
    await key(provider, 'df');
    await key(provider, 'x');
    expect(elsewhere.map(m => m.type)).toEqual(['complete_request', 'complete_cancel']);
    expect(elsewhere[1].request_id).toBe(elsewhere[0].request_id);
    expect(posted).toMatchObject([{ type: 'complete_request', prefix: 'x', replaces: null }]);
  });

  it('never holds an explicit request (the shortcut)', async () => {
    for (const text of ['d', 'df', 'df.']) {
      await key(provider, text);
    }
    vi.advanceTimersByTime(10);
    await key(provider, 'df.s', INVOKE);
    expect(requests(posted)).toEqual(['d', 'df', 'df.', 'df.s']);
  });
});
