// Unit tests of the extension's pure logic (protocol, materialize, highlighting); run by `jlpm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node'
  }
});
