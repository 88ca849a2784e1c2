/**
 * Both sides of the comm protocol are checked against the one JSON schema the
 * kernel's pydantic models generate (`protocol/comm.schema.json`): the typed
 * samples below must compile against this extension's types (`jlpm test` runs
 * tsc first) and validate against the schema.
 */

import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';

import schema from '../protocol/comm.schema.json';
import {
  asKernelMessage,
  IHello,
  INotebookReply,
  KERNEL_TYPES,
  KernelMessage,
  Notice,
  PROTOCOL_VERSION,
  Request,
  TARGET_NAME
} from '../src/protocol';

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema, 'comm');
const validKernelMessage = ajv.getSchema('comm#/$defs/KernelMessage')!;
const validFrontendMessage = ajv.getSchema('comm#/$defs/FrontendMessage')!;

const kernelSamples: KernelMessage[] = [
  {
    type: 'welcome',
    version: 1,
    package_version: '0.1.0',
    runs: [{ session: 'main', cell_id: 'c1' }]
  },
  { type: 'run_started', session: 'main', cell_id: null },
  {
    type: 'run_finished',
    session: 'main',
    cell_id: 'c1',
    status: 'completed',
    steps: 3
  },
  {
    type: 'materialize',
    cells: [
      { code: 'x = 1', metadata: { session: 'main', step: 1, model: null } }
    ],
    cell_id: 'c1',
    request_id: null
  },
  {
    type: 'sessions',
    request_id: 'r1',
    folder: null,
    sessions: [
      {
        name: 'main',
        messages: 4,
        last_activity: '2026-12-01T10:00:00Z',
        model: 'demo',
        cost_usd: 0.0123,
        running: false
      }
    ]
  },
  { type: 'transcript', request_id: 'r2', session: 'main', markdown: '# hi' },
  { type: 'reply', request_id: null, ok: false, message: 'No agent is running.' },
  {
    type: 'notebook_request',
    request_id: 'r3',
    action: 'edit',
    operation: { op: 'replace', cell_id: 'c2', source: 'x = 2', cell_type: 'code' },
    cell_id: null
  },
  {
    type: 'completion',
    request_id: 'r4',
    text: 'revenue_q3.sum()',
    status: 'streaming',
    message: '',
    model: 'openai/gpt-4.1-nano'
  },
  {
    type: 'edit_proposal',
    request_id: 'r5',
    cell_id: 'c2',
    source: 'df.plot(logy=True)',
    model: 'demo'
  },
  { type: 'chat_started', request_id: 'r6', session: 'chat', model_id: 'abc' },
  {
    type: 'edit_review',
    request_id: 'r7',
    cell_id: 'c2',
    op: 'replace',
    before: 'df.plot()',
    after: 'df.plot(logy=True)',
    tool: 'notebook_edit'
  },
  { type: 'edit_review_done', request_id: 'r7' },
  {
    type: 'chat_finished',
    request_id: 'r6',
    session: 'chat',
    bundles: [{ 'text/markdown': 'done', 'text/html': '<p>done</p>' }]
  }
];

const frontendSamples: (IHello | Request | Notice | INotebookReply)[] = [
  { type: 'hello', version: PROTOCOL_VERSION, client: 'jupyterlab 4.6' },
  { type: 'stop', request_id: 'r', session: null },
  { type: 'steer', request_id: 'r', text: 'faster' },
  { type: 'list_sessions', request_id: 'r' },
  { type: 'open_session', request_id: 'r', session: 'main' },
  { type: 'materialize_request', request_id: 'r' },
  { type: 'notebook_reply', request_id: 'r', ok: true, message: '', cells: [], index: null },
  {
    type: 'complete_request',
    request_id: 'r',
    prefix: 'df.',
    suffix: '',
    cells_above: ['import pandas as pd'],
    cell_id: 'c3'
  },
  { type: 'complete_cancel', request_id: 'r' },
  {
    type: 'edit_cell',
    request_id: 'r',
    prompt: 'log scale',
    cell_id: 'c2',
    source: 'df.plot()',
    cell_type: 'code',
    generate: false,
    index: null
  },
  { type: 'edit_cancel', request_id: 'r' },
  { type: 'chat_request', request_id: 'r', prompt: 'What is df?', session: null },
  {
    type: 'edit_decision',
    request_id: 'r',
    cell_id: 'c2',
    accepted: true,
    before: 'df.plot()',
    after: 'df.plot(logy=True)',
    index: 2
  },
  {
    type: 'notebook_moved',
    request_id: 'notebook-moved-1',
    path: 'Analysis.ipynb',
    previous: 'Untitled.ipynb'
  }
];

function mappingKeys(definition: 'KernelMessage' | 'FrontendMessage') {
  return Object.keys(schema.$defs[definition].discriminator.mapping).sort();
}

describe('the comm schema', () => {
  it('names the same target and version as this extension', () => {
    expect(schema['x-target-name']).toBe(TARGET_NAME);
    expect(schema['x-protocol-version']).toBe(PROTOCOL_VERSION);
  });

  it('accepts every kernel message this extension types, one per type', () => {
    for (const message of kernelSamples) {
      expect(validKernelMessage(message), JSON.stringify(validKernelMessage.errors)).toBe(true);
    }
    expect(kernelSamples.map(message => message.type).sort()).toEqual(mappingKeys('KernelMessage'));
    expect([...KERNEL_TYPES].sort()).toEqual(mappingKeys('KernelMessage'));
  });

  it('accepts every request this extension sends, one per type', () => {
    for (const message of frontendSamples) {
      expect(validFrontendMessage(message), JSON.stringify(validFrontendMessage.errors)).toBe(true);
    }
    expect(frontendSamples.map(message => message.type).sort()).toEqual(mappingKeys('FrontendMessage'));
  });

  it('rejects what the kernel would refuse', () => {
    expect(validFrontendMessage({ type: 'steer', request_id: 'r', text: '' })).toBe(false);
    expect(validFrontendMessage({ type: 'open_session', request_id: 'r' })).toBe(false);
    expect(validKernelMessage({ type: 'run_started', cell_id: null })).toBe(false);
  });
});

describe('asKernelMessage', () => {
  it('keeps the kernel messages it knows', () => {
    for (const message of kernelSamples) {
      expect(asKernelMessage(message)).toBe(message);
    }
  });

  it('ignores anything else (a newer kernel may send more)', () => {
    expect(asKernelMessage(null)).toBeNull();
    expect(asKernelMessage('welcome')).toBeNull();
    expect(asKernelMessage({ type: 'progress' })).toBeNull();
    expect(asKernelMessage({ type: 7 })).toBeNull();
  });
});
