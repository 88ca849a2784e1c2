/**
 * Inline completion (ghost text, Tab accepts) served by the notebook's kernel.
 *
 * An `IInlineCompletionProvider` of `@jupyterlab/completer`: each request
 * sends the cell's prefix, suffix and the cells above over the agent's comm;
 * the kernel adds the live variables the prefix names and streams the model's
 * answer back as `completion` messages, which `stream()` turns into ghost
 * text. The next keystroke cancels the request in flight (the kernel closes
 * the model's HTTP response): its own request names the one it replaces, so
 * the kernel gets one message for both. Requests are rate-limited here rather than by
 * JupyterLab's per-provider debounce, which would delay every key: a bucket of
 * `REQUEST_BURST` requests, refilled one per `REQUEST_SPACING_MS`; a key asks
 * at once while the bucket has one, else when it has one again, if no newer
 * key replaced it.
 */

import {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  IInlineCompletionProvider,
  InlineCompletionTriggerKind
} from '@jupyterlab/completer';
import { NotebookPanel } from '@jupyterlab/notebook';
import { PromiseDelegate, UUID } from '@lumino/coreutils';
import { IDisposable } from '@lumino/disposable';
import { Widget } from '@lumino/widgets';

import { AgentConnection } from './connection';
import { agentIcon } from './icon';
import { ICompletion } from './protocol';

export const PROVIDER_ID = 'jupyter-agent:inline-completion';
/** A request the kernel may still be streaming, and the kernel's connection. */
interface IRunningRequest {
  connection: AgentConnection;
  requestId: string;
}
/**
 * Why 75 ms: a typist's keys come 100–200 ms apart, so the bucket never runs
 * dry and each asks at once; a held key, or fast typing that lasts, starts at
 * most one request per 75 ms (~13 a second, each cancelled by the next), where
 * a debounce would wait the whole interval after every key.
 */
export const REQUEST_SPACING_MS = 75;
/**
 * Why 3: a short burst (`df.`, keys 30–40 ms apart) asks at once for each key,
 * so its last key never waits; with one request per interval and no bucket,
 * the last key of such a burst waited 15–70 ms by where it fell in the
 * interval (the key before it had just been sent). Three requests, each
 * cancelled by the next, is what a burst may cost beyond the interval's rate.
 */
export const REQUEST_BURST = 3;
/** Why 12: the cells just above say what the notebook is doing; older ones rarely matter to one line. */
const CELLS_ABOVE = 12;
/** Why 2000 characters each: a cell's start names its data; the whole of a long one costs tokens for nothing. */
const CELL_CHARS = 2000;

/**
 * A User Timing mark of a request's hop in the page (`fetch`: JupyterLab asked,
 * `posted`: sent to the kernel, `answered`: the first text arrived), shown in
 * the browser's performance tools; `benchmarks/completion_latency.py` reads them.
 */
function mark(hop: string, requestId: string): void {
  const name = `jupyter-agent:completion:${hop}`;
  performance.clearMarks(name); // the newest request's alone: a day of typing keeps three marks
  performance.mark(name, { detail: requestId });
}

/** One request's answer as it streams, buffered until JupyterLab asks for it. */
class CompletionStream {
  constructor(readonly requestId: string) {}

  get done(): boolean {
    return this._done;
  }

  /** Whether some text came. */
  get answered(): boolean {
    return this._text !== '';
  }

  update(message: ICompletion): void {
    this._text = message.text;
    this._done = message.status !== 'streaming';
    this._wake();
  }

  end(): void {
    this._done = true;
    this._wake();
  }

  async *updates(): AsyncGenerator<{ response: IInlineCompletionItem }> {
    let sent = '';
    while (true) {
      if (this._text !== sent) {
        sent = this._text;
        yield { response: { insertText: sent } };
      }
      if (this._done) {
        return;
      }
      this._waiting = new PromiseDelegate<void>();
      await this._waiting.promise;
    }
  }

  private _wake(): void {
    this._waiting?.resolve();
    this._waiting = null;
  }

  private _text = '';
  private _done = false;
  private _waiting: PromiseDelegate<void> | null = null;
}

