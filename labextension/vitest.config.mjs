// Unit tests of the extension's pure logic (protocol, materialize, highlighting) and of the live panel's
// front end in a happy-dom page (test/panel*.test.mjs); run by `jlpm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,mjs}'],
    environment: 'node'
  }
});
