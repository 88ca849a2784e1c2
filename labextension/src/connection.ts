/**
 * One notebook panel's comm with the jupyter_agent kernel extension.
 *
 * The panel never opens a comm on a kernel that lacks the target (the kernel
 * would log an error): it first asks `comm_info_request` for comms of the
 * target, and the kernel keeps one silent "beacon" comm there once
 * `%load_ext jupyter_agent` ran. It asks when the kernel becomes idle for the
 * first time and after running a cell that mentions the agent.
 */

import { ISessionContext } from '@jupyterlab/apputils';
import { Cell } from '@jupyterlab/cells';
import { Notebook, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';
import { JSONObject, PromiseDelegate, UUID } from '@lumino/coreutils';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  asKernelMessage,
  IChatFinished,
  ICompletion,
  IEditReview,
  IEditReviewDone,
  IMaterialize,
  INotebookReply,
  INotebookRequest,
  IRunState,
  KernelMessage,
  Notice,
  PROTOCOL_VERSION,
  Request,
  TARGET_NAME
} from './protocol';

export type ConnectionState =
  | 'absent'
  | 'connecting'
  | 'connected'
  | 'incompatible';

type WithoutId<T> = T extends unknown ? Omit<T, 'request_id'> : never;
export type RequestBody = WithoutId<Request>;

/** Why 30 s: a busy kernel answers comm requests only between its own work. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Cells after which the kernel may have loaded the extension. */
const MENTIONS_AGENT = /jupyter_agent|^\s*%%?agent\b/m;
/**
 * Why look again: `%load_ext jupyter_agent` registers the comm target just after its cell, once
 * the comm's modules were imported off the kernel's loop (a fraction of a second), so the probe
 * that the cell's end starts may be answered before. Delays between the looks (ms).
 */
const LOOK_AGAIN_MS = [100, 250, 500, 1000, 2000];

export class AgentConnection implements IDisposable {
  constructor(
    readonly panel: NotebookPanel,
    private readonly _client: string
  ) {
    const context = panel.sessionContext;
    this._path = panel.context.path;
    panel.context.pathChanged.connect(this._onPathChanged, this);
    context.statusChanged.connect(this._onStatus, this);
    context.kernelChanged.connect(this._onKernelChanged, this);
    NotebookActions.executed.connect(this._onExecuted, this);
    void context.ready.then(() => this._onStatus(context, context.kernelDisplayStatus));
  }

  get state(): ConnectionState {
    return this._state;
  }

  get packageVersion(): string {
    return this._packageVersion;
  }

  /** Turns running now, by session. */
  get runs(): ReadonlyMap<string, IRunState> {
    return this._runs;
  }

  get stateChanged(): ISignal<this, ConnectionState> {
    return this._stateChanged;
  }

  /** Runs started or finished: session lists and commands may change. */
  get runsChanged(): ISignal<this, void> {
    return this._runsChanged;
  }

  /** The kernel sent cells to insert (a Materialize button, or an answer). */
  get materialize(): ISignal<this, IMaterialize> {
    return this._materialize;
  }

  /** The kernel's notebook tools ask this notebook's live document something. */
  get notebookRequest(): ISignal<this, INotebookRequest> {
    return this._notebookRequest;
  }

  /** The kernel streams a completion (`completion` messages, by request id). */
  get completion(): ISignal<this, ICompletion> {
    return this._completion;
  }

  /** A turn's notebook_edit to review in its cell, or the end of that review. */
  get editReview(): ISignal<this, IEditReview | IEditReviewDone> {
    return this._editReview;
  }

  /** A side panel turn ended (its static rendering). */
  get chatFinished(): ISignal<this, IChatFinished> {
    return this._chatFinished;
  }

  /** Whether the kernel's agent can be asked something now. */
  get isConnected(): boolean {
    return this._comm !== null && this._state === 'connected' && !this._comm.isDisposed;
  }

  /** Sends a message that has no single answer; false when no kernel listens. */
  post(message: Notice): boolean {
    if (!this.isConnected) {
      return false;
    }
    this._comm!.send(JSON.parse(JSON.stringify(message)) as JSONObject);
    return true;
  }

