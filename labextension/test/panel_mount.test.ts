// @vitest-environment happy-dom
/**
 * front_end.js as a module other hosts mount (a JupyterLab side panel, a test page): createPanel
 * builds a panel on any element from plain batches of operations or the widget's messages. Its
 * types (front_end.d.ts) are checked here: the typed samples compile and follow the schema.
 */

import { constants, createDeflate } from 'node:zlib';

import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';

import {
  createPanel,
  OpBatch,
  PanelPageMessage
} from '../../jupyter_agent/notebook/panel/front_end.js';
import schema from '../protocol/panel.schema.json';

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema, 'panel');
const validBatch = ajv.getSchema('panel#/$defs/OpBatch')!;
const validPageMessage = ajv.getSchema('panel#/$defs/PanelPageMessage')!;

const OPS: OpBatch = [
  ['c', 1, 'html', { v: '<p>Hello 🙂 world, the answer streams in here</p>', k: ['ja-md'] }],
  ['c', 2, 'button', { d: 'Stop', i: 'stop', s: 'danger', t: 'Stop the agent' }],
  ['c', 3, 'vbox', { k: ['ja-panel'], n: [1, 2] }],
  ['r', 3]
];

// One deflate stream, flushed after each piece, as the kernel's (turn_widget.py).
function deflater(): (text: string) => Promise<Buffer> {
  const stream = createDeflate();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return text =>
    new Promise(resolve => {
      stream.write(text);
      stream.flush(constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(chunks.splice(0))));
    });
}

describe('createPanel', () => {
  it('mounts on any element, and moves when mounted elsewhere', () => {
    const events: PanelPageMessage[] = [];
    const panel = createPanel(event => events.push(event));
    const first = document.createElement('section');
    panel.apply(OPS);
    panel.mount(first);
    expect(first.firstElementChild!.className).toBe('ja-box ja-vbox ja-panel');
    expect(first.textContent).toBe('Hello 🙂 world, the answer streams in here■Stop');
    const second = document.createElement('aside');
    const unmount = panel.mount(second);
    const splice: OpBatch = [['a', 1, 29, ' streams on</p>']]; // 29 UTF-16 units: the emoji counts 2
    panel.apply(splice);
    expect(second.querySelector('.ja-html')!.innerHTML).toBe('<p>Hello 🙂 world, the answer streams on</p>');
    expect(panel.element(2)!.className).toBe('ja-button  ja-button-danger');
    panel.element(2)!.click();
    expect(events).toEqual([['click', 2]]);
    unmount();
    expect(panel.ids()).toEqual([1, 2, 3]);
    for (const batch of [OPS, splice]) {
      expect(validBatch(batch), JSON.stringify(validBatch.errors)).toBe(true);
    }
    expect(validPageMessage(events[0])).toBe(true);
  });

  it('receives the widget\'s messages: a deflated snapshot, then flushed pieces of the same stream', async () => {
    const panel = createPanel(() => undefined);
    const host = document.createElement('div');
    panel.mount(host);
    const deflate = deflater();
    await panel.receive({ s: true, rt: null }, [await deflate(JSON.stringify(OPS) + '\n')]);
    expect(host.textContent).toContain('Hello 🙂 world');
    const stopped: OpBatch = [['p', 2, { x: true, d: 'Stopped' }]];
    await panel.receive('z', [await deflate(JSON.stringify(stopped) + '\n')]);
    expect((panel.element(2) as HTMLButtonElement).disabled).toBe(true);
    expect(panel.element(2)!.textContent).toBe('■Stopped');
    panel.dispose();
  });
});

describe('a broken deflate stream', () => {
  it('is reported once and holds nothing up: later messages resolve at once', async () => {
    const errors: string[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(' '));
    try {
      const panel = createPanel(() => undefined);
      await panel.receive({ s: true, rt: null }, [Buffer.from('not deflate at all')]);
      await panel.receive('z', [Buffer.from('nor this')]);
      panel.apply(OPS); // plain operations still work
      expect(panel.element(2)!.textContent).toBe('■Stop');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^jupyter-agent panel:/);
    } finally {
      console.error = log;
    }
  });
});
