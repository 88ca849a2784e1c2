// @vitest-environment happy-dom
/**
 * The inline completion provider's request spacing (`REQUEST_SPACING_MS`): a key asks at once
 * unless a request left less than the interval ago; then it asks when the interval is over, if no
 * newer key replaced it. JupyterLab's modules are replaced by the little the provider uses.
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

  it('holds the last key of a burst for what remains of the interval, and drops the keys it replaced', async () => {
    await key(provider, 'd');
    vi.advanceTimersByTime(20);
    const second = key(provider, 'df');
    vi.advanceTimersByTime(20);
    const third = key(provider, 'df.');
    expect(requests(posted)).toEqual(['d']); // both wait for the interval
    vi.advanceTimersByTime(REQUEST_SPACING_MS - 40 - 1);
    await Promise.resolve();
    expect(requests(posted)).toEqual(['d']); // 1 ms early: still waiting
    vi.advanceTimersByTime(1);
    expect(await second).toEqual({ items: [] }); // replaced by the newer key
    await third;
    expect(requests(posted)).toEqual(['d', 'df.']);
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