export class AgentInlineCompletionProvider
  implements IInlineCompletionProvider, IDisposable
{
  readonly identifier = PROVIDER_ID;
  readonly name = 'Jupyter Agent';
  readonly icon = agentIcon;
  readonly schema = {
    default: {
      // JupyterLab's own debouncer would delay every request; bursts are debounced in fetch().
      debouncerDelay: 0,
      timeout: 15000,
      enabled: true
    }
  };

  constructor(
    private readonly _connectionFor: (widget: Widget) => AgentConnection | null
  ) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    this._isDisposed = true;
    this.cancel();
  }

  /** The id of the request streaming now, if any (for tests and the benchmark). */
  get current(): string | null {
    return this._current?.stream.requestId ?? null;
  }

  async fetch(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext
  ): Promise<IInlineCompletionList> {
    // A new keystroke: the answer to the previous one is stale.
    let replaced = this._detach();
    const connection = this._connectionFor(context.widget);
    if (!connection || !connection.isConnected || this._isDisposed) {
      this._cancelInKernel(replaced);
      return { items: [] };
    }
    const requestId = UUID.uuid4();
    mark('fetch', requestId);
    const generation = ++this._generation;
    const wait = (1 - this._requestsAvailable()) * REQUEST_SPACING_MS;
    const held = wait > 0 && context.triggerKind !== InlineCompletionTriggerKind.Invoke;
    // The new request names the stale one only if it leaves now for the same kernel: a held one
    // must not let the stale one stream meanwhile, and another notebook's kernel does not know it.
    if (held || replaced?.connection !== connection) {
      this._cancelInKernel(replaced);
      replaced = null;
    }
    if (held) {
      await new Promise(resolve => window.setTimeout(resolve, wait));
      if (generation !== this._generation) {
        return { items: [] }; // another key came: that one asks
      }
    }
    // An explicit request (the shortcut) is never held, but it spends from the bucket too.
    this._requests = Math.max(0, this._requestsAvailable() - 1);
    this._requestsAt = performance.now();
    const stream = new CompletionStream(requestId);
    const panel = context.widget instanceof NotebookPanel ? context.widget : null;
    const cell = panel?.content.activeCell ?? null;
    const index = panel?.content.activeCellIndex ?? 0;
    const cellsAbove = panel
      ? panel.content.widgets
          .slice(Math.max(0, index - CELLS_ABOVE), index)
          .map(widget => widget.model.sharedModel.getSource().slice(0, CELL_CHARS))
      : [];
    const onMessage = (_: AgentConnection, message: ICompletion) => {
      if (message.request_id === requestId) {
        if (message.text && !stream.answered) {
          mark('answered', requestId);
        }
        stream.update(message);
      }
    };
    connection.completion.connect(onMessage);
    const shared = cell?.model.sharedModel ?? null;
    const onEdit = (_: unknown, change: { sourceChange?: unknown }) => {
      if (change.sourceChange) {
        this.cancel(requestId);
      }
    };
    shared?.changed.connect(onEdit);
    this._current = {
      connection,
      stream,
      release: () => {
        connection.completion.disconnect(onMessage);
        shared?.changed.disconnect(onEdit);
      }
    };
    const sent = connection.post({
      type: 'complete_request',
      request_id: requestId,
      prefix: request.text.slice(0, request.offset),
      suffix: request.text.slice(request.offset),
      cells_above: cellsAbove,
      cell_id: cell?.model.id ?? null,
      replaces: replaced?.requestId ?? null
    });
    if (!sent) {
      this.cancel(requestId);
      return { items: [] };
    }
    mark('posted', requestId);
    return {
      items: [{ insertText: '', isIncomplete: true, token: requestId }]
    };
  }

  async *stream(
    token: string
  ): AsyncGenerator<{ response: IInlineCompletionItem }> {
    const current = this._current;
    if (!current || current.stream.requestId !== token) {
      return;
    }
    try {
      yield* current.stream.updates();
    } finally {
      if (this._current === current && current.stream.done) {
        current.release();
        this._current = null;
      }
    }
  }

  /** Stops the request in flight (all, or only `requestId`): the kernel closes its model request. */
  cancel(requestId?: string): void {
    this._cancelInKernel(this._detach(requestId));
  }

  /**
   * Ends the request in flight here (all, or only `requestId`); returns it if
   * the kernel may still be streaming it, for the caller to cancel there.
   */
  private _detach(requestId?: string): IRunningRequest | null {
    const current = this._current;
    if (!current || (requestId && current.stream.requestId !== requestId)) {
      return null;
    }
    this._current = null;
    current.release();
    const running = !current.stream.done;
    current.stream.end();
    return running
      ? { connection: current.connection, requestId: current.stream.requestId }
      : null;
  }

  private _cancelInKernel(request: IRunningRequest | null): void {
    request?.connection.post({
      type: 'complete_cancel',
      request_id: request.requestId
    });
  }

  /** How many requests the bucket holds now (a fraction while it refills). */
  private _requestsAvailable(): number {
    const refilled = (performance.now() - this._requestsAt) / REQUEST_SPACING_MS;
    return Math.min(REQUEST_BURST, this._requests + refilled);
  }

  private _current: {
    connection: AgentConnection;
    stream: CompletionStream;
    release: () => void;
  } | null = null;
  private _generation = 0;
  private _requests = REQUEST_BURST;
  private _requestsAt = -Infinity;
  private _isDisposed = false;
}