  /** Answers a `notebook_request`; dropped when the comm is gone (the kernel's tool times out). */
  reply(message: INotebookReply): void {
    if (this._comm && this._state === 'connected' && !this._comm.isDisposed) {
      this._comm.send(JSON.parse(JSON.stringify(message)) as JSONObject);
    }
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** The notebook was renamed or moved: the kernel moves its sessions along. */
  private _onPathChanged(_: unknown, path: string): void {
    const previous = this._path;
    this._path = path;
    if (previous !== path) {
      this._tellPath(previous);
    }
  }

  private _tellPath(previous: string | null): void {
    this.post({
      type: 'notebook_moved',
      request_id: `notebook-moved-${++this._moves}`,
      path: this._path,
      previous
    });
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    window.clearTimeout(this._lookAgainTimer);
    NotebookActions.executed.disconnect(this._onExecuted, this);
    this.panel.context.pathChanged.disconnect(this._onPathChanged, this);
    this._disconnect(true);
    Signal.clearData(this);
  }

  /** Sends a request and resolves with the kernel's answer (rejects on a failed reply). */
  request(body: RequestBody, timeoutMs = REQUEST_TIMEOUT_MS, requestId = UUID.uuid4()): Promise<KernelMessage> {
    const comm = this._comm;
    if (!comm || this._state !== 'connected') {
      return Promise.reject(
        new Error(
          "This notebook's kernel has no agent: run %load_ext jupyter_agent first."
        )
      );
    }
    const pending = new PromiseDelegate<KernelMessage>();
    const timer = window.setTimeout(() => {
      this._pending.delete(requestId);
      pending.reject(new Error('The kernel did not answer (is it busy?).'));
    }, timeoutMs);
    this._pending.set(requestId, { pending, timer });
    comm.send({ ...body, request_id: requestId });
    return pending.promise;
  }

  /** Looks for the kernel's target and opens a comm when it is there. */
  async probe(): Promise<void> {
    const kernel = this.panel.sessionContext.session?.kernel;
    if (!kernel || this._state !== 'absent') {
      return;
    }
    if (this._probing) {
      // The answer in flight may predate the %load_ext that asked for this probe.
      this._probeAgain = true;
      return;
    }
    this._probing = true;
    this._probeAgain = false;
    try {
      const reply = await kernel.requestCommInfo({ target_name: TARGET_NAME });
      const content = reply.content;
      const found =
        content.status === 'ok' &&
        Object.values(content.comms).some(
          comm => comm.target_name === TARGET_NAME
        );
      if (found && !this._isDisposed && this._state === 'absent') {
        this._open(kernel);
      }
    } catch {
      // A kernel that died or restarted meanwhile: the next trigger asks again.
    } finally {
      this._probing = false;
    }
    if (this._probeAgain) {
      await this.probe();
    }
  }

  private _open(kernel: Kernel.IKernelConnection): void {
    const comm = kernel.createComm(TARGET_NAME);
    this._comm = comm;
    this._setState('connecting');
    comm.onMsg = msg => this._onMessage(msg.content.data);
    comm.onClose = () => {
      if (this._comm === comm) {
        this._disconnect(false);
      }
    };
    comm.open({
      type: 'hello',
      version: PROTOCOL_VERSION,
      client: this._client
    });
  }

  private _onMessage(data: unknown): void {
    const message = asKernelMessage(data);
    if (!message) {
      return;
    }
    switch (message.type) {
      case 'welcome':
        this._packageVersion = message.package_version;
        this._runs = new Map(message.runs.map(run => [run.session, run]));
        this._setState('connected');
        // A kernel started (or restarted) before a rename may know an old path.
        this._tellPath(null);
        this._runsChanged.emit();
        return;
      case 'run_started':
        this._runs.set(message.session, {
          session: message.session,
          cell_id: message.cell_id
        });
        this._runsChanged.emit();
        return;
      case 'run_finished':
        this._runs.delete(message.session);
        this._runsChanged.emit();
        return;
      case 'materialize':
        this._materialize.emit(message);
        break;
      case 'notebook_request':
        this._notebookRequest.emit(message);
        return;
      case 'completion':
        this._completion.emit(message);
        return;
      case 'chat_finished':
        this._chatFinished.emit(message);
        return;
      case 'edit_review':
      case 'edit_review_done':
        this._editReview.emit(message);
        return;
      case 'reply':
        if (!message.ok && message.request_id === null) {
          // The kernel refused the comm (protocol versions differ); it closes it next.
          this._refusal = message.message;
        }
        break;
    }
    this._settle(message);
  }

  private _settle(message: KernelMessage): void {
    const requestId = 'request_id' in message ? message.request_id : null;
    const entry = requestId ? this._pending.get(requestId) : undefined;
    if (!requestId || !entry) {
      return;
    }
    this._pending.delete(requestId);
    window.clearTimeout(entry.timer);
    if (message.type === 'reply' && !message.ok) {
      entry.pending.reject(new Error(message.message));
    } else {
      entry.pending.resolve(message);
    }
  }

  private _onStatus(
    context: ISessionContext,
    status: ISessionContext.KernelDisplayStatus
  ): void {
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      status === 'dead'
    ) {
      this._refusal = '';
      this._disconnect(false);
      this._probedKernel = null;
      return;
    }
    const kernel = context.session?.kernel;
    if (status === 'idle' && kernel && this._probedKernel !== kernel) {
      this._probedKernel = kernel;
      void this.probe();
    }
  }

