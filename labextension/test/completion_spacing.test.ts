// @vitest-environment happy-dom
/**
 * The inline completion provider's request spacing (`REQUEST_SPACING_MS`, `REQUEST_BURST`): a
 * bucket of two requests refilled one per interval; a key asks at once while it holds one, and
 * otherwise when it does again, if no newer key replaced it. JupyterLab's modules are replaced by
 * the little the provider uses.
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

type Posted = { type: string; request_id: string; prefix?: string };

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
    provider = new AgentInlineCompletionProvider(() => fakeConnection(posted) as never);
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

  it("asks for a burst's first two keys at once, holds the next for the bucket, and drops the keys it replaced", async () => {
    expect(REQUEST_BURST).toBe(2);
    await key(provider, 'd');
    vi.advanceTimersByTime(20);
    await key(provider, 'df'); // the bucket's second request
    vi.advanceTimersByTime(20);
    const third = key(provider, 'df.');
    vi.advanceTimersByTime(10);
    const fourth = key(provider, 'df.r');
    expect(requests(posted)).toEqual(['d', 'df']);
    // After "df" (t = 20) the bucket held 20/75 of a request; it holds a whole one at t = 75.
    vi.advanceTimersByTime(75 - 50 - 1);
    await Promise.resolve();
    expect(requests(posted)).toEqual(['d', 'df']); // 1 ms early: still waiting
    vi.advanceTimersByTime(1);
    expect(await third).toEqual({ items: [] }); // replaced by the newer key
    await fourth;
    expect(requests(posted)).toEqual(['d', 'df', 'df.r']);
  });

  it('asks once per interval while a key is held', async () => {
    const answers: Promise<unknown>[] = [];
    let text = '';
    for (let i = 0; i < 20; i++) {
      text += 'x';
      answers.push(key(provider, text));
      vi.advanceTimersByTime(30); // a key's repeat rate
    }
    vi.advanceTimersByTime(REQUEST_SPACING_MS);
    await Promise.all(answers);
    const asked = requests(posted);
    // 600 ms of keys: the bucket's two, one per 75 ms after, and the last key's own.
    expect(asked.length).toBeLessThanOrEqual(REQUEST_BURST + Math.ceil((20 * 30) / REQUEST_SPACING_MS));
    expect(asked[asked.length - 1]).toBe(text);
  });

  it('cancels the request in flight when the next key asks', async () => {
    await key(provider, 'df');
    const first = posted[0].request_id;
    vi.advanceTimersByTime(REQUEST_SPACING_MS + 1);
    await key(provider, 'df.');
    expect(posted.map(m => m.type)).toEqual(['complete_request', 'complete_cancel', 'complete_request']);
    expect(posted[1].request_id).toBe(first);
  });

  it('never holds an explicit request (the shortcut)', async () => {
    await key(provider, 'd');
    vi.advanceTimersByTime(10);
    await key(provider, 'df', INVOKE);
    expect(requests(posted)).toEqual(['d', 'df']);
  });
});
