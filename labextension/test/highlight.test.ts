import { describe, expect, it } from 'vitest';

import { isAgentCell } from '../src/highlight';

describe('isAgentCell', () => {
  it('is a cell whose first line starts with the %%agent magic', () => {
    expect(isAgentCell('%%agent\nPlot the sales')).toBe(true);
    expect(isAgentCell('%%agent -m demo --new\nhello')).toBe(true);
    expect(isAgentCell('%%agent\tx')).toBe(true);
    expect(isAgentCell('%%agent')).toBe(true);
  });

  it('is not a cell that only mentions it, or another magic', () => {
    expect(isAgentCell('x = 1\n%%agent\nhello')).toBe(false);
    expect(isAgentCell('%%agents\nhello')).toBe(false);
    expect(isAgentCell('%agent sessions')).toBe(false);
    expect(isAgentCell(' %%agent\nhello')).toBe(false);
    expect(isAgentCell('')).toBe(false);
  });
});
