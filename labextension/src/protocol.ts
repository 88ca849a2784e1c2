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

export type Request =
  | IStop
  | ISteer
  | IListSessions
  | IOpenSession
  | IMaterializeRequest;

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

export type KernelMessage =
  | IWelcome
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
  'reply'
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