  private _onKernelChanged(): void {
    this._refusal = '';
    this._disconnect(false);
    this._probedKernel = null;
  }

  private _onExecuted(
    _: unknown,
    args: { notebook: Notebook; cell: Cell }
  ): void {
    if (args.notebook !== this.panel.content || this._state !== 'absent') {
      return;
    }
    if (MENTIONS_AGENT.test(args.cell.model.sharedModel.getSource())) {
      window.clearTimeout(this._lookAgainTimer);
      void this.probe().then(() => this._lookAgain(0));
    }
  }

  /** Probes again after `LOOK_AGAIN_MS[attempt]` while the kernel's target is not found. */
  private _lookAgain(attempt: number): void {
    if (attempt >= LOOK_AGAIN_MS.length || this._isDisposed || this._state !== 'absent') {
      return;
    }
    this._lookAgainTimer = window.setTimeout(() => {
      void this.probe().then(() => this._lookAgain(attempt + 1));
    }, LOOK_AGAIN_MS[attempt]);
  }

  private _disconnect(closeComm: boolean): void {
    const comm = this._comm;
    this._comm = null;
    if (comm && closeComm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // The kernel is gone already; nothing to tell it.
      }
    }
    for (const [requestId, entry] of this._pending) {
      window.clearTimeout(entry.timer);
      entry.pending.reject(new Error('The kernel connection ended.'));
      this._pending.delete(requestId);
    }
    const hadRuns = this._runs.size > 0;
    this._runs = new Map();
    this._setState(this._refusal ? 'incompatible' : 'absent');
    if (hadRuns) {
      this._runsChanged.emit();
    }
  }

  private _setState(state: ConnectionState): void {
    if (this._state !== state) {
      this._state = state;
      this._stateChanged.emit(state);
    }
  }

  /** Why the kernel refused this frontend, if it did. */
  get refusal(): string {
    return this._refusal;
  }

  private _comm: Kernel.IComm | null = null;
  private _state: ConnectionState = 'absent';
  private _probing = false;
  private _lookAgainTimer = 0;
  private _probeAgain = false;
  private _probedKernel: Kernel.IKernelConnection | null = null;
  private _packageVersion = '';
  private _refusal = '';
  private _runs = new Map<string, IRunState>();
  private _pending = new Map<
    string,
    { pending: PromiseDelegate<KernelMessage>; timer: number }
  >();
  private _path: string;
  private _moves = 0;
  private _isDisposed = false;
  private _stateChanged = new Signal<this, ConnectionState>(this);
  private _runsChanged = new Signal<this, void>(this);
  private _materialize = new Signal<this, IMaterialize>(this);
  private _notebookRequest = new Signal<this, INotebookRequest>(this);
  private _completion = new Signal<this, ICompletion>(this);
  private _chatFinished = new Signal<this, IChatFinished>(this);
  private _editReview = new Signal<this, IEditReview | IEditReviewDone>(this);
}
