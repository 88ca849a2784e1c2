/**
 * Types of front_end.js for TypeScript hosts (the JupyterLab extension, its tests). The wire's
 * declaration is notebook/comm/panel_protocol.py; these mirror it, and the extension's tests check
 * typed samples against its schema (labextension/protocol/panel.schema.json).
 */

export type NodeKind = 'html' | 'button' | 'textarea' | 'fold' | 'vbox' | 'hbox' | 'image';

/** A node's properties on the wire; a property at its kind's default is left out. */
export interface IProps {
  /** value: HTML (html), text (textarea), base64 bytes (image) */
  v?: string;
  /** CSS classes */
  k?: string[];
  /** a button's label */
  d?: string;
  /** disabled */
  x?: boolean;
  /** a button's style */
  s?: '' | 'primary' | 'success' | 'info' | 'warning' | 'danger';
  /** a button's icon: stop, share, reply, undo, plus-square */
  i?: string;
  /** a button's tooltip, a fold's title */
  t?: string;
  /** a text box's placeholder */
  p?: string;
  /** a text box's rows */
  r?: number;
  /** a box's or fold's children, in order */
  n?: number[];
  /** a fold is open */
  o?: boolean;
  /** an image's format: png, jpeg, … */
  f?: string;
}

export type CreateOp = ['c', number, NodeKind, IProps];
export type SetOp = ['p', number, IProps];
/** An HTML node's value becomes value[:at] + text (at in UTF-16 units). */
export type SpliceOp = ['a', number, number, string];
/** A box's children become children[:at] + ids. */
export type AppendOp = ['+', number, number, number[]];
/** The node the panel shows. */
export type RootOp = ['r', number];
export type Op = CreateOp | SetOp | SpliceOp | AppendOp | RootOp;
export type OpBatch = Op[];

/** The answer to a hello: buffer 0 is the state (deflated when s; a primed stream when p), buffers 1–3 the front end when rt. */
export interface ISnapshot {
  s: boolean;
  rt: string | null;
  p?: boolean;
}
/** What a panel widget sends: a snapshot, the next piece of the deflate stream ("z"), or plain operations. */
export type PanelKernelMessage = ISnapshot | 'z' | OpBatch;

export type Hello = ['hello', string | null, boolean];
export type Click = ['click', number];
export type Value = ['value', number, string];
export type Fold = ['open', number, boolean];
/** What the user does, as the page sends it. */
export type PanelPageMessage = Hello | Click | Value | Fold;

export type PanelBuffer = ArrayBuffer | ArrayBufferView;

/** One panel: mounted on any element, fed the widget's messages or plain operations. */
export interface IPanel {
  /** One message of the panel widget; resolves once its operations are in the DOM. */
  receive(msg: PanelKernelMessage, buffers: PanelBuffer[]): Promise<void>;
  /** A batch of operations, in order. */
  apply(ops: OpBatch): void;
  /** Shows the panel in `el` until the returned function is called (or it is mounted elsewhere). */
  mount(el: HTMLElement): () => void;
  /** The element of node `id`, if there is one. */
  element(id: number): HTMLElement | undefined;
  /** Every node's id, in the order the nodes were made. */
  ids(): number[];
  dispose(): void;
}

/** A new panel; `send` gets the user's clicks, typing and folding. */
export declare function createPanel(send: (event: Click | Value | Fold) => void): IPanel;

/** anywidget's model, as far as the front end uses it. */
export interface IPanelModel {
  get(key: '_panel_id'): string;
  send(content: PanelPageMessage): void;
}

/** What the loader (loader.js) hands every panel widget. */
declare const frontEnd: {
  style(css: string): void;
  /** The panel of a widget's model: mount it on another element, read its nodes. */
  panel(model: IPanelModel): IPanel;
  forget(model: IPanelModel): void;
  receive(model: IPanelModel, msg: PanelKernelMessage, buffers: PanelBuffer[]): Promise<void>;
  render(model: IPanelModel, el: HTMLElement): () => void;
};
export default frontEnd;
