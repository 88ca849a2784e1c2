/**
 * The message schema between the kernel and this extension: the mirror of
 * `jupyter_agent/notebook/comm/protocol.py`. Change both together and bump
 * PROTOCOL_VERSION when a field is removed or changes meaning.
 */

export const TARGET_NAME = 'jupyter_agent';
export const PROTOCOL_VERSION = 1;

// -- frontend -> kernel ------------------------------------------------------

export interface IHello {
  type: 'hello';
  version: number;
  client: string;
}

/**
 * The notebook is at `path` (server-relative): sent once connected and when the
 * notebook is renamed or moved (`previous`: where it was). Its sessions follow.
 */
export interface INotebookMoved {
  type: 'notebook_moved';
  request_id: string;
  path: string;
  previous: string | null;
}

export interface IStop {
  type: 'stop';
  request_id: string;
  session?: string | null;
}

export interface ISteer {
  type: 'steer';
  request_id: string;
  text: string;
  session?: string | null;
}

export interface IListSessions {
  type: 'list_sessions';
  request_id: string;
}

export interface IOpenSession {
  type: 'open_session';
  request_id: string;
  session: string;
}

export interface IMaterializeRequest {
  type: 'materialize_request';
  request_id: string;
  session?: string | null;
}

/** The answer to a `notebook_request` (sent with `AgentConnection.send`). */
export interface INotebookReply {
  type: 'notebook_reply';
  request_id: string;
  ok: boolean;
  message: string;
  cells?: object[] | null;
  cell?: object | null;
  index?: number | null;
}

/** Complete the cell at the cursor; answered by `completion` messages. */
export interface ICompleteRequest {
  type: 'complete_request';
  request_id: string;
  prefix: string;
  suffix: string;
  cells_above: string[];
  cell_id: string | null;
  /** The request of the key before, still streaming: the kernel cancels it as this one starts. */
  replaces?: string | null;
}

/** Stop a completion: the user typed on. */
export interface ICompleteCancel {
  type: 'complete_cancel';
  request_id: string;
}

/** A turn asked from the side panel; answered by `chat_started`. */
export interface IChatRequest {
  type: 'chat_request';
  request_id: string;
  prompt: string;
  session: string | null;
}

export type Request =
  | IChatRequest
  | IStop
  | ISteer
  | IListSessions
  | IOpenSession
  | IMaterializeRequest
  | IEditCellRequest
  | IEditDecision;

/** Edit with Agent: the kernel answers with an `edit_proposal` (or a failed reply). */
export interface IEditCellRequest {
  type: 'edit_cell';
  request_id: string;
  prompt: string;
  cell_id: string;
  source: string;
  cell_type: 'code' | 'markdown';
  generate: boolean;
  index: number | null;
}

/** The prompt box was closed while the agent worked. */
export interface IEditCancel {
  type: 'edit_cancel';
  request_id: string;
}

/** What the user did with a proposal (answered by a reply). */
export interface IEditDecision {
  type: 'edit_decision';
  request_id: string;
  cell_id: string;
  accepted: boolean;
  before: string;
  after: string;
  index: number;
}

/** Messages sent without waiting for one answer (`AgentConnection.post`). */
export type Notice =
  | ICompleteRequest
  | ICompleteCancel
  | IEditCancel
  | INotebookMoved;

// -- kernel -> frontend ------------------------------------------------------

export interface IRunState {
  session: string;
  cell_id: string | null;
}

export interface IWelcome {
  type: 'welcome';
  version: number;
  package_version: string;
  runs: IRunState[];
}

export interface IRunStarted {
  type: 'run_started';
  session: string;
  cell_id: string | null;
}

export interface IRunFinished {
  type: 'run_finished';
  session: string;
  cell_id: string | null;
  status: string;
  steps: number;
}

export interface IProvenance {
  session: string;
  step: number;
  model: string | null;
}

export interface ICellSpec {
  code: string;
  metadata: IProvenance;
}

export interface IMaterialize {
  type: 'materialize';
  cells: ICellSpec[];
  cell_id: string | null;
  request_id: string | null;
}

export interface ISessionSummary {
  name: string;
  messages: number;
  last_activity: string | null;
  model: string | null;
  cost_usd: number;
  running: boolean;
}

export interface ISessions {
  type: 'sessions';
  request_id: string;
  folder: string | null;
  sessions: ISessionSummary[];
}

export interface ITranscript {
  type: 'transcript';
  request_id: string;
  session: string;
  markdown: string;
}

export interface IReply {
  type: 'reply';
  request_id: string | null;
  ok: boolean;
  message: string;
}

/** An edit of the live document, as the kernel's notebook_edit tool asks it. */
export interface INotebookOperation {
  op: 'insert' | 'replace' | 'delete';
  cell_id?: string | null;
  index?: number | null;
  source?: string;
  cell_type?: 'code' | 'markdown';
}

/** The agent's notebook tools: read every cell, apply an edit, or run a cell. */
export interface INotebookRequest {
  type: 'notebook_request';
  request_id: string;
  action: 'read' | 'edit' | 'run';
  operation: INotebookOperation | null;
  cell_id: string | null;
}

/** A completion as it streams: `text` is the whole suggestion so far. */
export interface ICompletion {
  type: 'completion';
  request_id: string;
  text: string;
  status: 'streaming' | 'done' | 'cancelled' | 'error' | 'skipped';
  message: string;
  model: string;
}

/** The agent's new source for a cell, shown as an inline diff until the user decides. */
export interface IEditProposal {
  type: 'edit_proposal';
  request_id: string;
  cell_id: string;
  source: string;
  model: string;
}

/** The side panel's turn runs: its live panel is the widget `model_id`. */
export interface IChatStarted {
  type: 'chat_started';
  request_id: string;
  session: string;
  model_id: string;
}

/** The side panel's turn ended: its static rendering (output bundles) replaces the widget. */
export interface IChatFinished {
  type: 'chat_finished';
  request_id: string;
  session: string;
  bundles: { [mime: string]: string }[];
}

/** A turn's notebook_edit awaits approval: review it in the cell (answer: `edit_decision`). */
export interface IEditReview {
  type: 'edit_review';
  request_id: string;
  cell_id: string;
  op: 'replace' | 'delete';
  before: string;
  after: string;
  tool: string;
}

/** That approval was decided elsewhere (the panel's bar, Stop): close the review. */
export interface IEditReviewDone {
  type: 'edit_review_done';
  request_id: string;
}

export type KernelMessage =
  | IWelcome
  | IEditReview
  | IEditReviewDone
  | IChatStarted
  | IChatFinished
  | ICompletion
  | IEditProposal
  | INotebookRequest
  | IRunStarted
  | IRunFinished
  | IMaterialize
  | ISessions
  | ITranscript
  | IReply;

export const KERNEL_TYPES: ReadonlySet<string> = new Set([
  'welcome',
  'run_started',
  'run_finished',
  'materialize',
  'notebook_request',
  'sessions',
  'transcript',
  'reply',
  'completion',
  'edit_proposal',
  'chat_started',
  'chat_finished',
  'edit_review',
  'edit_review_done'
]);

/**
 * The kernel message in a comm payload, or null for anything this version does
 * not know (a newer kernel may send more).
 */
export function asKernelMessage(data: unknown): KernelMessage | null {
  if (typeof data !== 'object' || data === null) {
    return null;
  }
  const type = (data as { type?: unknown }).type;
  return typeof type === 'string' && KERNEL_TYPES.has(type)
    ? (data as KernelMessage)
    : null;
}
